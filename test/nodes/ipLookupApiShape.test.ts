import {
	bareSubdivision,
	decimalOrText,
	integerOrText,
	likeTheApi,
} from '../../nodes/AbstractIpLookup/apiShape';
import { nodeReference } from '../../nodes/AbstractIpLookup/databaseChoice';
import { roleOf } from '../../nodes/AbstractIpLookup/databaseRoles';
import {
	geoip2Connection,
	geoip2Location,
	hasGeoip2Location,
} from '../../nodes/AbstractIpLookup/geoip2Shape';
import type { IpDatabase } from '../../nodes/shared/ipDatabases/lookupTypes';
import {
	kindOfCsvHeader,
	kindOfDatabaseType,
	recordFromCsv,
} from '../../nodes/shared/ipDatabases/databaseKinds';

/** The mapping of the databases' fields to the live API's shape: a pure function, tested directly. */
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
		expect(
			likeTheApi('ip-geolocation', '1.2.3.4', {
				country_is_eu: 'True',
				timezone_name: 'Europe/Paris',
				country_code: 'FR',
			}),
		).toMatchObject({
			ip_address: '1.2.3.4',
			country_is_eu: true,
			timezone: { name: 'Europe/Paris' },
			city: null,
		});
		expect(
			likeTheApi('ip-asn', '1.2.3.4', {
				asn: 'AS64500',
				autonomous_system_organization: 'Example',
				asn_country: 'US',
			}),
		).toEqual({
			ip_address: '1.2.3.4',
			connection: { autonomous_system_number: 64500, autonomous_system_organization: 'Example' },
		});
		expect(likeTheApi('ip-security', '1.2.3.4', { is_vpn: 'True' }).security).toMatchObject({
			is_vpn: true,
			is_tor: false,
		});
	});
});

describe('database kinds', () => {
	it('come from the MMDB database_type or the CSV header', () => {
		expect(kindOfDatabaseType('svc-ip-asn')).toBe('ip-asn');
		expect(kindOfDatabaseType('Abstract_IP_Security')).toBe('ip-security');
		expect(kindOfDatabaseType('GeoLite2-City')).toBeUndefined();
		expect(
			kindOfCsvHeader(['network', 'asn', 'autonomous_system_organization', 'asn_country']).kind,
		).toBe('ip-asn');
		expect(
			kindOfCsvHeader(['network', 'asn', 'autonomous_system_organization', 'asn_country', 'extra'])
				.problem,
		).toContain('"extra"');
		expect(kindOfCsvHeader(['ip', 'asn']).problem).toContain('not "network"');
	});

	it('CSV rows take the MMDB form: empty fields absent, False flags absent', () => {
		expect(
			recordFromCsv('ip-security', ['network', 'is_vpn', 'is_tor'], ['1.0.0.0/8', 'False', 'True']),
		).toEqual({ is_tor: 'True' });
		expect(
			recordFromCsv('ip-geolocation', ['network', 'city', 'country'], ['1.0.0.0/8', '', 'France']),
		).toEqual({ country: 'France' });
	});
});

describe('foreign MMDB layouts', () => {
	const foreign = (databaseType: string) =>
		roleOf({ kind: undefined, databaseType } as unknown as IpDatabase);

	it('are told by database_type: GeoIP2/GeoLite2/DB-IP City and Country are geolocation, ASN and ISP are ASN, others unknown', () => {
		for (const type of [
			'GeoLite2-City',
			'GeoIP2-Country',
			'GeoIP2-Enterprise',
			'DBIP-City-Lite',
			'DBIP-Country-Lite',
		]) {
			expect(foreign(type)).toEqual({
				role: 'geolocation',
				layout: 'geoip2-location',
				databaseType: type,
				key: 'geolocation',
			});
		}
		for (const type of ['GeoLite2-ASN', 'GeoIP2-ISP', 'DBIP-ASN-Lite'])
			expect(foreign(type)).toMatchObject({ role: 'asn', layout: 'geoip2-asn' });
		// repackaged files in flat layouts of their own keep lower-case names
		for (const type of [
			'ipinfo lite.mmdb',
			'GeoIP2-Anonymous-IP',
			'dbip-city-ipv4',
			'geolite2-city-ipv6',
			'City of London',
		]) {
			expect(foreign(type)).toEqual({ layout: 'unknown', databaseType: type, key: type });
		}
		// Abstract's files keep their kind, whatever their database_type says besides
		expect(
			roleOf({ kind: 'ip-asn', databaseType: 'svc-ip-asn' } as unknown as IpDatabase),
		).toMatchObject({ role: 'asn', layout: 'contract' });
	});

	it('GeoIP2 records map with nulls for what the record lacks; EU membership false unless stored, null without a country', () => {
		expect(
			geoip2Location({ country: { iso_code: 'US', names: { en: 'United States' } } }),
		).toMatchObject({
			country: 'United States',
			country_code: 'US',
			country_is_eu: false,
			city: null,
			region_iso_code: null,
			timezone: { name: null },
		});
		expect(
			geoip2Location({ country: { iso_code: 'FR', is_in_european_union: true } }).country_is_eu,
		).toBe(true);
		expect(geoip2Location({ continent: { code: 'AN' } })).toMatchObject({
			continent_code: 'AN',
			country_is_eu: null,
		});
		expect(hasGeoip2Location({ city: 'Berlin', country_code: 'DE' })).toBe(false);
		expect(hasGeoip2Location({ latitude: 1 })).toBe(false);
		expect(hasGeoip2Location({ country: { iso_code: 'DE' }, subdivisions: [] })).toBe(true);
		expect(geoip2Connection({ autonomous_system_number: 64500 })).toEqual({
			autonomous_system_number: 64500,
			autonomous_system_organization: null,
		});
	});
});

describe('Database Node references that n8n rewrites on rename', () => {
	it('give the node name without evaluating; a plain name is itself; other expressions are evaluated', () => {
		expect(nodeReference("={{ $('IP Database Download').first() }}")).toBe('IP Database Download');
		expect(nodeReference('={{ $("A \'quoted\' (x) $1.y").first() }}')).toBe("A 'quoted' (x) $1.y");
		expect(nodeReference('={{$node["Read"]}}')).toBe('Read');
		expect(nodeReference('Read Database File')).toBe('Read Database File');
		expect(nodeReference("={{ $('Read').last() }}")).toBeUndefined();
		expect(nodeReference("={{ $('Read').first().json.x }}")).toBeUndefined();
		expect(nodeReference('={{ $json.node }}')).toBeUndefined();
	});
});
