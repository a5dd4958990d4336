import { promises as fs } from 'fs';
import path from 'path';

import { Reader } from 'mmdb-lib';

import { ROOT } from '../harness/nodeTypes';
import { writeTestMmdb, type MmdbValue } from '../ipLookup/mmdbTestWriter';
import { covers, lookUp, type DatabaseFileSpec, type OnError } from './ipLookupHelpers';

/**
 * Foreign MMDB files through the lookup node in n8n-core: MaxMind's GeoLite2 City, Country and
 * ASN (the devDependency `geolite2`), the file given as binary data, against mmdb-lib (the
 * established reader) on the same bytes: As Stored is the record exactly as mmdb-lib decodes it,
 * plus the network; Like the API maps the GeoIP2 layout field by field. A file of another layout
 * is As Stored only, and Like the API on it is an error for each item.
 *
 * These need the readers (nodes/shared/ipDatabases/) to accept an MMDB whose database_type is not
 * one of Abstract's three, with its records as stored. Where the built reader still refuses
 * such a file, the suite is skipped, and says so in its name.
 */

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { openMmdbDatabase } = require(
	path.join(ROOT, 'dist/nodes/shared/ipDatabases/mmdbDatabase.js'),
) as {
	openMmdbDatabase: (file: Uint8Array) => unknown;
};

/** An MMDB in IPinfo's lite layout: flat, but not Abstract's (nor GeoIP2's). */
const ipinfoLite = writeTestMmdb(
	[
		{
			network: '8.8.8.0/24',
			record: {
				asn: 'AS15169',
				as_name: 'Google LLC',
				country_code: 'US',
				continent: { code: 'NA' },
			} as MmdbValue,
		},
		{
			network: '81.2.69.0/24',
			record: { asn: 'AS20712', as_name: 'Andrews & Arnold Ltd', country_code: 'GB' },
		},
	],
	{ recordSize: 24, ipVersion: 4, metadata: { database_type: 'ipinfo lite.mmdb' } },
).file;

function readerAcceptsForeignFiles(): boolean {
	try {
		openMmdbDatabase(ipinfoLite);
		return true;
	} catch {
		return false;
	}
}

const suite = readerAcceptsForeignFiles() ? describe : describe.skip;
const DBS = path.join(ROOT, 'node_modules/geolite2/dbs');

const files: Record<'City' | 'Country' | 'ASN', Buffer> = {} as never;
const oracles: Record<string, Reader<Record<string, unknown>>> = {};
beforeAll(async () => {
	if (!readerAcceptsForeignFiles()) return;
	for (const name of ['City', 'Country', 'ASN'] as const) {
		files[name] = await fs.readFile(path.join(DBS, `GeoLite2-${name}.mmdb`));
		oracles[name] = new Reader(files[name]);
	}
}, 60_000);

const geolite = (name: 'City' | 'Country' | 'ASN'): DatabaseFileSpec => ({
	bytes: files[name],
	fileName: `GeoLite2-${name}.mmdb`,
	mimeType: 'application/vnd.maxmind.maxmind-db',
});

const IPS = [
	'81.2.69.160',
	'2001:4860:4860::8888',
	'8.8.8.8',
	'89.160.20.112',
	'2a02:26f0::1f',
	'175.16.199.1',
	'10.0.0.1',
];

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** What Like the API must give for a GeoIP2 City/Country record, from mmdb-lib's record. */
function expectedLocation(record: Json | null) {
	const subdivision = record?.subdivisions?.[0];
	return {
		city: record?.city?.names?.en ?? null,
		city_geoname_id: record?.city?.geoname_id ?? null,
		region: subdivision?.names?.en ?? null,
		region_iso_code: subdivision?.iso_code ?? null,
		region_geoname_id: subdivision?.geoname_id ?? null,
		postal_code: record?.postal?.code ?? null,
		country: record?.country?.names?.en ?? null,
		country_code: record?.country?.iso_code ?? null,
		country_geoname_id: record?.country?.geoname_id ?? null,
		country_is_eu: record?.country ? record.country.is_in_european_union === true : null,
		continent: record?.continent?.names?.en ?? null,
		continent_code: record?.continent?.code ?? null,
		continent_geoname_id: record?.continent?.geoname_id ?? null,
		longitude: record?.location?.longitude ?? null,
		latitude: record?.location?.latitude ?? null,
		timezone: { name: record?.location?.time_zone ?? null },
	};
}

