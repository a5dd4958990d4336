import { createHash } from 'crypto';

import { databaseFileOf, databaseFileName } from '../sandbox/ipDatabases/archives';
import { openMmdb } from '../sandbox/ipDatabases/mmdbReader';
import {
	DATABASES,
	mmdbRecord,
	rowsOf,
	type DatabaseId,
	type FormatId,
} from '../sandbox/ipDatabases/records';
import { cacheStats, covers, edgeAddresses, lookUp } from './ipLookupHelpers';

/**
 * The IP database lookup node through n8n-core, on the sandbox's builds of all three databases
 * in both formats: no credential, no request (no sandbox runs at all).
 */
const file = (database: DatabaseId, format: FormatId, build = 1) => ({
	bytes: databaseFileOf(database, format, build),
	fileName: databaseFileName(database, format),
	mimeType: format === 'csv' ? 'text/csv' : 'application/vnd.maxmind.maxmind-db',
});

/** The record a lookup must give: the innermost network of the build that covers the address. */
function expectedRecord(database: DatabaseId, build: number, address: string) {
	const covering = rowsOf(database, build)
		.filter((row) => covers(row.network, address))
		.sort((a, b) => Number(b.network.split('/')[1]) - Number(a.network.split('/')[1]));
	return covering[0] ? mmdbRecord(database, covering[0]) : undefined;
}

describe('IP Database Lookup: MMDB and CSV of one build answer alike', () => {
	it.each(DATABASES)(
		'%s: every network, and the addresses at its edges, give the same record and network from both formats',
		async (database) => {
			const addresses = rowsOf(database, 1).flatMap((row) => edgeAddresses(row.network));
			const mmdb = await lookUp({ file: file(database, 'mmdb'), ips: addresses });
			const csv = await lookUp({ file: file(database, 'csv'), ips: addresses });
			expect(mmdb.error).toBeUndefined();
			expect(csv.error).toBeUndefined();
			expect(mmdb.items).toHaveLength(addresses.length);
			expect(csv.items.map((item) => item.json)).toEqual(mmdb.items.map((item) => item.json));

			const reference = openMmdb(databaseFileOf(database, 'mmdb', 1));
			addresses.forEach((address, index) => {
				const { json, pairedItem } = mmdb.items[index];
				expect(pairedItem).toEqual({ item: index });
				const expected = expectedRecord(database, 1, address);
				expect(reference.lookup(address)).toEqual(expected);
				if (expected === undefined) {
					expect(json).toMatchObject({ ip_address: address, found: false });
				} else {
					const { ip_address, network, ...record } = json;
					expect(ip_address).toBe(address);
					expect(record).toEqual(expected);
					expect(covers(String(network), address)).toBe(true);
				}
			});
		},
	);

	it('reports the network a nested database answers for: the more specific row inside the wider one', async () => {
		const ips = ['8.8.8.8', '8.0.0.1', '104.16.132.7', '104.16.0.1'];
		for (const format of ['mmdb', 'csv'] as const) {
			const asn = await lookUp({ file: file('ip-asn', format), ips: ips.slice(0, 2) });
			expect(asn.items.map((item) => [item.json.network, item.json.asn])).toEqual([
				['8.8.8.0/24', '15169'],
				['8.0.0.0/13', '3356'],
			]);
			const security = await lookUp({ file: file('ip-security', format), ips: ips.slice(2) });
			expect(security.items.map((item) => item.json)).toEqual([
				{
					ip_address: '104.16.132.7',
					network: '104.16.132.0/24',
					is_hosting: 'True',
					is_proxy: 'True',
				},
				{ ip_address: '104.16.0.1', network: '104.16.0.0/17', is_hosting: 'True' },
			]);
		}
	});
});

describe('IP Database Lookup: database on each item (This Item)', () => {
	it('reads the file from each input item; items sharing one file share one parse', async () => {
		const database = file('ip-asn', 'csv', 8);
		const before = cacheStats().parses;
		const run = await lookUp({
			file: database,
			ips: ['8.8.8.8', '1.1.1.1', '10.0.0.1'],
			filePerItem: true,
			parameters: { databaseSource: 'thisItem', databaseNode: '' },
		});
		expect(run.error).toBeUndefined();
		expect(run.items.map((item) => [item.json.asn, item.json.found, item.binary])).toEqual([
			['15169', undefined, undefined],
			['13335', undefined, undefined],
			[undefined, false, undefined],
		]);
		expect(cacheStats().parses).toBe(before + 1);
	});

	it('an item without the file is an error naming the field, the item and what it has', async () => {
		const run = await lookUp({
			file: file('ip-asn', 'csv'),
			ips: ['8.8.8.8'],
			parameters: { databaseSource: 'thisItem' },
		});
		expect(run.error?.message).toBe(
			'Invalid Input Binary Field (binaryPropertyName): input item 1 has no binary field "data" (it has no binary data)',
		);
	});
});

