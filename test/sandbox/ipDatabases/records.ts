/**
 * The sandbox's three IP databases (ip-geolocation, ip-asn, ip-security): a handful of public networks each, IPv4 and
 * IPv6, every value a string, place names in English (some with commas, for the CSV's quoting).
 * Private, reserved and multicast ranges are absent, as Abstract's builds filter them out.
 */

export type DatabaseId = 'ip-geolocation' | 'ip-asn' | 'ip-security';
export type FormatId = 'mmdb' | 'csv';

export const DATABASES: DatabaseId[] = ['ip-geolocation', 'ip-asn', 'ip-security'];
export const FORMATS: FormatId[] = ['mmdb', 'csv'];

/** CSV column order per database, `network` first. */
export const COLUMNS: Record<DatabaseId, string[]> = {
	'ip-geolocation': [
		'network',
		'country',
		'country_code',
		'country_geoname_id',
		'country_is_eu',
		'continent',
		'continent_code',
		'continent_geoname_id',
		'region',
		'region_iso_code',
		'region_geoname_id',
		'city',
		'city_geoname_id',
		'postal_code',
		'latitude',
		'longitude',
		'timezone_name',
	],
	'ip-asn': ['network', 'asn', 'autonomous_system_organization', 'asn_country'],
	'ip-security': [
		'network',
		'is_vpn',
		'is_proxy',
		'is_tor',
		'is_hosting',
		'is_relay',
		'is_mobile',
		'is_abuse',
	],
};

export const SECURITY_FLAGS = COLUMNS['ip-security'].slice(1);

/** One network and its record; fields without a value are absent. */
export interface DatabaseRow {
	network: string;
	fields: Record<string, string>;
}

const NORTH_AMERICA = {
	continent: 'North America',
	continent_code: 'NA',
	continent_geoname_id: '6255149',
};
const EUROPE = { continent: 'Europe', continent_code: 'EU', continent_geoname_id: '6255148' };
const USA = {
	country: 'United States',
	country_code: 'US',
	country_geoname_id: '6252001',
	country_is_eu: 'False',
	...NORTH_AMERICA,
};

function geolocation(build: number): DatabaseRow[] {
	return [
		{
			network: '8.8.8.0/24',
			fields: {
				...USA,
				region: 'California',
				region_iso_code: 'US-CA',
				region_geoname_id: '5332921',
				city: 'Mountain View',
				city_geoname_id: '5375480',
				postal_code: '94043',
				latitude: '37.4056',
				longitude: '-122.0775',
				timezone_name: 'America/Los_Angeles',
			},
		},
		{
			network: '38.100.0.0/16',
			fields: {
				...USA,
				region: 'District of Columbia',
				region_iso_code: 'US-DC',
				region_geoname_id: '4138106',
				city: 'Washington, D.C.',
				city_geoname_id: '4140963',
				postal_code: '20001',
				latitude: '38.9072',
				longitude: '-77.0369',
				timezone_name: 'America/New_York',
			},
		},
		{
			network: '81.2.69.0/24',
			fields: {
				country: 'United Kingdom',
				country_code: 'GB',
				country_geoname_id: '2635167',
				country_is_eu: 'False',
				...EUROPE,
				region: 'England',
				region_iso_code: 'GB-ENG',
				region_geoname_id: '6269131',
				city: 'London',
				city_geoname_id: '2643743',
				postal_code: build >= 2 ? 'EC2V' : 'EC1A',
				latitude: '51.5142',
				longitude: '-0.0931',
				timezone_name: 'Europe/London',
			},
		},
		{
			network: '89.160.20.0/24',
			fields: {
				country: 'Sweden',
				country_code: 'SE',
				country_geoname_id: '2661886',
				country_is_eu: 'True',
				...EUROPE,
				region: 'Östergötland County',
				region_iso_code: 'SE-E',
				region_geoname_id: '2685867',
				city: 'Linköping',
				city_geoname_id: '2694762',
				postal_code: '582 13',
				latitude: '58.4109',
				longitude: '15.6216',
				timezone_name: 'Europe/Stockholm',
			},
		},
		{
			network: '211.234.0.0/16',
			fields: {
				country: 'Korea, Republic of',
				country_code: 'KR',
				country_geoname_id: '1835841',
				country_is_eu: 'False',
				continent: 'Asia',
				continent_code: 'AS',
				continent_geoname_id: '6255147',
				region: 'Seoul',
				region_iso_code: 'KR-11',
				region_geoname_id: '1835847',
				city: 'Seoul',
				city_geoname_id: '1835848',
				latitude: '37.5665',
				longitude: '126.9780',
				timezone_name: 'Asia/Seoul',
			},
		},
		{
			// Country level only: every finer field is optional in the databases.
			network: '2.16.0.0/13',
			fields: {
				country: 'France',
				country_code: 'FR',
				country_geoname_id: '3017382',
				country_is_eu: 'True',
				...EUROPE,
				latitude: '46.0000',
				longitude: '2.0000',
				timezone_name: 'Europe/Paris',
			},
		},
		{
			network: '190.185.112.0/20',
			fields: {
				country: 'Bonaire, Sint Eustatius and Saba',
				country_code: 'BQ',
				country_geoname_id: '7626844',
				country_is_eu: 'False',
				...NORTH_AMERICA,
				city: 'Kralendijk',
				city_geoname_id: '3513563',
				latitude: '12.1500',
				longitude: '-68.2667',
				timezone_name: 'America/Kralendijk',
			},
		},
		{
			network: '2001:4860::/32',
			fields: {
				...USA,
				region: 'California',
				region_iso_code: 'US-CA',
				region_geoname_id: '5332921',
				city: 'Mountain View',
				city_geoname_id: '5375480',
				postal_code: '94043',
				latitude: '37.4056',
				longitude: '-122.0775',
				timezone_name: 'America/Los_Angeles',
			},
		},
		{
			network: '2a02:26f0::/29',
			fields: {
				country: 'France',
				country_code: 'FR',
				country_geoname_id: '3017382',
				country_is_eu: 'True',
				...EUROPE,
				latitude: '46.0000',
				longitude: '2.0000',
				timezone_name: 'Europe/Paris',
			},
		},
	];
}

