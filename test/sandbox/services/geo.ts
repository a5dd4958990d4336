import { isIP } from 'net';

import { badRequest, errorResponse } from '../errorBody';
import type { ServiceModule } from '../types';
import { SANDBOX_TODAY, seeded } from './seeded';
import { onlyFields } from './onlyFields';

/**
 * IP geolocation. Documentation and private ranges have no location data
 * (204, no body); any other address gets a full record, a hash of the address choosing among a
 * few real places and their networks. Without `ip_address` the caller is located: the sandbox
 * listens on loopback, so the caller is 127.0.0.1.
 */
export const CALLER_ADDRESS = '127.0.0.1';

export const geo: ServiceModule = {
	name: 'geo',
	keyFrom: ['query'],
	handle(request) {
		if (request.path !== '/v1/')
			return errorResponse(404, `No endpoint ${request.path}; use /v1/.`, 'not_found');
		if (request.method !== 'GET') return badRequest('Use GET /v1/.');
		const submitted = request.query.ip_address?.trim();
		const address = submitted || CALLER_ADDRESS;
		if (!isIP(address))
			return badRequest(`Parameter ip_address is not a valid IPv4 or IPv6 address.`, {
				parameter: 'ip_address',
			});
		if (hasNoLocationData(address)) return { status: 204 };
		return onlyFields(geoRecord(address), request.query.fields);
	},
};

/** Reserved ranges (RFC 5737 documentation, RFC 1918 private, RFC 3849, unique local, link local). */
export function hasNoLocationData(address: string): boolean {
	const v6 = address.toLowerCase();
	if (isIP(address) === 6)
		return (
			/^2001:0?db8:/.test(v6) || /^f[cd][\da-f]{0,2}:/.test(v6) || /^fe[89ab][\da-f]?:/.test(v6)
		);
	const [a, b, c] = address.split('.').map(Number);
	return (
		a === 0 ||
		a === 10 ||
		(a === 172 && b >= 16 && b <= 31) ||
		(a === 192 && b === 168) ||
		(a === 192 && b === 0 && c === 2) ||
		(a === 198 && b === 51 && c === 100) ||
		(a === 203 && b === 0 && c === 113)
	);
}

interface Network {
	asn: number;
	organization: string;
	type: 'Dialup' | 'Cable/DSL' | 'Cellular' | 'Corporate';
	isp: string;
}

interface Place {
	city: [name: string, geonameId: number];
	region: [name: string, isoCode: string, geonameId: number];
	postalCode: string;
	country: [name: string, code: string, geonameId: number, isEu: boolean];
	continent: [name: string, code: string, geonameId: number];
	longitude: number;
	latitude: number;
	timezone: [name: string, abbreviation: string, gmtOffset: number, isDst: boolean];
	currency: [name: string, code: string];
	networks: Network[];
}

const NORTH_AMERICA: Place['continent'] = ['North America', 'NA', 6255149];
const EUROPE: Place['continent'] = ['Europe', 'EU', 6255148];
const ASIA: Place['continent'] = ['Asia', 'AS', 6255147];
const US: Place['country'] = ['United States', 'US', 6252001, false];
const USD: Place['currency'] = ['United States Dollar', 'USD'];
const EUR: Place['currency'] = ['Euro', 'EUR'];

const GOOGLE: Network = {
	asn: 15169,
	organization: 'Google LLC',
	type: 'Corporate',
	isp: 'Google LLC',
};