describe('IP Database Lookup: CSV index rules', () => {
	const asnCsv = (lines: string[]) => ({
		bytes: Buffer.from(
			['\uFEFFnetwork,asn,autonomous_system_organization,asn_country', ...lines].join('\n') + '\n',
		),
	});

	it('three nested levels in any row order, a network listed twice (the last row wins), BOM and LF line ends', async () => {
		const run = await lookUp({
			file: asnCsv([
				'10.20.30.0/24,3,"Inner, Ltd",US',
				'10.0.0.0/8,1,Outer,US',
				'10.20.0.0/16,2,Middle,US',
				'10.20.0.0/16,22,Middle again,US',
				'2001:db8::/32,7,Six,',
			]),
			ips: [
				'10.20.30.40',
				'10.20.31.1',
				'10.21.0.1',
				'10.0.0.0',
				'10.255.255.255',
				'11.0.0.0',
				'2001:db8:ffff::1',
				'::10.20.30.1',
			],
		});
		expect(run.error).toBeUndefined();
		expect(run.items.map((item) => [item.json.asn ?? null, item.json.network ?? null])).toEqual([
			['3', '10.20.30.0/24'],
			['22', '10.20.31.0/24'],
			['1', '10.21.0.0/16'],
			['1', '10.0.0.0/12'],
			['1', '10.128.0.0/9'],
			[null, null],
			['7', '2001:db8::/32'],
			// IPv4 sits at ::/96 in an MMDB tree; the CSV index answers the same way
			['3', '::a14:1e00/120'],
		]);
		expect(run.items[0].json.autonomous_system_organization).toBe('Inner, Ltd');
		// an empty field is absent, as in the MMDB
		expect(run.items[6].json).not.toHaveProperty('asn_country');
	});

	it('a header without rows, and a row with a field too many, are errors naming the line', async () => {
		const empty = await lookUp({ file: asnCsv([]), ips: ['8.8.8.8'] });
		expect(empty.error?.message).toBe('The ip-asn CSV has a header but no network rows');
		const wide = await lookUp({
			file: asnCsv(['8.8.8.0/24,15169,Google,US', '1.1.1.0/24,13335,Cloudflare,US,extra']),
			ips: ['8.8.8.8'],
		});
		expect(wide.error?.message).toBe("The ip-asn CSV's line 3 has 5 fields, the header has 4");
	});
});

