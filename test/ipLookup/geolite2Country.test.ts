import { COUNT, compareGeoLite2 } from './geolite2';

/** GeoLite2-Country.mmdb, a MaxMind file of another schema, read as stored: what mmdb-lib reads (see geolite2.ts). */
describe('GeoLite2-Country.mmdb through the reader layer, against mmdb-lib', () => {
	const run = compareGeoLite2('GeoLite2-Country.mmdb', 767);

	test('read, not refused: its database_type, and no contract kind', () => {
		expect(run.databaseType).toBe('GeoLite2-Country');
		expect(run.kind).toBeUndefined();
	});

	test.each(['ipv4', 'ipv6', 'aliased'] as const)('%s addresses: the same records, misses, prefixes and networks', (family) => {
		const result = run[family];
		expect(result.mismatches).toEqual([]);
		expect(result.compared).toBe(result.hits + result.misses);
		if (family !== 'aliased') expect(result.compared).toBe(COUNT);
		// Both paths exercised: covered public addresses, and reserved or unallocated ones.
		expect(result.hits).toBeGreaterThan(result.compared / 10);
		expect(result.misses).toBeGreaterThan(family === 'aliased' ? 100 : 1000);
	});
});
