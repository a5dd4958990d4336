import { badRequest } from '../errorBody';
import type { ServiceModule } from '../types';
import { lookedUpValue } from './lookupParams';
import { seeded, type Seeded } from './seeded';

/**
 * Phone intelligence: GET with a query, POST form-encoded with `api_key`, or
 * POST with a Bearer header and a JSON body. The record is derived from the number: its calling
 * code (or the `country` given) picks the country, its area code the place, a hash the rest.
 */
export const phone: ServiceModule = {
	name: 'phone',
	keyFrom: ['bearer', 'form', 'query'],
	handle(request) {
		const found = lookedUpValue(request, 'phone');
		if ('reject' in found) return found.reject;
		const country = found.params.country?.trim();
		if (country && !/^[A-Za-z]{2}$/.test(country)) {
			return badRequest('Parameter country must be a two-letter ISO country code.', {
				parameter: 'country',
			});
		}
		return { status: 200, json: phoneRecord(found.value, country || undefined) };
	},
};

interface Carrier {
	name: string;
	mcc: number;
	mnc: number;
	smsDomain: string;
}

interface Place {
	region: string;
	city: string;
	timezone: string;
	/** National numbers starting with this belong to the place. */
	area: string;
}

interface NumberingPlan {
	code: string;
	name: string;
	callingCode: string;
	/** Lengths of a national significant number (without trunk 0). */
	lengths: [min: number, max: number];
	/** National numbers starting with these are mobile; without it the line type is drawn. */
	mobileStarts?: string[];
	nationalFormat(national: string): string;
	places: Place[];
	carriers: Carrier[];
}

const nanp = (national: string) =>
	`(${national.slice(0, 3)}) ${national.slice(3, 6)}-${national.slice(6)}`;

