import { createHash } from 'crypto';
import { readFileSync } from 'fs';
import path from 'path';

import { useBinaryMode } from '../harness/run';
import { databaseFileOf, databaseFileName } from '../sandbox/ipDatabases/archives';
import { cacheStats as helperStats, lookUp } from '../nodes/ipLookupHelpers';
import { writeTestMmdb } from './mmdbTestWriter';

/**
 * Reuse across executions in one long-running n8n process (n8n-core's WorkflowExecute, filesystem
 * binary mode as n8n 2.x runs by default): the parse counter of the reader layer's cache, never
 * timing. A file is parsed once, whether its hash was computed while it was parsed (a size no
 * cached database has) or before (the next run); a file of another schema (MaxMind's
 * GeoLite2-Country) too; and new builds replace old ones, at most two per database kind or
 * metadata database_type, as the cache's stats say. (test/nodes/ipLookup.test.ts covers the same
 * for Abstract's own files in memory mode, the download node's SHA-256, and two runs at once.)
 */
beforeAll(async () => await useBinaryMode('filesystem'));

interface CacheStats {
	parses: number;
	hashedWhileParsed: number;
	cached: Array<{
		sha256: string;
		kind?: string;
		databaseType?: string;
		retainedBytes?: number;
		fileBytes?: number;
	}>;
	retainedBytes: number;
}

/** The cache's stats, from the module n8n loaded (the helper's accessor, with the fields the reader layer adds). */
const cacheStats = () => helperStats() as unknown as CacheStats;

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

