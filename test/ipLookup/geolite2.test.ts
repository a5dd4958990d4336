import { COUNT, compareGeoLite2, FAMILIES, type GeoLite2Run } from './geolite2';

/**
 * MaxMind's GeoLite2 files, each a schema of its own, read as stored through the reader layer and
 * compared with mmdb-lib address by address (geolite2.ts says which addresses). One file at a
 * time: each comparison is made before its tests and let go after them.
 */
const FILES = [
	['GeoLite2-City.mmdb', 'GeoLite2-City', 467],
	['GeoLite2-Country.mmdb', 'GeoLite2-Country', 767],
	['GeoLite2-ASN.mmdb', 'GeoLite2-ASN', 365],
] as const;

describe.each(FILES)(
	'%s through the reader layer, against mmdb-lib',
	(file, databaseType, seed) => {
		let run: GeoLite2Run | undefined;
		beforeAll(() => {
			run = compareGeoLite2(file, seed);
		});
		afterAll(() => {
			run = undefined;
		});

		test('read, not refused: its database_type, and none of the three Abstract kinds', () => {
			expect(run!.databaseType).toBe(databaseType);
			expect(run!.kind).toBeUndefined();
		});

		test.each(FAMILIES)(
			'%s addresses: the same records, misses, prefixes and networks',
			(family) => {
				const result = run![family];
				expect(result.mismatches).toEqual([]);
				expect(result.compared).toBe(result.hits + result.misses);
				if (family !== 'aliased') expect(result.compared).toBe(COUNT);
				// Both paths exercised: covered public addresses, and reserved or unallocated ones.
				expect(result.hits).toBeGreaterThan(result.compared / 10);
				expect(result.misses).toBeGreaterThan(family === 'aliased' ? 100 : 1000);
			},
		);
	},
);