suite(
	`IP Database Lookup on foreign MMDB files (GeoLite2)${readerAcceptsForeignFiles() ? '' : ': skipped, the built reader refuses foreign files'}`,
	() => {
		jest.setTimeout(120_000);

		it.each(['City', 'Country', 'ASN'] as const)(
			"GeoLite2-%s as stored: mmdb-lib's record exactly, plus the network it answers for",
			async (name) => {
				const run = await lookUp({ file: geolite(name), ips: IPS });
				expect(run.error).toBeUndefined();
				IPS.forEach((ip, index) => {
					const [record, prefixLength] = oracles[name].getWithPrefixLength(ip);
					const { json, pairedItem } = run.items[index];
					expect(pairedItem).toEqual({ item: index });
					if (record === null) {
						expect(json).toEqual({
							ip_address: ip,
							found: false,
							reason: `No network of the GeoLite2-${name} database covers ${ip}`,
						});
						return;
					}
					const { ip_address, network, ...stored } = json;
					expect(ip_address).toBe(ip);
					expect(stored).toEqual(record);
					expect(Number(String(network).split('/')[1])).toBe(prefixLength);
					expect(covers(String(network), ip)).toBe(true);
				});
			},
		);

		it.each(['City', 'Country'] as const)(
			"GeoLite2-%s like the API: every location field, compared with mmdb-lib's record",
			async (name) => {
				const run = await lookUp({
					file: geolite(name),
					ips: IPS,
					parameters: { outputShape: 'likeTheApi' },
				});
				expect(run.error).toBeUndefined();
				IPS.forEach((ip, index) => {
					const record = oracles[name].get(ip);
					const { json } = run.items[index];
					if (record === null) {
						expect(json).toMatchObject({ ip_address: ip, found: false });
						return;
					}
					expect(json).toEqual({ ip_address: ip, ...expectedLocation(record) });
				});
				// Known values, so that a mapping that gives null everywhere cannot pass.
				expect(run.items[0].json).toMatchObject({
					country: 'United Kingdom',
					country_code: 'GB',
					country_is_eu: false,
					continent: 'Europe',
					continent_code: 'EU',
				});
				expect(run.items[3].json).toMatchObject({ country_code: 'SE', country_is_eu: true });
				if (name === 'City') {
					expect(run.items[0].json).toMatchObject({
						region: 'England',
						region_iso_code: 'ENG',
						timezone: { name: 'Europe/London' },
					});
					expect(run.items[0].json.latitude).toEqual(expect.any(Number));
					expect(run.items[0].json.postal_code).toEqual(expect.any(String));
				}
			},
		);

		it('GeoLite2-ASN like the API: connection.autonomous_system_number and organization, compared with mmdb-lib', async () => {
			const run = await lookUp({
				file: geolite('ASN'),
				ips: IPS,
				parameters: { outputShape: 'likeTheApi' },
			});
			IPS.forEach((ip, index) => {
				const record = oracles.ASN.get(ip);
				if (record === null) return expect(run.items[index].json).toMatchObject({ found: false });
				expect(run.items[index].json).toEqual({
					ip_address: ip,
					connection: {
						autonomous_system_number: record.autonomous_system_number,
						autonomous_system_organization: record.autonomous_system_organization,
					},
				});
			});
			expect(run.items[2].json.connection).toEqual({
				autonomous_system_number: 15169,
				autonomous_system_organization: 'Google LLC',
			});
		});

		it('GeoLite2 City and ASN in one lookup: location and connection together, security unknown (null)', async () => {
			const run = await lookUp({
				file: geolite('City'),
				moreFiles: { 'ASN File': geolite('ASN') },
				ips: ['8.8.8.8', '81.2.69.160'],
				parameters: {
					outputShape: 'likeTheApi',
					moreDatabases: {
						databases: [
							{
								databaseSource: 'fromNode',
								databaseNode: "={{ $('ASN File').first() }}",
								binaryPropertyName: 'data',
							},
						],
					},
				},
			});
			expect(run.error).toBeUndefined();
			expect(run.items[1].json).toEqual({
				ip_address: '81.2.69.160',
				...expectedLocation(oracles.City.get('81.2.69.160')),
				connection: {
					autonomous_system_number: 20712,
					autonomous_system_organization: 'Andrews & Arnold Ltd',
				},
				security: {
					is_vpn: null,
					is_proxy: null,
					is_tor: null,
					is_hosting: null,
					is_relay: null,
					is_mobile: null,
					is_abuse: null,
				},
			});
			const stored = await lookUp({
				file: geolite('Country'),
				moreFiles: { 'ASN File': geolite('ASN') },
				ips: ['8.8.8.8'],
				parameters: {
					moreDatabases: {
						databases: [
							{ databaseSource: 'fromNode', databaseNode: 'ASN File', binaryPropertyName: 'data' },
						],
					},
				},
			});
			expect(Object.keys(stored.items[0].json)).toEqual(['ip_address', 'geolocation', 'asn']);
			expect(stored.items[0].json.asn).toMatchObject({ autonomous_system_number: 15169 });
		});
	},
);

