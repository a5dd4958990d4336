import { badRequest } from '../errorBody';
import type { ServiceModule } from '../types';
import { holidayRulesOf } from './holidayCalendar';

/**
 * Public holidays: GET /v1/ with `country` (a code of the service's list) and optional
 * `year`, `month`, `day`. Strict to rule 1 (a day needs month and year, a month needs a year);
 * a period without holidays answers 200 []. It emulates a paid plan: an absent year is the
 * current year, an absent month or day means the whole year or month.
 */

/** The service's country codes, as it publishes them: the sandbox keeps its own copy to check the node's. */
const CONTRACT_COUNTRIES = new Set(
	(
		'AF AL DZ AS AD AO AI AG AR AM AW AU AT AZ BH BD BB BY BE BZ BJ BM BT BO BA BW BR VG BN BG BF BI CV KH CM CA KY CF ' +
		'TD CL CN CO KM CG CD CK CR CI HR CU CW CY CZ DK DJ DM DO TL EC EG SV GQ ER EE SZ ET FK FO FJ FI FR GF PF GA GM GE ' +
		'DE GH GI GR GL GD GP GU GT GG GN GW GY HT HN HK HU IS IN ID IR IQ IE IM IL IT JM JP JE JO KZ KE KI XK KW KG LA LV ' +
		'LB LS LR LY LI LT LU MO MG MW MY MV ML MT MH MQ MR MU YT MX FM MD MC MN ME MS MA MZ MM NA NR NP NL NC NZ NI NE NG ' +
		'KP MK MP NO OM PK PW PA PG PY PE PH PL PT PR QA RE RO RW SH KN LC MF PM VC WS SM ST SA SN RS SC SL SG SX SK SI SB ' +
		'SO ZA KR SS ES LK BL SD SR SE CH SY TW TJ TZ TH TG TO TT TN TR TM TC TV UG UA AE GB US UY VI UZ VU VA VE VN WF YE ' +
		'ZM ZW'
	).split(' '),
);

const WEEK_DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const pad = (number: number) => String(number).padStart(2, '0');

/** A date part as the service reads it: digits only ("01" or "1"), within bounds. */
function part(text: string | undefined, pattern: RegExp, max: number): number | undefined | null {
	if (text === undefined) return undefined;
	if (!pattern.test(text)) return null;
	const number = Number(text);
	return number >= 1 && number <= max ? number : null;
}

export const holidays: ServiceModule = {
	name: 'holidays',
	keyFrom: ['query'],
	handle(request) {
		if (request.method !== 'GET' || request.path !== '/v1/') return badRequest('Use GET /v1/.');
		const { country, year: yearText, month: monthText, day: dayText } = request.query;
		if (!country) return badRequest('Parameter country is required.');
		if (!CONTRACT_COUNTRIES.has(country.toUpperCase()))
			return badRequest(`Unknown country code "${country}".`);
		if (dayText !== undefined && (monthText === undefined || yearText === undefined)) {
			return badRequest('Parameter day requires month and year.');
		}
		if (monthText !== undefined && yearText === undefined)
			return badRequest('Parameter month requires year.');

		const year =
			yearText === undefined ? new Date().getUTCFullYear() : part(yearText, /^\d{4}$/, 9999);
		const month = part(monthText, /^\d{1,2}$/, 12);
		const day = part(dayText, /^\d{1,2}$/, 31);
		if (year === null) return badRequest('Parameter year must have four digits.');
		if (month === null) return badRequest('Parameter month must be 1 to 12.');
		if (day === null) return badRequest('Parameter day must be 1 to 31.');

		const records = holidayRulesOf(country.toUpperCase())
			.map((rule) => ({ rule, on: rule.on(year as number) }))
			.filter(
				({ on }) =>
					(month === undefined || on[0] === month) && (day === undefined || on[1] === day),
			)
			.sort((a, b) => a.on[0] - b.on[0] || a.on[1] - b.on[1])
			.map(({ rule, on: [m, d] }) => {
				const fullYear = String(year).padStart(4, '0');
				const weekDay = WEEK_DAYS[new Date(Date.UTC(year as number, m - 1, d)).getUTCDay()];
				const type = rule.type ?? 'National';
				return {
					name: rule.name,
					name_local: rule.local?.[0] ?? '',
					language: rule.local?.[1] ?? '',
					description: type === 'National' ? longWeekend(weekDay) : '',
					country,
					location: rule.location ?? '',
					type,
					date: `${pad(m)}/${pad(d)}/${fullYear}`,
					date_year: fullYear,
					date_month: pad(m),
					date_day: pad(d),
					week_day: weekDay,
				};
			});
		return { status: 200, json: records };
	},
};

/** The long-weekend note the live service puts into `description`. */
function longWeekend(weekDay: string): string {
	if (weekDay === 'Friday') return 'Long weekend: Friday to Sunday.';
	if (weekDay === 'Monday') return 'Long weekend: Saturday to Monday.';
	return '';
}
