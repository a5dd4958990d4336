import { Reader, type Response } from 'mmdb-lib';

import { databaseFileOf, databaseFileName } from '../sandbox/ipDatabases/archives';
import { DATABASES, rowsOf, type DatabaseId, type FormatId } from '../sandbox/ipDatabases/records';
import { edgeAddresses, lookUp } from '../nodes/ipLookupHelpers';

/**
 * One build, one answer (an MMDB and a CSV of one build answer alike), for every form of an address: the MMDB of a build points
 * ::ffff:0:0/96 (IPv4-mapped), 2002::/16 (6to4) and 2001::/32 (Teredo) at its IPv4 tree, as
 * MaxMind's writers do (the sandbox's writer: IPV4_ALIASES in mmdbWriter.ts), and the CSV of the
 * same build must give the same record and the same network for them. Run through the lookup node
 * in n8n-core, both formats, every network of the three databases' builds 1 and 2 at its edges
 * (first, middle, last, one before, one after), and each IPv4 address in all four IPv6 forms.
 */

const file = (database: DatabaseId, format: FormatId, build: number) => ({
	bytes: databaseFileOf(database, format, build),
	fileName: databaseFileName(database, format),
});

/** The IPv6 forms of an IPv4 address an MMDB answers with its IPv4 record (Teredo: the server's address in bits 32-63). */
function ipv6Forms(ipv4: string): string[] {
	const [a, b, c, d] = ipv4.split('.').map(Number);
	const high = ((a << 8) | b).toString(16);
	const low = ((c << 8) | d).toString(16);
	return [
		`::ffff:${ipv4}`,
		`::${ipv4}`,
		`2002:${high}:${low}::`,
		`2002:${high}:${low}:ffff:ffff:ffff:ffff:ffff`,
		`2001:0:${high}:${low}::1`,
		`2001:0:${high}:${low}:8000:63bf:3fff:fdd2`,
	];
}

describe('MMDB and CSV of one build: the same answer for IPv4-mapped, 6to4 and Teredo forms', () => {
	for (const database of DATABASES) {
		for (const build of [1, 2]) {
			it(`${database} build ${build}: every network's edges, each IPv4 one in its four IPv6 forms`, async () => {
				const edges = [
					...new Set(rowsOf(database, build).flatMap((row) => edgeAddresses(row.network))),
				];
				const ipv4 = edges.filter((address) => !address.includes(':'));
				const forms = ipv4.flatMap(ipv6Forms);
				const ips = [...edges, ...forms];
				const mmdb = await lookUp({ file: file(database, 'mmdb', build), ips });
				const csv = await lookUp({ file: file(database, 'csv', build), ips });
				expect(mmdb.error).toBeUndefined();
				expect(csv.error).toBeUndefined();
				expect(mmdb.items).toHaveLength(ips.length);
				expect(csv.items.map((item) => item.json)).toEqual(mmdb.items.map((item) => item.json));

				// The MMDB answers each form as mmdb-lib reads the same file: record and prefix.
				const reference = new Reader<Response>(file(database, 'mmdb', build).bytes);
				ips.forEach((ip, index) => {
					const [record, prefix] = reference.getWithPrefixLength(ip);
					const { json } = mmdb.items[index];
					if (record === null) expect(json.found).toBe(false);
					else
						expect([json.found, String(json.network).split('/')[1]]).toEqual([
							undefined,
							String(prefix),
						]);
				});

				// The forms are answered, not missed alike: each form gives its IPv4 address's record, in the IPv6 network around it.
				const byAddress = new Map(ips.map((ip, index) => [ip, mmdb.items[index].json]));
				let hits = 0;
				for (const address of ipv4) {
					const { ip_address: _, network, reason: ___, ...plain } = byAddress.get(address)!;
					for (const form of ipv6Forms(address)) {
						const {
							ip_address: __,
							network: formNetwork,
							reason: ____,
							...answer
						} = byAddress.get(form)!;
						expect(answer).toEqual(plain);
						if (network === undefined) continue;
						hits++;
						const v4Prefix = Number(String(network).split('/')[1]);
						const aliasBits = form.startsWith('2002:') ? 16 : form.startsWith('2001:') ? 32 : 96;
						expect(String(formNetwork).split('/')[1]).toBe(String(aliasBits + v4Prefix));
					}
				}
				expect(hits).toBeGreaterThan(ipv4.length);
			});
		}
	}

	it('the network of each form, written out: ::ffff:8.8.8.0/120, 2002:808:800::/40, 2001:0:808:800::/56, ::808:800/120', async () => {
		const ips = [
			'8.8.8.8',
			'::ffff:8.8.8.8',
			'2002:808:808::1',
			'2001:0:808:808:8000:63bf:3fff:fdd2',
			'::8.8.8.8',
		];
		for (const format of ['mmdb', 'csv'] as const) {
			const run = await lookUp({ file: file('ip-asn', format, 1), ips });
			expect(run.items.map((item) => [item.json.network, item.json.asn])).toEqual([
				['8.8.8.0/24', '15169'],
				['::ffff:8.8.8.0/120', '15169'],
				['2002:808:800::/40', '15169'],
				['2001:0:808:800::/56', '15169'],
				['::808:800/120', '15169'],
			]);
		}
	});
});