const PLACES: Place[] = [
	{
		city: ['Mountain View', 5375480],
		region: ['California', 'CA', 5332921],
		postalCode: '94043',
		country: US,
		continent: NORTH_AMERICA,
		longitude: -122.0838,
		latitude: 37.386,
		timezone: ['America/Los_Angeles', 'PST', -8, false],
		currency: USD,
		networks: [GOOGLE],
	},
	{
		city: ['New York', 5128581],
		region: ['New York', 'NY', 5128638],
		postalCode: '10001',
		country: US,
		continent: NORTH_AMERICA,
		longitude: -74.006,
		latitude: 40.7128,
		timezone: ['America/New_York', 'EST', -5, false],
		currency: USD,
		networks: [
			{
				asn: 7922,
				organization: 'Comcast Cable Communications, LLC',
				type: 'Cable/DSL',
				isp: 'Comcast Cable',
			},
			{ asn: 21928, organization: 'T-Mobile USA, Inc.', type: 'Cellular', isp: 'T-Mobile USA' },
		],
	},
	{
		city: ['Toronto', 6167865],
		region: ['Ontario', 'ON', 6093943],
		postalCode: 'M5H',
		country: ['Canada', 'CA', 6251999, false],
		continent: NORTH_AMERICA,
		longitude: -79.4163,
		latitude: 43.7001,
		timezone: ['America/Toronto', 'EST', -5, false],
		currency: ['Canadian Dollar', 'CAD'],
		networks: [
			{
				asn: 812,
				organization: 'Rogers Communications Canada Inc.',
				type: 'Cable/DSL',
				isp: 'Rogers Communications',
			},
			{ asn: 577, organization: 'Bell Canada', type: 'Cable/DSL', isp: 'Bell Canada' },
		],
	},
	{
		city: ['Frankfurt am Main', 2925533],
		region: ['Hesse', 'HE', 2905330],
		postalCode: '60311',
		country: ['Germany', 'DE', 2921044, true],
		continent: EUROPE,
		longitude: 8.6821,
		latitude: 50.1109,
		timezone: ['Europe/Berlin', 'CET', 1, false],
		currency: EUR,
		networks: [
			{
				asn: 3320,
				organization: 'Deutsche Telekom AG',
				type: 'Cable/DSL',
				isp: 'Deutsche Telekom AG',
			},
			{
				asn: 24940,
				organization: 'Hetzner Online GmbH',
				type: 'Corporate',
				isp: 'Hetzner Online GmbH',
			},
		],
	},
	{
		city: ['London', 2643743],
		region: ['England', 'ENG', 6269131],
		postalCode: 'EC1A',
		country: ['United Kingdom', 'GB', 2635167, false],
		continent: EUROPE,
		longitude: -0.1257,
		latitude: 51.5085,
		timezone: ['Europe/London', 'GMT', 0, false],
		currency: ['British Pound Sterling', 'GBP'],
		networks: [
			{ asn: 2856, organization: 'British Telecommunications PLC', type: 'Cable/DSL', isp: 'BT' },
			{ asn: 5378, organization: 'Vodafone Limited', type: 'Cellular', isp: 'Vodafone UK' },
		],
	},
	{
		city: ['Paris', 2988507],
		region: ['Ile-de-France', 'IDF', 3012874],
		postalCode: '75001',
		country: ['France', 'FR', 3017382, true],
		continent: EUROPE,
		longitude: 2.3488,
		latitude: 48.8534,
		timezone: ['Europe/Paris', 'CET', 1, false],
		currency: EUR,
		networks: [
			{ asn: 3215, organization: 'Orange S.A.', type: 'Cable/DSL', isp: 'Orange' },
			{ asn: 16276, organization: 'OVH SAS', type: 'Corporate', isp: 'OVH SAS' },
		],
	},
	{
		city: ['Tokyo', 1850147],
		region: ['Tokyo', '13', 1850144],
		postalCode: '100-0001',
		country: ['Japan', 'JP', 1861060, false],
		continent: ASIA,
		longitude: 139.6917,
		latitude: 35.6895,
		timezone: ['Asia/Tokyo', 'JST', 9, false],
		currency: ['Japanese Yen', 'JPY'],
		networks: [
			{
				asn: 4713,
				organization: 'NTT Communications Corporation',
				type: 'Cable/DSL',
				isp: 'NTT Communications',
			},
			{ asn: 17676, organization: 'SoftBank Corp.', type: 'Cellular', isp: 'SoftBank' },
		],
	},
	{
		city: ['Mumbai', 1275339],
		region: ['Maharashtra', 'MH', 1264418],
		postalCode: '400001',
		country: ['India', 'IN', 1269750, false],
		continent: ASIA,
		longitude: 72.8826,
		latitude: 19.0728,
		timezone: ['Asia/Kolkata', 'IST', 5.5, false],
		currency: ['Indian Rupee', 'INR'],
		networks: [
			{
				asn: 55836,
				organization: 'Reliance Jio Infocomm Limited',
				type: 'Cellular',
				isp: 'Reliance Jio',
			},
			{ asn: 9498, organization: 'Bharti Airtel Ltd.', type: 'Cable/DSL', isp: 'Bharti Airtel' },
		],
	},
	{
		city: ['Sao Paulo', 3448439],
		region: ['Sao Paulo', 'SP', 3448433],
		postalCode: '01000-000',
		country: ['Brazil', 'BR', 3469034, false],
		continent: ['South America', 'SA', 6255150],
		longitude: -46.6361,
		latitude: -23.5475,
		timezone: ['America/Sao_Paulo', '-03', -3, false],
		currency: ['Brazilian Real', 'BRL'],
		networks: [
			{
				asn: 28573,
				organization: 'Claro NXT Telecomunicacoes Ltda',
				type: 'Cable/DSL',
				isp: 'Claro',
			},
			{ asn: 26615, organization: 'TIM S/A', type: 'Cellular', isp: 'TIM Brasil' },
		],
	},
	{
		city: ['Sydney', 2147714],
		region: ['New South Wales', 'NSW', 2155400],
		postalCode: '2000',
		country: ['Australia', 'AU', 2077456, false],
		continent: ['Oceania', 'OC', 6255151],
		longitude: 151.2073,
		latitude: -33.8678,
		// The sandbox's today is in November: Sydney keeps daylight saving time then.
		timezone: ['Australia/Sydney', 'AEDT', 11, true],
		currency: ['Australian Dollar', 'AUD'],
		networks: [
			{ asn: 1221, organization: 'Telstra Limited', type: 'Cable/DSL', isp: 'Telstra' },
			{ asn: 4804, organization: 'Optus Internet', type: 'Cellular', isp: 'Optus' },
		],
	},
];

