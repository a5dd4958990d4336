import { useBinaryMode } from '../harness/run';
import { databaseFileOf, databaseFileName } from '../sandbox/ipDatabases/archives';
import { cacheStats, lookUp } from './ipLookupHelpers';

/**
 * n8n 2.x keeps binary data on disk by default: the item holds a reference, and the node streams
 * the file from n8n's store (getBinaryStream) to hash it and to index a CSV, never as one string.
 */
beforeAll(async () => await useBinaryMode('filesystem'));

describe('IP Database Lookup in filesystem binary mode', () => {
	it.each(['mmdb', 'csv'] as const)(
		'(%s) streams the stored file, answers, and reuses the parse on the next run',
		async (format) => {
			const database = {
				bytes: databaseFileOf('ip-geolocation', format, 9),
				fileName: databaseFileName('ip-geolocation', format),
			};
			const before = cacheStats().parses;
			const first = await lookUp({
				file: database,
				ips: ['89.160.20.112', '2a02:26f0::1', '172.16.0.1'],
			});
			expect(first.error).toBeUndefined();
			expect(
				first.items.map((item) => [
					item.json.city ?? item.json.country_code,
					item.json.network,
					item.json.found,
				]),
			).toEqual([
				['Linköping', '89.160.20.0/24', undefined],
				['FR', '2a02:26f0::/29', undefined],
				[undefined, undefined, false],
			]);
			const second = await lookUp({ file: database, ips: ['89.160.20.112'] });
			expect(second.items[0].json.city).toBe('Linköping');
			expect(cacheStats().parses).toBe(before + 1);
		},
	);
});