const PLANS: NumberingPlan[] = [
	{
		code: 'US',
		name: 'United States',
		callingCode: '1',
		lengths: [10, 10],
		nationalFormat: nanp,
		places: [
			{ region: 'California', city: 'San Francisco', timezone: 'America/Los_Angeles', area: '415' },
			{ region: 'New York', city: 'New York', timezone: 'America/New_York', area: '212' },
			{ region: 'Texas', city: 'Austin', timezone: 'America/Chicago', area: '512' },
			{ region: 'Illinois', city: 'Chicago', timezone: 'America/Chicago', area: '312' },
			{ region: 'Washington', city: 'Seattle', timezone: 'America/Los_Angeles', area: '206' },
		],
		carriers: [
			{ name: 'T-Mobile USA, Inc.', mcc: 310, mnc: 260, smsDomain: 'tmomail.net' },
			{ name: 'Verizon Wireless', mcc: 311, mnc: 480, smsDomain: 'vtext.com' },
			{ name: 'AT&T Mobility', mcc: 310, mnc: 410, smsDomain: 'txt.att.net' },
		],
	},
	{
		code: 'CA',
		name: 'Canada',
		callingCode: '1',
		lengths: [10, 10],
		nationalFormat: nanp,
		places: [
			{ region: 'Ontario', city: 'Toronto', timezone: 'America/Toronto', area: '416' },
			{ region: 'British Columbia', city: 'Vancouver', timezone: 'America/Vancouver', area: '604' },
			{ region: 'Quebec', city: 'Montreal', timezone: 'America/Toronto', area: '514' },
		],
		carriers: [
			{ name: 'Rogers Wireless', mcc: 302, mnc: 720, smsDomain: 'pcs.rogers.com' },
			{ name: 'Bell Mobility', mcc: 302, mnc: 610, smsDomain: 'txt.bell.ca' },
			{ name: 'TELUS Mobility', mcc: 302, mnc: 220, smsDomain: 'msg.telus.com' },
		],
	},
	{
		code: 'GB',
		name: 'United Kingdom',
		callingCode: '44',
		lengths: [10, 10],
		mobileStarts: ['7'],
		nationalFormat: (n) => `0${n.slice(0, 4)} ${n.slice(4)}`,
		places: [
			{ region: 'England', city: 'London', timezone: 'Europe/London', area: '20' },
			{ region: 'England', city: 'Manchester', timezone: 'Europe/London', area: '161' },
			{ region: 'Scotland', city: 'Edinburgh', timezone: 'Europe/London', area: '131' },
		],
		carriers: [
			{ name: 'EE Limited', mcc: 234, mnc: 30, smsDomain: 'mms.ee.co.uk' },
			{ name: 'Vodafone UK', mcc: 234, mnc: 15, smsDomain: 'vodafone.net' },
			{ name: 'O2 UK', mcc: 234, mnc: 10, smsDomain: 'o2imail.co.uk' },
		],
	},
	{
		code: 'DE',
		name: 'Germany',
		callingCode: '49',
		lengths: [10, 11],
		mobileStarts: ['15', '16', '17'],
		nationalFormat: (n) => `0${n.slice(0, 3)} ${n.slice(3)}`,
		places: [
			{ region: 'Berlin', city: 'Berlin', timezone: 'Europe/Berlin', area: '30' },
			{ region: 'Bavaria', city: 'Munich', timezone: 'Europe/Berlin', area: '89' },
			{ region: 'Hamburg', city: 'Hamburg', timezone: 'Europe/Berlin', area: '40' },
		],
		carriers: [
			{ name: 'Telekom Deutschland GmbH', mcc: 262, mnc: 1, smsDomain: 't-mobile-sms.de' },
			{ name: 'Vodafone GmbH', mcc: 262, mnc: 2, smsDomain: 'vodafone-sms.de' },
			{ name: 'Telefonica Germany GmbH', mcc: 262, mnc: 3, smsDomain: 'o2online.de' },
		],
	},
	{
		code: 'FR',
		name: 'France',
		callingCode: '33',
		lengths: [9, 9],
		mobileStarts: ['6', '7'],
		nationalFormat: (n) => `0${n[0]} ${n.slice(1).replace(/(\d\d)(?=\d)/g, '$1 ')}`,
		places: [
			{ region: 'Ile-de-France', city: 'Paris', timezone: 'Europe/Paris', area: '1' },
			{ region: 'Auvergne-Rhone-Alpes', city: 'Lyon', timezone: 'Europe/Paris', area: '4' },
		],
		carriers: [
			{ name: 'Orange France', mcc: 208, mnc: 1, smsDomain: 'orange.fr' },
			{ name: 'SFR', mcc: 208, mnc: 10, smsDomain: 'sfr.fr' },
			{ name: 'Bouygues Telecom', mcc: 208, mnc: 20, smsDomain: 'mms.bouyguestelecom.fr' },
		],
	},
	{
		code: 'ES',
		name: 'Spain',
		callingCode: '34',
		lengths: [9, 9],
		mobileStarts: ['6', '7'],
		nationalFormat: (n) => `${n.slice(0, 3)} ${n.slice(3, 5)} ${n.slice(5, 7)} ${n.slice(7)}`,
		places: [
			{ region: 'Community of Madrid', city: 'Madrid', timezone: 'Europe/Madrid', area: '91' },
			{ region: 'Catalonia', city: 'Barcelona', timezone: 'Europe/Madrid', area: '93' },
		],
		carriers: [
			{ name: 'Telefonica Moviles Espana', mcc: 214, mnc: 7, smsDomain: 'movistar.es' },
			{ name: 'Vodafone Spain', mcc: 214, mnc: 1, smsDomain: 'vodafone.es' },
			{ name: 'Orange Espagne', mcc: 214, mnc: 3, smsDomain: 'orange.es' },
		],
	},
	{
		code: 'AU',
		name: 'Australia',
		callingCode: '61',
		lengths: [9, 9],
		mobileStarts: ['4'],
		nationalFormat: (n) => `0${n[0]} ${n.slice(1, 5)} ${n.slice(5)}`,
		places: [
			{ region: 'New South Wales', city: 'Sydney', timezone: 'Australia/Sydney', area: '2' },
			{ region: 'Victoria', city: 'Melbourne', timezone: 'Australia/Melbourne', area: '3' },
		],
		carriers: [
			{ name: 'Telstra', mcc: 505, mnc: 1, smsDomain: 'sms.telstra.com' },
			{ name: 'Optus', mcc: 505, mnc: 2, smsDomain: 'optusmobile.com.au' },
			{ name: 'Vodafone Australia', mcc: 505, mnc: 3, smsDomain: 'sms.vodafone.com.au' },
		],
	},
	{
		code: 'IN',
		name: 'India',
		callingCode: '91',
		lengths: [10, 10],
		mobileStarts: ['6', '7', '8', '9'],
		nationalFormat: (n) => `0${n.slice(0, 5)} ${n.slice(5)}`,
		places: [
			{ region: 'Maharashtra', city: 'Mumbai', timezone: 'Asia/Kolkata', area: '22' },
			{ region: 'Delhi', city: 'New Delhi', timezone: 'Asia/Kolkata', area: '11' },
			{ region: 'Karnataka', city: 'Bengaluru', timezone: 'Asia/Kolkata', area: '80' },
		],
		carriers: [
			{ name: 'Reliance Jio Infocomm', mcc: 405, mnc: 857, smsDomain: 'jio.com' },
			{ name: 'Bharti Airtel', mcc: 404, mnc: 10, smsDomain: 'airtelap.com' },
			{ name: 'Vodafone Idea', mcc: 404, mnc: 20, smsDomain: 'myvi.in' },
		],
	},
	{
		code: 'BR',
		name: 'Brazil',
		callingCode: '55',
		lengths: [10, 11],
		nationalFormat: (n) => `(${n.slice(0, 2)}) ${n.slice(2, n.length - 4)}-${n.slice(-4)}`,
		places: [
			{ region: 'Sao Paulo', city: 'Sao Paulo', timezone: 'America/Sao_Paulo', area: '11' },
			{
				region: 'Rio de Janeiro',
				city: 'Rio de Janeiro',
				timezone: 'America/Sao_Paulo',
				area: '21',
			},
		],
		carriers: [
			{ name: 'Vivo', mcc: 724, mnc: 6, smsDomain: 'torpedoemail.com.br' },
			{ name: 'Claro Brasil', mcc: 724, mnc: 5, smsDomain: 'clarotorpedo.com.br' },
			{ name: 'TIM Brasil', mcc: 724, mnc: 2, smsDomain: 'timbrasil.com.br' },
		],
	},
];