function asn(build: number): DatabaseRow[] {
	const row = (
		network: string,
		number: string,
		organization: string,
		country: string,
	): DatabaseRow => ({
		network,
		fields: { asn: number, autonomous_system_organization: organization, asn_country: country },
	});
	return [
		// Nested prefixes both ship; a lookup answers with the most specific.
		row('8.0.0.0/9', '3356', 'Level 3 Parent, LLC', 'US'),
		row('8.8.8.0/24', '15169', 'Google LLC', 'US'),
		row('1.1.1.0/24', '13335', 'Cloudflare, Inc.', 'US'),
		row(
			'81.2.69.0/24',
			'20712',
			build >= 2 ? 'Andrews & Arnold Ltd.' : 'Andrews & Arnold Ltd',
			'GB',
		),
		row('89.160.0.0/17', '29518', 'Bredband2 AB', 'SE'),
		row('211.234.0.0/16', '9644', 'SK Telecom', 'KR'),
		row('2001:4860::/32', '15169', 'Google LLC', 'US'),
		row('2400:cb00::/32', '13335', 'Cloudflare, Inc.', 'US'),
	];
}

function security(build: number): DatabaseRow[] {
	const row = (network: string, ...flags: string[]): DatabaseRow => ({
		network,
		fields: Object.fromEntries(
			SECURITY_FLAGS.map((flag) => [flag, flags.includes(flag) ? 'True' : 'False']),
		),
	});
	return [
		row('185.220.100.0/22', 'is_tor', 'is_abuse'),
		row('104.16.0.0/12', 'is_hosting'),
		// Nested inside the hosting range: its own flag plus the enclosing one's, as the security database ships them.
		row('104.16.132.0/24', 'is_hosting', 'is_proxy'),
		row('5.62.56.0/21', 'is_vpn'),
		row('172.224.0.0/12', 'is_relay'),
		row('174.192.0.0/10', ...(build >= 2 ? ['is_mobile', 'is_abuse'] : ['is_mobile'])),
		row('2a0b:f4c0::/29', 'is_tor'),
		row('2606:4700::/32', 'is_hosting'),
	];
}

/** The rows of a database as build `build` holds them (later builds change a record or two). */
export function rowsOf(database: DatabaseId, build: number): DatabaseRow[] {
	if (database === 'ip-geolocation') return geolocation(build);
	if (database === 'ip-asn') return asn(build);
	return security(build);
}

/** The MMDB record: string values only; a security flag appears only when it is True. */
export function mmdbRecord(database: DatabaseId, row: DatabaseRow): Record<string, string> {
	if (database !== 'ip-security') return { ...row.fields };
	return Object.fromEntries(Object.entries(row.fields).filter(([, value]) => value === 'True'));
}