describe('IP Database Lookup: output shapes', () => {
	it.each(['mmdb', 'csv'] as const)(
		'geolocation (%s) like the IP Geolocation API: numbers, booleans, bare region code, timezone.name',
		async (format) => {
			const run = await lookUp({
				file: file('ip-geolocation', format),
				ips: ['38.100.1.1', '2.16.0.1'],
				parameters: { outputShape: 'likeTheApi' },
			});
			expect(run.items[0].json).toEqual({
				ip_address: '38.100.1.1',
				city: 'Washington, D.C.',
				city_geoname_id: 4140963,
				region: 'District of Columbia',
				region_iso_code: 'DC',
				region_geoname_id: 4138106,
				postal_code: '20001',
				country: 'United States',
				country_code: 'US',
				country_geoname_id: 6252001,
				country_is_eu: false,
				continent: 'North America',
				continent_code: 'NA',
				continent_geoname_id: 6255149,
				longitude: -77.0369,
				latitude: 38.9072,
				timezone: { name: 'America/New_York' },
			});
			// Country level only: finer fields are null, the country's are there.
			expect(run.items[1].json).toMatchObject({
				city: null,
				region: null,
				region_iso_code: null,
				postal_code: null,
				country_code: 'FR',
				country_is_eu: true,
				timezone: { name: 'Europe/Paris' },
			});
		},
	);

	it.each(['mmdb', 'csv'] as const)(
		'asn and security (%s) like the API: connection.* and security.* with numbers and booleans',
		async (format) => {
			const asn = await lookUp({
				file: file('ip-asn', format),
				ips: ['8.8.8.8'],
				parameters: { outputShape: 'likeTheApi' },
			});
			expect(asn.items[0].json).toEqual({
				ip_address: '8.8.8.8',
				connection: {
					autonomous_system_number: 15169,
					autonomous_system_organization: 'Google LLC',
				},
			});
			const security = await lookUp({
				file: file('ip-security', format),
				ips: ['185.220.101.4', '9.9.9.9'],
				parameters: { outputShape: 'likeTheApi' },
			});
			expect(security.items.map((item) => item.json.security)).toEqual([
				{
					is_vpn: false,
					is_proxy: false,
					is_tor: true,
					is_hosting: false,
					is_relay: false,
					is_mobile: false,
					is_abuse: true,
				},
				{
					is_vpn: false,
					is_proxy: false,
					is_tor: false,
					is_hosting: false,
					is_relay: false,
					is_mobile: false,
					is_abuse: false,
				},
			]);
			expect(security.items[1].json.found).toBe(false);
		},
	);

	it('stored shape: the record as stored plus the matched network; IPv6 too', async () => {
		const run = await lookUp({
			file: file('ip-geolocation', 'csv'),
			ips: ['2001:4860:4860::8888'],
		});
		expect(run.items[0].json).toMatchObject({
			ip_address: '2001:4860:4860::8888',
			network: '2001:4860::/32',
			city: 'Mountain View',
			region_iso_code: 'US-CA',
			latitude: '37.4056',
			country_is_eu: 'False',
		});
	});
});

describe('IP Database Lookup: misses, bad input, Continue On Fail', () => {
	it.each(['mmdb', 'csv'] as const)(
		'private, reserved and absent addresses (%s) are items that say so, paired',
		async (format) => {
			const ips = ['10.1.2.3', '192.168.0.1', '127.0.0.1', '2001:db8::1', '81.2.69.160'];
			const run = await lookUp({ file: file('ip-geolocation', format), ips });
			expect(run.error).toBeUndefined();
			expect(
				run.items.map((item) => [item.json.ip_address, item.json.found, item.pairedItem]),
			).toEqual([
				['10.1.2.3', false, { item: 0 }],
				['192.168.0.1', false, { item: 1 }],
				['127.0.0.1', false, { item: 2 }],
				['2001:db8::1', false, { item: 3 }],
				['81.2.69.160', undefined, { item: 4 }],
			]);
			expect(run.items[0].json.reason).toContain('private, reserved and multicast');
		},
	);

	it('a value that is not an IP address stops the run naming the field and the value, before any parse', async () => {
		const before = cacheStats().parses;
		const run = await lookUp({ file: file('ip-asn', 'csv', 7), ips: ['8.8.8.8', 'not-an-ip'] });
		expect(run.error?.message).toBe(
			'Invalid IP Address (ipAddress): "not-an-ip" is not an IPv4 address (such as 8.8.8.8) or an IPv6 address (such as 2001:4860::8888)',
		);
		expect(run.items).toHaveLength(0);
		expect(cacheStats().parses).toBe(before);
	});

	it('with Continue On Fail the bad item becomes a paired error item and the others are looked up', async () => {
		const run = await lookUp({
			file: file('ip-asn', 'mmdb'),
			ips: ['8.8.8.8', '999.1.1.1', '', '1.1.1.1'],
			continueOnFail: true,
		});
		expect(run.error).toBeUndefined();
		expect(run.items.map((item) => item.pairedItem)).toEqual(
			[0, 1, 2, 3].map((item) => ({ item })),
		);
		expect(run.items[0].json.asn).toBe('15169');
		expect(run.items[1].json.error).toContain('"999.1.1.1" is not an IPv4 address');
		expect(run.items[2].json.error).toContain('IP Address (ipAddress): is required');
		expect(run.items[3].json.asn).toBe('13335');
	});

	it('a missing node, a missing binary field and a file that is no database are errors that say so', async () => {
		const noNode = await lookUp({
			file: file('ip-asn', 'mmdb'),
			ips: ['8.8.8.8'],
			parameters: { databaseNode: 'Nope' },
		});
		expect(noNode.error?.message).toContain(
			'Invalid Database Node (databaseNode): "Nope" is not a node that ran before this one',
		);
		const noField = await lookUp({
			file: file('ip-asn', 'mmdb'),
			ips: ['8.8.8.8'],
			parameters: { binaryPropertyName: 'db' },
		});
		expect(noField.error?.message).toBe(
			'Invalid Input Binary Field (binaryPropertyName): the first item of node "Database File" has no binary field "db" (it has: data)',
		);
		const notDb = await lookUp({
			file: { bytes: Buffer.from('hello,world\r\n1,2\r\n') },
			ips: ['8.8.8.8'],
		});
		expect(notDb.error?.message).toContain('neither an MMDB database');
		const badCsv = await lookUp({
			file: {
				bytes: Buffer.from(
					'network,asn,autonomous_system_organization,asn_country\r\n8.8.8.0/24,15169,"Google\r\n',
				),
			},
			ips: ['8.8.8.8'],
		});
		expect(badCsv.error?.message).toContain('not valid RFC 4180 CSV');
		const badNetwork = await lookUp({
			file: {
				bytes: Buffer.from(
					'network,asn,autonomous_system_organization,asn_country\r\n8.8.8.0/33,15169,Google,US\r\n',
				),
			},
			ips: ['8.8.8.8'],
		});
		expect(badNetwork.error?.message).toBe(
			'The ip-asn CSV\'s line 2 has "8.8.8.0/33" as its network, which is not a CIDR block',
		);
	});
});