const US_TOLL_FREE = ['800', '833', '844', '855', '866', '877', '888'];

const BREACH_SOURCES: ReadonlyArray<{ domain: string; breach_date: string }> = [
	{ domain: 'facebook.com', breach_date: '2021-04-03' },
	{ domain: 'linkedin.com', breach_date: '2021-06-22' },
	{ domain: 'twitter.com', breach_date: '2022-07-21' },
	{ domain: 't-mobile.com', breach_date: '2021-08-16' },
	{ domain: 'att.com', breach_date: '2024-03-30' },
	{ domain: 'mgmresorts.com', breach_date: '2019-07-10' },
	{ domain: 'ticketmaster.com', breach_date: '2024-05-20' },
	{ domain: 'truecaller.com', breach_date: '2019-05-06' },
];

const CONSUMERS = [
	'Jordan Miller',
	'Priya Sharma',
	'Lukas Becker',
	'Camille Dubois',
	'Sofia Garcia',
	'Liam Wilson',
	'Mei Tanaka',
];
const BUSINESSES = [
	'Bluebird Bakery LLC',
	'Northwind Traders',
	'Acme Logistics Inc.',
	'Harbor Dental Group',
	'Summit Legal Partners',
];

/** Which plan a number belongs to, and its national significant number. */
function locate(submitted: string, country?: string): { plan: NumberingPlan; national: string } {
	let digits = submitted.replace(/\D/g, '');
	const international = /^\s*(\+|00)/.test(submitted);
	if (/^\s*00/.test(submitted)) digits = digits.slice(2);
	const hinted = country ? PLANS.find((plan) => plan.code === country.toUpperCase()) : undefined;
	if (hinted) {
		const withCode =
			digits.startsWith(hinted.callingCode) && (international || digits.length > hinted.lengths[1]);
		// The service appends the country's calling code to a number written without it.
		return {
			plan: hinted,
			national: withCode ? digits.slice(hinted.callingCode.length) : digits.replace(/^0/, ''),
		};
	}
	const byCode = PLANS.filter((plan) => digits.startsWith(plan.callingCode)).sort(
		(a, b) => b.callingCode.length - a.callingCode.length,
	)[0];
	if (byCode && (international || digits.length > byCode.lengths[1])) {
		const national = digits.slice(byCode.callingCode.length);
		// +1 is shared: the area code tells Canada from the United States.
		const canada = PLANS.find((plan) => plan.code === 'CA')!;
		const plan =
			byCode.callingCode === '1' && canada.places.some((place) => national.startsWith(place.area))
				? canada
				: byCode;
		return { plan, national };
	}
	return { plan: PLANS[0], national: digits.replace(/^0/, '') };
}