/** Google's public resolvers are where they are; other addresses are spread over the places. */
function placeOf(address: string, pick: <T>(items: readonly T[]) => T): Place {
	if (/^8\.8\.[48]\.[48]$/.test(address) || /^2001:4860:4860:/i.test(address)) return PLACES[0];
	return pick(PLACES.slice(1));
}

function localTime(gmtOffset: number): string {
	return new Date(SANDBOX_TODAY + gmtOffset * 3_600_000).toISOString().slice(11, 19);
}

/** The geolocation record for an address with location data. */
export function geoRecord(address: string) {
	const random = seeded(`geo\n${address.toLowerCase()}`);
	const place = placeOf(address, random.pick);
	const network = random.pick(place.networks);
	const [countryName, countryCode, countryGeonameId, isEu] = place.country;
	const flagPoints = [...countryCode].map((letter) => 0x1f1e6 + letter.charCodeAt(0) - 65);
	return {
		ip_address: address,
		city: place.city[0],
		city_geoname_id: place.city[1],
		region: place.region[0],
		region_iso_code: place.region[1],
		region_geoname_id: place.region[2],
		postal_code: place.postalCode,
		country: countryName,
		country_code: countryCode,
		country_geoname_id: countryGeonameId,
		country_is_eu: isEu,
		continent: place.continent[0],
		continent_code: place.continent[1],
		continent_geoname_id: place.continent[2],
		longitude: place.longitude,
		latitude: place.latitude,
		security: { is_vpn: network.type === 'Corporate' ? random.chance(0.5) : random.chance(0.05) },
		timezone: {
			name: place.timezone[0],
			abbreviation: place.timezone[1],
			gmt_offset: place.timezone[2],
			current_time: localTime(place.timezone[2]),
			is_dst: place.timezone[3],
		},
		flag: {
			emoji: String.fromCodePoint(...flagPoints),
			unicode: flagPoints.map((point) => `U+${point.toString(16).toUpperCase()}`).join(' '),
			png: `https://static.abstractapi.com/country-flags/${countryCode}_flag.png`,
			svg: `https://static.abstractapi.com/country-flags/${countryCode}_flag.svg`,
		},
		currency: { currency_name: place.currency[0], currency_code: place.currency[1] },
		connection: {
			autonomous_system_number: network.asn,
			autonomous_system_organization: network.organization,
			connection_type: network.type,
			isp_name: network.isp,
			organization_name: network.organization,
		},
	};
}
