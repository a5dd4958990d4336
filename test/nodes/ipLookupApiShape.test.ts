import { bareSubdivision, decimalOrText, integerOrText, likeTheApi } from '../../nodes/AbstractIpLookup/apiShape';
import { kindOfCsvHeader, kindOfDatabaseType, recordFromCsv } from '../../nodes/shared/ipDatabases/databaseKinds';

/** The mapping of contract 2.11 to the live API's shape (2.3): a pure function, tested directly. */
describe('database record to the API shape', () => {
	it('converts numbers and booleans where the API has them, and keeps text that is not a number', () => {
		expect(integerOrText('5375480')).toBe(5375480);
		expect(integerOrText('n/a')).toBe('n/a');
		expect(integerOrText(undefined)).toBeNull();
		expect(decimalOrText('-122.0775')).toBe(-122.0775);
		expect(decimalOrText('1e3')).toBe(1000);
		expect(decimalOrText('12,5')).toBe('12,5');
	});

	it('strips the country prefix of the region code only', () => {
		expect(bareSubdivision('US-CA', 'US')).toBe('CA');
		expect(bareSubdivision('GB-ENG', 'GB')).toBe('ENG');
		expect(bareSubdivision('CA', 'US')).toBe('CA');
		expect(bareSubdivision(undefined, 'US')).toBeNull();
	});

	it('names fields as the API does: timezone.name, country_is_eu boolean, asn as connection.*', () => {
		expect(likeTheApi('ip-geolocation', '1.2.3.4', { country_is_eu: 'True', timezone_name: 'Europe/Paris', country_code: 'FR' })).toMatchObject({
			ip_address: '1.2.3.4',
			country_is_eu: true,
			timezone: { name: 'Europe/Paris' },
			city: null,
		});
		expect(likeTheApi('ip-asn', '1.2.3.4', { asn: 'AS64500', autonomous_system_organization: 'Example', asn_country: 'US' })).toEqual({
			ip_address: '1.2.3.4',
			connection: { autonomous_system_number: 64500, autonomous_system_organization: 'Example' },
		});
		expect(likeTheApi('ip-security', '1.2.3.4', { is_vpn: 'True' }).security).toMatchObject({ is_vpn: true, is_tor: false });
	});
});

describe('database kinds', () => {
	it('come from the MMDB database_type or the CSV header', () => {
		expect(kindOfDatabaseType('svc-ip-asn')).toBe('ip-asn');
		expect(kindOfDatabaseType('Abstract_IP_Security')).toBe('ip-security');
		expect(kindOfDatabaseType('GeoLite2-City')).toBeUndefined();
		expect(kindOfCsvHeader(['network', 'asn', 'autonomous_system_organization', 'asn_country']).kind).toBe('ip-asn');
		expect(kindOfCsvHeader(['network', 'asn', 'autonomous_system_organization', 'asn_country', 'extra']).problem).toContain('"extra"');
		expect(kindOfCsvHeader(['ip', 'asn']).problem).toContain('not "network"');
	});

	it('CSV rows take the MMDB form: empty fields absent, False flags absent', () => {
		expect(recordFromCsv('ip-security', ['network', 'is_vpn', 'is_tor'], ['1.0.0.0/8', 'False', 'True'])).toEqual({ is_tor: 'True' });
		expect(recordFromCsv('ip-geolocation', ['network', 'city', 'country'], ['1.0.0.0/8', '', 'France'])).toEqual({ country: 'France' });
	});
});