suite('IP Database Lookup on a foreign MMDB of unknown layout (IPinfo lite)', () => {
	const ipinfo = { bytes: Buffer.from(ipinfoLite), fileName: 'ipinfo_lite.mmdb' };

	it('As Stored: the record exactly as the file holds it (nested values too), plus the network', async () => {
		const run = await lookUp({ file: ipinfo, ips: ['8.8.8.8', '1.1.1.1'] });
		expect(run.error).toBeUndefined();
		expect(run.items.map((item) => item.json)).toEqual([
			{
				ip_address: '8.8.8.8',
				network: '8.8.8.0/24',
				asn: 'AS15169',
				as_name: 'Google LLC',
				country_code: 'US',
				continent: { code: 'NA' },
			},
			{
				ip_address: '1.1.1.1',
				found: false,
				reason: 'No network of the ipinfo lite.mmdb database covers 1.1.1.1',
			},
		]);
	});

	const likeTheApiError =
		'The MMDB file\'s database_type is "ipinfo lite.mmdb", a layout this node cannot map to the IP Geolocation API\'s fields';

	it.each(['stopWorkflow', 'continueRegularOutput', 'continueErrorOutput'] as OnError[])(
		'Like the API: an error for each item naming the database_type and As Stored, never an empty answer (On Error: %s)',
		async (onError) => {
			const run = await lookUp({
				file: ipinfo,
				ips: ['8.8.8.8', '1.1.1.1'],
				onError,
				parameters: { outputShape: 'likeTheApi' },
			});
			if (onError === 'stopWorkflow') {
				expect(run.error?.message).toBe(likeTheApiError);
				expect(run.error?.description).toContain('Set Output Shape to As Stored');
				return;
			}
			expect(run.error).toBeUndefined();
			if (onError === 'continueRegularOutput') {
				expect(run.items.map((item) => item.json.error)).toEqual([
					likeTheApiError,
					likeTheApiError,
				]);
				return;
			}
			expect(run.items).toHaveLength(0);
			expect(run.errors.map((item) => (item.json.error as { message: string }).message)).toEqual([
				likeTheApiError,
				likeTheApiError,
			]);
		},
	);
});

suite('IP Database Lookup on a file named like GeoLite2 but laid out flat', () => {
	it('Like the API: an error naming the layout it expected, not an answer of nulls', async () => {
		const flat = writeTestMmdb(
			[{ network: '8.8.8.0/24', record: { city: 'Mountain View', country_code: 'US' } }],
			{
				recordSize: 24,
				ipVersion: 4,
				metadata: { database_type: 'GeoLite2-City' },
			},
		).file;
		const run = await lookUp({
			file: { bytes: Buffer.from(flat) },
			ips: ['8.8.8.8'],
			parameters: { outputShape: 'likeTheApi' },
		});
		expect(run.error?.message).toBe(
			'The GeoLite2-City database\'s record for 8.8.8.0/24 is not in the GeoIP2 City/Country layout (its keys: "city", "country_code")',
		);
		const stored = await lookUp({ file: { bytes: Buffer.from(flat) }, ips: ['8.8.8.8'] });
		expect(stored.items[0].json).toEqual({
			ip_address: '8.8.8.8',
			network: '8.8.8.0/24',
			city: 'Mountain View',
			country_code: 'US',
		});
	});
});

