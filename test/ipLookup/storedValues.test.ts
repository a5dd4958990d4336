import { jsonRecord } from '../../dist/nodes/shared/ipDatabases/storedValues';
import { openMmdbDatabase } from '../../dist/nodes/shared/ipDatabases/mmdbDatabase';
import { parseIpAddress } from '../../dist/nodes/shared/values/ipAddress';
import { bytes, uint128, uint32, uint64, writeTestMmdb } from './mmdbTestWriter';

/**
 * A foreign MMDB's record as an item's JSON (storedValues.ts): what JSON can hold stays as stored,
 * what it cannot (64- and 128-bit integers, bytes) is written out, and nothing turns into the
 * object's prototype. Read through the reader layer from a file that holds every such type.
 */
describe('a record of a file of another schema, as JSON', () => {
	const file = writeTestMmdb(
		[
			{
				network: '1.0.0.0/8',
				record: {
					names: { en: 'Sydney', de: 'Sydney' },
					geoname_id: uint32(2147714),
					location: { latitude: -33.8688, longitude: 151.2093, accuracy_radius: uint32(20) },
					is_anycast: true,
					subdivisions: [{ iso_code: 'NSW' }],
					small64: uint64(42n),
					big64: uint64(18446744073709551615n),
					big128: uint128(1n << 100n),
					raw: bytes(Uint8Array.from([0, 15, 255])),
				},
			},
			{ network: '2.0.0.0/8', record: 'just a string' },
			{ network: '3.0.0.0/8', record: JSON.parse('{"__proto__": {"polluted": "yes"}}') },
		],
		{ recordSize: 24, ipVersion: 6, aliasIpv4: true, metadata: { database_type: 'Vendor-City' } },
	).file;
	const database = openMmdbDatabase(file);
	const lookup = (ip: string) => database.lookup(parseIpAddress(ip)!);

	test('the reader layer gives the record exactly as stored; jsonRecord writes out what JSON cannot hold', () => {
		expect(database.kind).toBeUndefined();
		expect(database.databaseType).toBe('Vendor-City');
		const found = lookup('1.2.3.4')!;
		expect(found.network).toBe('1.0.0.0/8');
		expect((found.record as Record<string, unknown>).big64).toBe(18446744073709551615n);
		const json = jsonRecord(found.record);
		expect(json).toEqual({
			names: { en: 'Sydney', de: 'Sydney' },
			geoname_id: 2147714,
			location: { latitude: -33.8688, longitude: 151.2093, accuracy_radius: 20 },
			is_anycast: true,
			subdivisions: [{ iso_code: 'NSW' }],
			small64: 42,
			big64: '18446744073709551615',
			big128: '1267650600228229401496703205376',
			raw: '000fff',
		});
		expect(JSON.parse(JSON.stringify(json))).toEqual(json);
	});

	test('a record that is not a map comes under "value"; a "__proto__" key stays data', () => {
		expect(jsonRecord(lookup('2.2.2.2')!.record)).toEqual({ value: 'just a string' });
		const json = jsonRecord(lookup('3.3.3.3')!.record);
		expect(Object.keys(json)).toEqual(['__proto__']);
		expect(Object.getPrototypeOf(json)).toBe(Object.prototype);
		expect((json as { polluted?: string }).polluted).toBeUndefined();
		expect(lookup('4.4.4.4')).toBeUndefined();
	});
});
