/**
 * Holiday calendars for the holidays sandbox, computed for any year: fixed dates, weekday rules
 * (fourth Thursday of November) and Easter-based feasts. US, DE, FR and GB are close to complete;
 * a set of other countries have their national day; every country has New Year's Day.
 */

export interface HolidayRule {
	name: string;
	/** Local name and its language; both empty when the name is already the local one (English). */
	local?: [name: string, language: string];
	type?: 'National' | 'Observance';
	location?: string;
	/** Month (1-12) and day of the holiday in a year. */
	on(year: number): [month: number, day: number];
}

const fixed = (month: number, day: number) => () => [month, day] as [number, number];

/** The n-th weekday (0 Sunday ... 6 Saturday) of a month; n = -1 is the last one. */
const nthWeekday =
	(month: number, weekday: number, n: number) =>
	(year: number): [number, number] => {
		if (n > 0) {
			const first = new Date(Date.UTC(year, month - 1, 1)).getUTCDay();
			return [month, 1 + ((weekday - first + 7) % 7) + (n - 1) * 7];
		}
		const lastDay = new Date(Date.UTC(year, month, 0));
		return [month, lastDay.getUTCDate() - ((lastDay.getUTCDay() - weekday + 7) % 7)];
	};

/** Western Easter Sunday (anonymous Gregorian algorithm), shifted by `offset` days. */
const easter =
	(offset: number) =>
	(year: number): [number, number] => {
		const a = year % 19;
		const b = Math.floor(year / 100);
		const c = year % 100;
		const d = Math.floor(b / 4);
		const e = b % 4;
		const f = Math.floor((b + 8) / 25);
		const g = Math.floor((b - f + 1) / 3);
		const h = (19 * a + b - d - g + 15) % 30;
		const i = Math.floor(c / 4);
		const k = c % 4;
		const l = (32 + 2 * e + 2 * i - h - k) % 7;
		const m = Math.floor((a + 11 * h + 22 * l) / 451);
		const month = Math.floor((h + l - 7 * m + 114) / 31);
		const day = ((h + l - 7 * m + 114) % 31) + 1;
		const date = new Date(Date.UTC(year, month - 1, day + offset));
		return [date.getUTCMonth() + 1, date.getUTCDate()];
	};

const MONDAY = 1;
const THURSDAY = 4;

const NEW_YEAR: HolidayRule = { name: "New Year's Day", on: fixed(1, 1) };