describe('IP Database Lookup: the parsed database is reused', () => {
	const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

	it.each(['mmdb', 'csv'] as const)(
		'(%s) a second run with the same content does not parse again; its answers are the same',
		async (format) => {
			const database = file('ip-geolocation', format, 5);
			const before = cacheStats().parses;
			const first = await lookUp({ file: database, ips: ['81.2.69.160', '8.8.8.8', '10.0.0.1'] });
			expect(cacheStats().parses).toBe(before + 1);
			const second = await lookUp({ file: database, ips: ['81.2.69.160', '8.8.8.8', '10.0.0.1'] });
			expect(cacheStats().parses).toBe(before + 1);
			expect(second.items.map((item) => item.json)).toEqual(first.items.map((item) => item.json));
			expect(cacheStats().cached.map((entry) => entry.sha256)).toContain(sha256(database.bytes));
		},
	);

	it("the download node's SHA-256 beside the file is the key: no hashing, no parse for the same build", async () => {
		const database = file('ip-asn', 'mmdb', 6);
		const json = { sha256: sha256(database.bytes), fileName: database.fileName };
		const before = cacheStats().parses;
		await lookUp({ file: { ...database, json }, ips: ['8.8.8.8'] });
		await lookUp({ file: database, ips: ['8.8.8.8'] });
		expect(cacheStats().parses).toBe(before + 1);
	});

	it('two runs at the same time on a new file share one parse', async () => {
		const database = file('ip-asn', 'csv', 11);
		const before = cacheStats().parses;
		// (the helper's items are shared by the two runs: the same addresses for both)
		const runs = await Promise.all(
			[1, 2].map(async () => await lookUp({ file: database, ips: ['8.8.8.8', '1.1.1.1'] })),
		);
		expect(runs.map((run) => run.items.map((item) => item.json.asn))).toEqual([
			['15169', '13335'],
			['15169', '13335'],
		]);
		expect(cacheStats().parses).toBe(before + 1);
	});

	it('a new build replaces the old one: its answers, and at most two builds per database kept', async () => {
		for (const build of [1, 2, 3, 4]) {
			const run = await lookUp({ file: file('ip-security', 'csv', build), ips: ['174.200.1.1'] });
			expect(run.items[0].json).toEqual(
				build >= 2
					? {
							ip_address: '174.200.1.1',
							network: '174.192.0.0/10',
							is_mobile: 'True',
							is_abuse: 'True',
						}
					: { ip_address: '174.200.1.1', network: '174.192.0.0/10', is_mobile: 'True' },
			);
		}
		const kept = cacheStats().cached.filter((entry) => entry.kind === 'ip-security');
		expect(kept.length).toBeLessThanOrEqual(2);
		expect(kept.map((entry) => entry.sha256)).toContain(
			sha256(databaseFileOf('ip-security', 'csv', 4)),
		);
		const kinds = cacheStats().cached.map((entry) => entry.kind);
		for (const kind of DATABASES)
			expect(kinds.filter((entry) => entry === kind).length).toBeLessThanOrEqual(2);
	});
});