describe('the parsed database is reused across executions (filesystem binary mode)', () => {
	it.each(['mmdb', 'csv'] as const)(
		'(%s) the first run parses once, hashing while it parses; the next two find it by its hash',
		async (format) => {
			const database = {
				bytes: databaseFileOf('ip-asn', format, 7),
				fileName: databaseFileName('ip-asn', format),
			};
			const before = cacheStats();
			const answers = [];
			for (let run = 0; run < 3; run++) {
				const result = await lookUp({
					file: database,
					ips: ['8.8.8.8', '::ffff:1.1.1.1', '10.0.0.1'],
				});
				expect(result.error).toBeUndefined();
				answers.push(result.items.map((item) => item.json));
				expect(cacheStats().parses).toBe(before.parses + 1);
				// The first run's parse read the file once, hashing it as it went (no cached database had its size).
				expect(cacheStats().hashedWhileParsed).toBe(before.hashedWhileParsed + 1);
			}
			expect(answers[0].map((json) => json.asn)).toEqual(['15169', '13335', undefined]);
			expect(answers[1]).toEqual(answers[0]);
			expect(answers[2]).toEqual(answers[0]);
			const entry = cacheStats().cached.find((cached) => cached.sha256 === sha256(database.bytes));
			expect(entry).toMatchObject({
				kind: 'ip-asn',
				databaseType: format === 'mmdb' ? 'svc-ip-asn' : 'ip-asn',
				fileBytes: database.bytes.length,
			});
			if (format === 'mmdb') expect(entry?.retainedBytes).toBe(database.bytes.length); // the file's own bytes, nothing per node of its tree
		},
	);

	it('a file of another schema (GeoLite2-Country.mmdb): parsed once, its records as stored, its type in the stats', async () => {
		const bytes = readFileSync(
			path.join(__dirname, '..', '..', 'node_modules/geolite2/dbs/GeoLite2-Country.mmdb'),
		);
		const before = cacheStats().parses;
		const first = await lookUp({
			file: { bytes, fileName: 'GeoLite2-Country.mmdb' },
			ips: ['81.2.69.160'],
		});
		const second = await lookUp({
			file: { bytes, fileName: 'GeoLite2-Country.mmdb' },
			ips: ['81.2.69.160'],
		});
		expect(cacheStats().parses).toBe(before + 1);
		expect(second.items[0].json).toEqual(first.items[0].json);
		expect(first.items[0].json).toMatchObject({
			ip_address: '81.2.69.160',
			country: { iso_code: 'GB', names: { en: 'United Kingdom' } },
		});
		expect(cacheStats().cached.find((entry) => entry.sha256 === sha256(bytes))).toEqual({
			sha256: sha256(bytes),
			kind: undefined,
			databaseType: 'GeoLite2-Country',
			retainedBytes: bytes.length,
			fileBytes: bytes.length,
		});
	});

	it('files of other schemas are four at most, whatever their database_type: a source that names each file another is not kept for ever', async () => {
		const file = (type: number) =>
			writeTestMmdb([{ network: '1.0.0.0/8', record: { type: String(type) } }], {
				recordSize: 24,
				ipVersion: 4,
				metadata: { database_type: `Vendor-Type-${type}`, build_epoch: 1767571200 },
			}).file;
		const files = Array.from({ length: 10 }, (_, type) => file(type));
		const foreign = () =>
			cacheStats().cached.filter((entry) => entry.databaseType?.startsWith('Vendor-Type-'));
		for (const [type, bytes] of files.entries()) {
			const result = await lookUp({
				file: { bytes: Buffer.from(bytes), fileName: 'vendor.mmdb' },
				ips: ['1.2.3.4'],
			});
			expect(result.items[0].json.type).toBe(String(type));
			expect(foreign().length).toBe(Math.min(type + 1, 4));
			expect(foreign().map((entry) => entry.sha256)).toContain(sha256(bytes));
		}
		expect(
			foreign()
				.map((entry) => entry.databaseType)
				.sort(),
		).toEqual(['Vendor-Type-6', 'Vendor-Type-7', 'Vendor-Type-8', 'Vendor-Type-9']);
	});

	it('new builds replace old ones: at most two builds per database_type stay, and the stats hold no more than their bytes', async () => {
		const build = (version: number) =>
			writeTestMmdb(
				[
					{ network: '1.0.0.0/8', record: { build: String(version), city: 'Sydney' } },
					{ network: '2001:db8::/32', record: { build: String(version) } },
				],
				{
					recordSize: 24,
					ipVersion: 6,
					aliasIpv4: true,
					metadata: { database_type: 'Vendor-Geo-Test', build_epoch: 1767571200 + version },
				},
			).file;
		const builds = [1, 2, 3, 4, 5].map(build);
		const before = cacheStats().parses;
		for (const [index, bytes] of builds.entries()) {
			// Each build twice: the second run of a build does not parse it again.
			for (let run = 0; run < 2; run++) {
				const result = await lookUp({
					file: { bytes: Buffer.from(bytes), fileName: 'vendor.mmdb' },
					ips: ['1.2.3.4'],
				});
				expect(result.items[0].json).toEqual({
					ip_address: '1.2.3.4',
					network: '1.0.0.0/8',
					build: String(index + 1),
					city: 'Sydney',
				});
			}
			expect(cacheStats().parses).toBe(before + index + 1);
			const kept = cacheStats().cached.filter((entry) => entry.databaseType === 'Vendor-Geo-Test');
			expect(kept.length).toBe(Math.min(index + 1, 2));
			expect(kept.map((entry) => entry.sha256)).toContain(sha256(bytes));
		}
		const kept = cacheStats().cached.filter((entry) => entry.databaseType === 'Vendor-Geo-Test');
		expect(kept.map((entry) => entry.sha256).sort()).toEqual(
			[sha256(builds[3]), sha256(builds[4])].sort(),
		);
		expect(kept.reduce((sum, entry) => sum + (entry.retainedBytes ?? 0), 0)).toBe(
			builds[3].length + builds[4].length,
		);
		// The stats' total is the sum of what every cached database keeps.
		const stats = cacheStats();
		expect(stats.retainedBytes).toBe(
			stats.cached.reduce((sum, entry) => sum + (entry.retainedBytes ?? 0), 0),
		);
		// An old build given again is parsed again (it was let go), and answers as itself.
		const again = await lookUp({
			file: { bytes: Buffer.from(builds[0]), fileName: 'vendor.mmdb' },
			ips: ['1.2.3.4'],
		});
		expect(again.items[0].json.build).toBe('1');
		expect(cacheStats().parses).toBe(before + 6);
	});
});
