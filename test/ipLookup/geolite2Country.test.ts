import {
	compareGeoLite2,
	expectReadAsStored,
	expectSameAnswersAsMmdbLib,
	FAMILIES,
} from './geolite2';

/** GeoLite2-Country.mmdb, a MaxMind file of another schema, read as stored: what mmdb-lib reads (see geolite2.ts). */
describe('GeoLite2-Country.mmdb through the reader layer, against mmdb-lib', () => {
	const run = compareGeoLite2('GeoLite2-Country.mmdb', 767);

	test('read, not refused: its database_type, and none of the three Abstract kinds', () =>
		expectReadAsStored(run, 'GeoLite2-Country'));

	test.each(FAMILIES)('%s addresses: the same records, misses, prefixes and networks', (family) =>
		expectSameAnswersAsMmdbLib(run, family),
	);
});