const CALENDARS: Record<string, HolidayRule[]> = {
	US: [
		NEW_YEAR,
		{ name: 'Martin Luther King Jr. Day', on: nthWeekday(1, MONDAY, 3) },
		{ name: "Valentine's Day", type: 'Observance', on: fixed(2, 14) },
		{ name: "Presidents' Day", on: nthWeekday(2, MONDAY, 3) },
		{ name: 'Memorial Day', on: nthWeekday(5, MONDAY, -1) },
		{ name: 'Juneteenth', on: fixed(6, 19) },
		{ name: 'Independence Day', on: fixed(7, 4) },
		{ name: 'Labor Day', on: nthWeekday(9, MONDAY, 1) },
		{ name: 'Columbus Day', on: nthWeekday(10, MONDAY, 2) },
		{ name: 'Halloween', type: 'Observance', on: fixed(10, 31) },
		{ name: 'Veterans Day', on: fixed(11, 11) },
		{ name: 'Thanksgiving Day', on: nthWeekday(11, THURSDAY, 4) },
		{ name: 'Christmas Day', on: fixed(12, 25) },
	],
	DE: [
		{ name: "New Year's Day", local: ['Neujahr', 'German'], on: fixed(1, 1) },
		{
			name: 'Epiphany',
			local: ['Heilige Drei Könige', 'German'],
			location: 'Baden-Württemberg, Bavaria, Saxony-Anhalt',
			on: fixed(1, 6),
		},
		{ name: 'Good Friday', local: ['Karfreitag', 'German'], on: easter(-2) },
		{ name: 'Easter Monday', local: ['Ostermontag', 'German'], on: easter(1) },
		{ name: 'Labour Day', local: ['Tag der Arbeit', 'German'], on: fixed(5, 1) },
		{ name: 'Ascension Day', local: ['Christi Himmelfahrt', 'German'], on: easter(39) },
		{ name: 'Whit Monday', local: ['Pfingstmontag', 'German'], on: easter(50) },
		{
			name: 'Day of German Unity',
			local: ['Tag der Deutschen Einheit', 'German'],
			on: fixed(10, 3),
		},
		{ name: 'Christmas Day', local: ['1. Weihnachtstag', 'German'], on: fixed(12, 25) },
		{ name: 'Boxing Day', local: ['2. Weihnachtstag', 'German'], on: fixed(12, 26) },
	],
	FR: [
		{ name: "New Year's Day", local: ["Jour de l'an", 'French'], on: fixed(1, 1) },
		{ name: 'Easter Monday', local: ['Lundi de Pâques', 'French'], on: easter(1) },
		{ name: 'Labour Day', local: ['Fête du Travail', 'French'], on: fixed(5, 1) },
		{ name: 'Victory in Europe Day', local: ['Victoire 1945', 'French'], on: fixed(5, 8) },
		{ name: 'Ascension Day', local: ['Ascension', 'French'], on: easter(39) },
		{ name: 'Whit Monday', local: ['Lundi de Pentecôte', 'French'], on: easter(50) },
		{ name: 'Bastille Day', local: ['Fête nationale', 'French'], on: fixed(7, 14) },
		{ name: 'Assumption Day', local: ['Assomption', 'French'], on: fixed(8, 15) },
		{ name: "All Saints' Day", local: ['Toussaint', 'French'], on: fixed(11, 1) },
		{ name: 'Armistice Day', local: ['Armistice 1918', 'French'], on: fixed(11, 11) },
		{ name: 'Christmas Day', local: ['Noël', 'French'], on: fixed(12, 25) },
	],
	GB: [
		NEW_YEAR,
		{ name: "St. Patrick's Day", location: 'Northern Ireland', on: fixed(3, 17) },
		{ name: 'Good Friday', on: easter(-2) },
		{ name: 'Easter Monday', location: 'England, Wales, Northern Ireland', on: easter(1) },
		{ name: 'Early May Bank Holiday', on: nthWeekday(5, MONDAY, 1) },
		{ name: 'Spring Bank Holiday', on: nthWeekday(5, MONDAY, -1) },
		{
			name: 'Summer Bank Holiday',
			location: 'England, Wales, Northern Ireland',
			on: nthWeekday(8, MONDAY, -1),
		},
		{ name: "St. Andrew's Day", location: 'Scotland', on: fixed(11, 30) },
		{ name: 'Christmas Day', on: fixed(12, 25) },
		{ name: 'Boxing Day', on: fixed(12, 26) },
	],
};

/** National days of further countries: [code, month, day, English name, local name, language]. */
const NATIONAL_DAYS: ReadonlyArray<[string, number, number, string, string, string]> = [
	['AT', 10, 26, 'National Day', 'Nationalfeiertag', 'German'],
	['AU', 1, 26, 'Australia Day', '', ''],
	['BE', 7, 21, 'Belgian National Day', 'Fête nationale', 'French'],
	['BR', 9, 7, 'Independence Day', 'Dia da Independência', 'Portuguese'],
	['CA', 7, 1, 'Canada Day', '', ''],
	['CH', 8, 1, 'Swiss National Day', 'Bundesfeier', 'German'],
	['CN', 10, 1, 'National Day', '国庆节', 'Chinese'],
	['ES', 10, 12, 'National Day of Spain', 'Fiesta Nacional de España', 'Spanish'],
	['IE', 3, 17, "St. Patrick's Day", 'Lá Fhéile Pádraig', 'Irish'],
	['IN', 8, 15, 'Independence Day', 'स्वतंत्रता दिवस', 'Hindi'],
	['IT', 6, 2, 'Republic Day', 'Festa della Repubblica', 'Italian'],
	['JP', 2, 11, 'National Foundation Day', '建国記念の日', 'Japanese'],
	['MX', 9, 16, 'Independence Day', 'Día de la Independencia', 'Spanish'],
	['NL', 4, 27, "King's Day", 'Koningsdag', 'Dutch'],
	['NO', 5, 17, 'Constitution Day', 'Grunnlovsdagen', 'Norwegian'],
	['PL', 11, 11, 'Independence Day', 'Narodowe Święto Niepodległości', 'Polish'],
	['PT', 6, 10, 'Portugal Day', 'Dia de Portugal', 'Portuguese'],
	['SE', 6, 6, 'National Day of Sweden', 'Sveriges nationaldag', 'Swedish'],
];

for (const [code, month, day, name, localName, language] of NATIONAL_DAYS) {
	CALENDARS[code] = [NEW_YEAR, { name, local: [localName, language], on: fixed(month, day) }];
}

/** The rules of a country (upper-case code): its calendar, or New Year's Day alone. */
export function holidayRulesOf(code: string): HolidayRule[] {
	return CALENDARS[code] ?? [NEW_YEAR];
}