function lineTypeOf(plan: NumberingPlan, national: string, random: Seeded): string {
	if (plan.callingCode === '1' && US_TOLL_FREE.some((start) => national.startsWith(start)))
		return 'toll_free';
	if (plan.mobileStarts?.some((start) => national.startsWith(start))) return 'mobile';
	if (plan.mobileStarts) return random.chance(0.8) ? 'landline' : 'voip';
	const draw = random.int(100);
	return draw < 60 ? 'mobile' : draw < 85 ? 'landline' : 'voip';
}

/** The phone analysis record for a submitted number (and the optional `country`). */
export function phoneRecord(submitted: string, country?: string) {
	const { plan, national } = locate(submitted, country);
	const random = seeded(`phone\n${plan.code}\n${national}`);
	const isValid = national.length >= plan.lengths[0] && national.length <= plan.lengths[1];
	const lineType = isValid ? lineTypeOf(plan, national, random) : 'unknown';
	const place =
		plan.places.find((candidate) => national.startsWith(candidate.area)) ??
		random.pick(plan.places);
	const carrier = random.pick(plan.carriers);
	const isDisposable = random.chance(lineType === 'voip' ? 0.4 : 0.03);
	const isAbuse = random.chance(0.1);
	const breaches = random
		.some(BREACH_SOURCES, random.between(1, 4))
		.sort((a, b) => a.breach_date.localeCompare(b.breach_date));
	const isBusiness = lineType === 'toll_free' || random.chance(0.3);
	return {
		phone_number: `${plan.callingCode}${national}`,
		phone_format: {
			international: `+${plan.callingCode}${national}`,
			national: plan.nationalFormat(national),
		},
		phone_carrier: {
			name: carrier.name,
			line_type: lineType,
			mcc: carrier.mcc,
			mnc: carrier.mnc,
		},
		phone_location: {
			country_name: plan.name,
			country_code: plan.code,
			country_prefix: `+${plan.callingCode}`,
			region: place.region,
			city: place.city,
			timezone: place.timezone,
		},
		phone_messaging: {
			sms_domain: carrier.smsDomain,
			sms_email: `${national}@${carrier.smsDomain}`,
		},
		phone_validation: {
			is_valid: isValid,
			line_status: !isValid ? 'invalid' : random.chance(0.9) ? 'active' : 'inactive',
			is_voip: lineType === 'voip',
			minimum_age: isValid ? random.between(30, 5200) : 0,
		},
		phone_registration: {
			name: isBusiness ? random.pick(BUSINESSES) : random.pick(CONSUMERS),
			type: isBusiness ? 'business' : 'consumer',
		},
		phone_risk: {
			risk_level:
				!isValid || isAbuse ? 'high' : isDisposable || lineType === 'voip' ? 'medium' : 'low',
			is_disposable: isDisposable,
			is_abuse_detected: isAbuse,
		},
		phone_breaches: {
			total_breaches: breaches.length,
			date_first_breached: breaches[0].breach_date,
			date_last_breached: breaches[breaches.length - 1].breach_date,
			breached_domains: breaches.map((breach) => ({ ...breach })),
		},
	};
}