suite("IP Database Lookup's messages quote what a file gives cut short", () => {
	// A file's metadata and records are the attacker's text: an error that quoted them whole
	// would be as large as they are (a database_type of 60,000 characters, a record of long
	// keys), kept in every execution's data. Each is cut to 60 characters, at most 20 listed.
	const long = 'T'.repeat(60_000);
	const cut = `${'T'.repeat(60)}…`;
	const unknownLayout = writeTestMmdb([{ network: '8.8.8.0/24', record: { asn: 'AS15169' } }], {
		recordSize: 24,
		ipVersion: 4,
		metadata: { database_type: long },
	}).file;

	it('a database_type of 60,000 characters: in the Like the API error and in a miss', async () => {
		const api = await lookUp({
			file: { bytes: Buffer.from(unknownLayout) },
			ips: ['8.8.8.8'],
			parameters: { outputShape: 'likeTheApi' },
		});
		expect(api.error?.message).toBe(
			`The MMDB file's database_type is "${cut}", a layout this node cannot map to the IP Geolocation API's fields`,
		);
		const miss = await lookUp({ file: { bytes: Buffer.from(unknownLayout) }, ips: ['1.1.1.1'] });
		expect(miss.items[0].json.reason).toBe(`No network of the ${cut} database covers 1.1.1.1`);
	});

	it('two files of one long database_type: the error naming both', async () => {
		const run = await lookUp({
			file: { bytes: Buffer.from(unknownLayout) },
			moreFiles: { 'Second File': { bytes: Buffer.from(unknownLayout) } },
			ips: ['8.8.8.8'],
			parameters: {
				moreDatabases: {
					databases: [
						{
							databaseSource: 'fromNode',
							databaseNode: "={{ $('Second File').first() }}",
							binaryPropertyName: 'data',
						},
					],
				},
			},
		});
		expect(run.error?.message).toBe(
			`Invalid More Databases (moreDatabases): Database (${cut}) and More Databases › Database 2 (${cut}) are both "${cut}" databases; give at most one geolocation, one ASN and one security database`,
		);
	});

	it('a GeoLite2-City record of 100 keys of 200 characters: 20 listed, each cut, then how many more', async () => {
		const record: Record<string, MmdbValue> = {};
		for (let index = 0; index < 100; index++) record[`${index}`.padStart(200, 'k')] = 'x';
		const flat = writeTestMmdb([{ network: '8.8.8.0/24', record }], {
			recordSize: 24,
			ipVersion: 4,
			metadata: { database_type: 'GeoLite2-City' },
		}).file;
		const run = await lookUp({
			file: { bytes: Buffer.from(flat) },
			ips: ['8.8.8.8'],
			parameters: { outputShape: 'likeTheApi' },
		});
		const listed = Object.keys(record)
			.slice(0, 20)
			.map((key) => `"${key.slice(0, 60)}…"`)
			.join(', ');
		expect(run.error?.message).toBe(
			`The GeoLite2-City database's record for 8.8.8.0/24 is not in the GeoIP2 City/Country layout (its keys: ${listed} and 80 more)`,
		);
	});

	it("a CSV log's cell of a million characters that is no address", async () => {
		const cell = 'x'.repeat(1_000_000);
		const run = await lookUp({
			file: { bytes: Buffer.from(unknownLayout) },
			ips: [],
			csvFile: { bytes: `ip\n8.8.8.8\n${cell}\n` },
			parameters: { addressColumn: 'ip' },
		});
		expect(run.error?.message).toBe(
			`Invalid IP Address (row 3, column 1 "ip"): "${'x'.repeat(60)}…" is not an IPv4 address (such as 8.8.8.8) or an IPv6 address (such as 2001:4860::8888)`,
		);
	});
});
