import { createHash } from 'crypto';

import type { IDataObject } from 'n8n-workflow';

import { NodeTypes, PACKAGE_NAME } from '../harness/nodeTypes';
import { runNode } from '../harness/run';
import { sandboxCredential } from '../harness/sandboxCredentials';
import { shortenRetryBudget } from '../harness/retryBudget';
import { parseCsv } from '../sandbox/ipDatabases/csvWriter';
import { openMmdb } from '../sandbox/ipDatabases/mmdbReader';
import { METADATA_MARKER } from '../sandbox/ipDatabases/mmdbWriter';
import {
	COLUMNS,
	DATABASES,
	FORMATS,
	type DatabaseId,
	type FormatId,
} from '../sandbox/ipDatabases/records';
import { startSandbox, type Sandbox } from '../sandbox/server';
import {
	databaseControls,
	type DatabaseControls,
	type DownloadFault,
} from '../sandbox/services/database';
import { archiveMembers, binaryBytes, secretsOf, visibleText } from './ipDatabaseHelpers';

let sandbox: Sandbox;
let db: DatabaseControls;
beforeAll(async () => {
	sandbox = await startSandbox();
	db = databaseControls(sandbox);
});
afterAll(async () => await sandbox.close());
beforeEach(() => {
	sandbox.reset();
	db.reset();
});

const download = (
	parameters: IDataObject,
	extra: {
		apiKey?: string;
		continueOnFail?: boolean;
		staticData?: IDataObject;
		items?: Array<{ json: IDataObject }>;
	} = {},
) =>
	runNode({
		type: 'abstractIpDatabase',
		parameters,
		credential: sandboxCredential(
			sandbox,
			'api',
			extra.apiKey === undefined ? {} : { apiKey: extra.apiKey },
		),
		continueOnFail: extra.continueOnFail,
		staticData: extra.staticData,
		items: extra.items,
	});

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** Neither the key nor any link handed out appears in what the run shows. */
function expectNoSecrets(text: string) {
	for (const secret of secretsOf(sandbox, db.links())) expect(text).not.toContain(secret);
}

/** The storage host saw neither the key in any query or header. */
function expectStorageNeverSawTheKey() {
	const storage = sandbox.requests('storage');
	for (const request of storage) {
		expect(JSON.stringify(request.query)).not.toContain(sandbox.keys.api);
		expect(JSON.stringify(request.headers)).not.toContain(sandbox.keys.api);
		expect(request.query.api_key).toBeUndefined();
	}
}

const cases = DATABASES.flatMap((database) =>
	FORMATS.map((format) => [database, format] as [DatabaseId, FormatId]),
);

/** The database file checks: a working MMDB (marker and a lookup), or RFC 4180 CSV with its header. */
function expectWorkingDatabaseFile(database: DatabaseId, format: FormatId, bytes: Buffer) {
	if (format === 'mmdb') {
		expect(bytes.includes(METADATA_MARKER)).toBe(true);
		const file = openMmdb(bytes);
		expect(file.metadata.database_type).toBe(`svc-${database}`);
		const probe = {
			'ip-geolocation': '38.100.1.1',
			'ip-asn': '8.8.8.8',
			'ip-security': '104.16.132.1',
		}[database];
		const expected = {
			'ip-geolocation': { city: 'Washington, D.C.', country_code: 'US', latitude: '38.9072' },
			'ip-asn': { asn: '15169', autonomous_system_organization: 'Google LLC' },
			'ip-security': { is_hosting: 'True', is_proxy: 'True' },
		}[database];
		expect(file.lookup(probe)).toMatchObject(expected);
		expect(file.lookup('10.1.2.3')).toBeUndefined();
	} else {
		const rows = parseCsv(bytes.toString('utf8'));
		expect(rows[0]).toEqual(COLUMNS[database]);
		expect(rows.slice(1).every((row) => row.length === COLUMNS[database].length)).toBe(true);
		if (database === 'ip-geolocation') {
			expect(bytes.toString('utf8')).toContain('"Washington, D.C."');
			expect(rows.some((row) => row.includes('Korea, Republic of'))).toBe(true);
		}
	}
}

describe('IP database download: every database and format, each output', () => {
	it.each(cases)(
		"%s %s as the archive: the .tar.gz as shipped, checked, with the database file's SHA-256",
		async (database, format) => {
			const { items, error } = await download({ database, format, output: 'archive' });
			expect(error).toBeUndefined();
			const served = db.archive(database, format);
			expect(items).toHaveLength(1);
			const [item] = items;
			expect(item.json).toEqual({
				database,
				format,
				fileName: served.fileName,
				size: served.bytes.length,
				sha256: served.sha256,
				databaseFileName: served.databaseFileName,
			});
			expect(item.binary?.data).toMatchObject({
				fileName: served.fileName,
				mimeType: 'application/gzip',
			});
			const bytes = binaryBytes(item);
			expect(bytes.equals(served.bytes)).toBe(true);
			const members = archiveMembers(bytes);
			expect([...members.keys()].sort()).toEqual(
				['README.md', served.databaseFileName, `${served.databaseFileName}.sha256`].sort(),
			);
			expect(members.get(`${served.databaseFileName}.sha256`)!.toString()).toBe(
				`${item.json.sha256}  ${served.databaseFileName}\n`,
			);
			expect(item.pairedItem).toEqual({ item: 0 });

			const [api] = sandbox.requests('api');
			expect(api.query).toEqual({ database, format, response: 'json', api_key: sandbox.keys.api });
			expect(sandbox.requests('storage')).toHaveLength(1);
			expectStorageNeverSawTheKey();
			expectNoSecrets(visibleText(items));
		},
	);

	it.each(cases)(
		"%s %s as the database file: its bytes, its SHA-256 equal to the archive's .sha256",
		async (database, format) => {
			const { items, error } = await download({
				database,
				format,
				output: 'databaseFile',
				binaryPropertyName: 'db',
			});
			expect(error).toBeUndefined();
			const served = db.archive(database, format);
			const [item] = items;
			expect(item.binary?.db).toMatchObject({
				fileName: served.databaseFileName,
				mimeType: format === 'mmdb' ? 'application/vnd.maxmind.maxmind-db' : 'text/csv',
			});
			const bytes = binaryBytes(item, 'db');
			const members = archiveMembers(served.bytes);
			expect(bytes.equals(members.get(served.databaseFileName)!)).toBe(true);
			const stated = members.get(`${served.databaseFileName}.sha256`)!.toString().split(/\s+/)[0];
			expect(sha256(bytes)).toBe(stated);
			expect(item.json).toEqual({
				database,
				format,
				fileName: served.databaseFileName,
				size: bytes.length,
				sha256: stated,
				archiveFileName: served.fileName,
			});
			expectWorkingDatabaseFile(database, format, bytes);
			expectStorageNeverSawTheKey();
			expectNoSecrets(visibleText(items));
		},
	);

	it.each(cases)('%s %s as the link: url and expires_in, no download', async (database, format) => {
		db.setExpiresIn(900);
		const { items, error } = await download({ database, format, output: 'link' });
		expect(error).toBeUndefined();
		const [link] = db.links();
		expect(items.map((item) => item.json)).toEqual([
			{ database, format, url: link, expires_in: 900 },
		]);
		expect(items[0].binary).toBeUndefined();
		expect(link.startsWith(`${sandbox.storageUrl}/`)).toBe(true);
		expect(new URL(link).searchParams.get('signature')).toMatch(/^[0-9a-f]{40}$/);
		expect(sandbox.requests('storage')).toHaveLength(0);
		// The link fetches the archive without any key.
		const fetched = Buffer.from(await (await fetch(link)).arrayBuffer());
		expect(fetched.equals(db.archive(database, format).bytes)).toBe(true);
	});
});

describe('IP database download: the redirect form (302 with the link in Location)', () => {
	beforeEach(() => db.redirectOnly(true));

	it.each(['archive', 'databaseFile'])(
		'follows the 302 Location itself, without the key, for %s',
		async (output) => {
			const { items, error } = await download({ database: 'ip-security', format: 'mmdb', output });
			expect(error).toBeUndefined();
			const served = db.archive('ip-security', 'mmdb');
			expect(
				binaryBytes(items[0]).equals(output === 'archive' ? served.bytes : served.databaseFile!),
			).toBe(true);
			expect(items[0].json.sha256).toBe(served.sha256);
			const [api] = sandbox.requests('api');
			expect(api.status).toBe(302);
			const [storage] = sandbox.requests('storage');
			expect(`${sandbox.storageUrl}${storage.path}?${new URLSearchParams(storage.query)}`).toBe(
				db.links()[0],
			);
			expectStorageNeverSawTheKey();
			expectNoSecrets(visibleText(items));
		},
	);

	it('gives the link from the Location header in link mode (no expires_in there)', async () => {
		const { items } = await download({ database: 'ip-asn', format: 'csv', output: 'link' });
		expect(items.map((item) => item.json)).toEqual([
			{ database: 'ip-asn', format: 'csv', url: db.links()[0] },
		]);
	});

	it('answers 302 with Location, Cache-Control: no-store, Content-Length: 0 and an empty body; JSON with response=json', async () => {
		db.redirectOnly(false);
		const base = `${sandbox.baseUrls.api}/v1/database/download/?api_key=${sandbox.keys.api}&database=ip-asn&format=csv`;
		const redirect = await fetch(base, { redirect: 'manual' });
		expect(redirect.status).toBe(302);
		expect(redirect.headers.get('location')).toBe(db.links()[0]);
		expect(redirect.headers.get('cache-control')).toBe('no-store');
		expect(redirect.headers.get('content-length')).toBe('0');
		expect(await redirect.text()).toBe('');
		const json = await fetch(`${base}&response=json`);
		expect(json.status).toBe(200);
		expect(json.headers.get('cache-control')).toBe('no-store');
		expect(await json.json()).toEqual({ url: db.links()[1], expires_in: 3600 });
	});
});

describe('IP database download: skipIfUnchanged', () => {
	it('outputs changed: false and no file for the same build, changed: true after a new build', async () => {
		const parameters = {
			database: 'ip-geolocation',
			format: 'csv',
			output: 'databaseFile',
			options: { skipIfUnchanged: true },
		};
		const first = await download(parameters, { staticData: {} });
		expect(first.error).toBeUndefined();
		expect(first.items[0].json).toMatchObject({
			changed: true,
			sha256: db.archive('ip-geolocation', 'csv').sha256,
		});
		expect(first.items[0].binary?.data).toBeDefined();

		const second = await download(parameters, { staticData: first.staticData });
		expect(second.items.map((item) => item.json)).toEqual([
			{
				database: 'ip-geolocation',
				format: 'csv',
				sha256: first.items[0].json.sha256,
				changed: false,
			},
		]);
		expect(second.items[0].binary).toBeUndefined();

		// Another database or format is remembered apart.
		const other = await download(
			{ ...parameters, format: 'mmdb' },
			{ staticData: second.staticData },
		);
		expect(other.items[0].json.changed).toBe(true);

		db.setBuild(2);
		const rebuilt = await download(parameters, { staticData: other.staticData });
		expect(rebuilt.items[0].json.changed).toBe(true);
		expect(rebuilt.items[0].json.sha256).not.toBe(first.items[0].json.sha256);
		expect(
			binaryBytes(rebuilt.items[0]).equals(db.archive('ip-geolocation', 'csv').databaseFile!),
		).toBe(true);

		const again = await download(parameters, { staticData: rebuilt.staticData });
		expect(again.items[0].json.changed).toBe(false);
	});

	it('does not remember the checksum of a broken download', async () => {
		const parameters = {
			database: 'ip-asn',
			format: 'mmdb',
			output: 'archive',
			options: { skipIfUnchanged: true },
		};
		db.failNextDownload('badChecksum');
		const broken = await download(parameters, { staticData: {} });
		expect(broken.error).toBeDefined();
		const retried = await download(parameters, { staticData: broken.staticData });
		expect(retried.items[0].json.changed).toBe(true);
		expect(retried.items[0].binary?.data).toBeDefined();
	});
});

describe('IP database download: broken downloads never reach storage', () => {
	const faults: Array<[DownloadFault, RegExp]> = [
		['truncated', /transfer broke off after \d+ bytes of \d+/],
		['corrupted', /gzip data is broken/],
		['notGzip', /not a gzip file \(incorrect header check\)/],
		[
			'badChecksum',
			/SHA-256 of svc-ip-geolocation\.mmdb is [0-9a-f]{64}, but svc-ip-geolocation\.mmdb\.sha256 states f{64}/,
		],
	];
	const outputs = ['archive', 'databaseFile'];

	it.each(
		faults.flatMap(([fault, message]) =>
			outputs.map((output) => [fault, output, message] as const),
		),
	)('%s download, %s output: an error and no binary item', async (fault, output, message) => {
		db.failNextDownload(fault);
		const { items, error } = await download({ database: 'ip-geolocation', format: 'mmdb', output });
		expect(items).toEqual([]);
		expect(error?.message).toMatch(/^The downloaded svc-ip-geolocation\.tar\.gz is broken: /);
		expect(error?.message).toMatch(message);
		expect(error?.description).toMatch(/Nothing was output/);
		expect(sandbox.requests('storage')).toHaveLength(1);
		expectNoSecrets(visibleText(items, error));
	});

	it('with Continue On Fail: a paired error item without binary, and the next item still downloads', async () => {
		db.failNextDownload('corrupted');
		const { items, error } = await download(
			{ database: '={{ $json.database }}', format: 'csv', output: 'archive' },
			{
				continueOnFail: true,
				items: [{ json: { database: 'ip-asn' } }, { json: { database: 'ip-security' } }],
			},
		);
		expect(error).toBeUndefined();
		expect(items).toHaveLength(2);
		const failed = items.find((item) => item.json.error);
		const fine = items.find((item) => !item.json.error);
		expect(failed?.binary).toBeUndefined();
		expect(String(failed?.json.error)).toMatch(/is broken: its gzip data is broken/);
		expect(fine?.binary?.data).toBeDefined();
		expect(items.map((item) => item.pairedItem).sort()).toEqual([{ item: 0 }, { item: 1 }]);
		expectNoSecrets(visibleText(items));
	});

	it('an expired link: the storage host refuses it, the error says so without the link', async () => {
		db.setExpiresIn(-10);
		const { items, error } = await download({
			database: 'ip-asn',
			format: 'mmdb',
			output: 'archive',
		});
		expect(items).toEqual([]);
		expect(error?.message).toMatch(/refused \(403\): the link has expired or is not valid/);
		expectNoSecrets(visibleText(items, error));
	});
});

describe('IP database download: service errors', () => {
	it('400: a credential without a key is told so, one request, not retried', async () => {
		const { items, error } = await download(
			{ database: 'ip-asn', format: 'mmdb', output: 'archive' },
			{ apiKey: '' },
		);
		expect(items).toEqual([]);
		expect(error?.message).toMatch(/API key is missing \(400\): the credential has no API key/);
		expect(sandbox.requests('api').map((request) => request.status)).toEqual([400]);
		expect(sandbox.requests('storage')).toHaveLength(0);
	});

	const FOUR_CAUSES = [
		/key is unknown, disabled or revoked/,
		/no active entitlement to this database/,
		/database is outside the catalogue/,
		/format is outside it/,
	];

	it('403 for an unknown key names all four causes, is not retried, and never shows the key', async () => {
		const unknown = 'sbx_api_not_a_key_of_this_organization';
		const { items, error } = await download(
			{ database: 'ip-asn', format: 'mmdb', output: 'archive' },
			{ apiKey: unknown },
		);
		expect(items).toEqual([]);
		for (const cause of FOUR_CAUSES) expect(error?.message).toMatch(cause);
		expect(error?.httpCode).toBe('403');
		expect(sandbox.requests('api').map((request) => request.status)).toEqual([403]);
		expect(visibleText(items, error)).not.toContain(unknown);
	});

	it('403 for a database the key is not entitled to; the entitled one downloads', async () => {
		const asnOnly = 'sbx_api_asn_only_key_000001';
		db.addKey(asnOnly, ['ip-asn']);
		const entitled = await download(
			{ database: 'ip-asn', format: 'csv', output: 'databaseFile' },
			{ apiKey: asnOnly },
		);
		expect(entitled.error).toBeUndefined();
		expect(entitled.items[0].json.sha256).toBe(db.archive('ip-asn', 'csv').sha256);
		const refused = await download(
			{ database: 'ip-geolocation', format: 'csv', output: 'databaseFile' },
			{ apiKey: asnOnly },
		);
		expect(refused.items).toEqual([]);
		for (const cause of FOUR_CAUSES) expect(refused.error?.message).toMatch(cause);
		expect(sandbox.requests('api').map((request) => request.status)).toEqual([200, 403]);
		expect(visibleText(refused.items, refused.error)).not.toContain(asnOnly);
	});

	it('403 for a disabled or revoked key', async () => {
		const revoked = 'sbx_api_revoked_key_000002';
		db.disableKey(revoked);
		const { error } = await download(
			{ database: 'ip-asn', format: 'mmdb', output: 'link' },
			{ apiKey: revoked },
		);
		expect(error?.message).toMatch(/refused \(403\)/);
		expect(sandbox.requests('api').map((request) => request.status)).toEqual([403]);
	});

	it('a database or format outside the catalogue: refused by the node before any request, 403 from the service', async () => {
		const { items, error } = await download({
			database: '={{ "ip-company" }}',
			format: 'mmdb',
			output: 'archive',
		});
		expect(items).toEqual([]);
		expect(error?.message).toBe(
			'Invalid Database (database): "ip-company" is not one of ip-geolocation, ip-asn, ip-security',
		);
		const badFormat = await download({
			database: 'ip-asn',
			format: '={{ "zip" }}',
			output: 'archive',
		});
		expect(badFormat.error?.message).toBe('Invalid Format (format): "zip" is not one of mmdb, csv');
		expect(sandbox.requests('api')).toHaveLength(0);

		const base = `${sandbox.baseUrls.api}/v1/database/download/?api_key=${sandbox.keys.api}`;
		expect((await fetch(`${base}&database=ip-company`, { redirect: 'manual' })).status).toBe(403);
		expect((await fetch(`${base}&database=ip-asn&format=zip`, { redirect: 'manual' })).status).toBe(
			403,
		);
		expect(
			(await fetch(`${base}&database=ip-asn&format=mmdb`, { redirect: 'manual' })).status,
		).toBe(302);
	});

	it('503 then success: one extra request, and the archive arrives', async () => {
		sandbox.inject('api', { kind: 'status', status: 503 });
		const { items, error } = await download({
			database: 'ip-security',
			format: 'csv',
			output: 'archive',
		});
		expect(error).toBeUndefined();
		expect(binaryBytes(items[0]).equals(db.archive('ip-security', 'csv').bytes)).toBe(true);
		const requests = sandbox.requests('api');
		expect(requests.map((request) => request.status)).toEqual([503, 200]);
		expect(requests[0].fault).toBe('status 503');
	});

	it('503 that lasts: retried for the time budget (shortened here), then a clear error', async () => {
		const restoreBudget = shortenRetryBudget(1000);
		sandbox.faultPattern('api', {
			every: 1,
			faults: [{ kind: 'status', status: 503, retryAfter: 0 }],
		});
		const { items, error } = await download({
			database: 'ip-security',
			format: 'csv',
			output: 'archive',
		}).finally(restoreBudget);
		expect(items).toEqual([]);
		expect(error?.message).toMatch(
			/temporarily unavailable \(503\)\. Run the node again later\. Tried for \d+\.\d s \(\d+ requests\)/,
		);
		expect(sandbox.requests('api').length).toBeGreaterThan(2);
		expect(sandbox.requests('storage')).toHaveLength(0);
	});
});

describe('IP database download as an AI agent tool', () => {
	it('refuses the link output before any request: a model is never handed the secret link', async () => {
		// n8n offers every node to agents as `<name>Tool`, the same class under another type name.
		NodeTypes.register(
			`${PACKAGE_NAME}.abstractIpDatabaseTool`,
			new NodeTypes().getByNameAndVersion(`${PACKAGE_NAME}.abstractIpDatabase`),
		);
		const asTool = (output: string) =>
			runNode({
				type: 'abstractIpDatabaseTool',
				parameters: { database: 'ip-asn', format: 'csv', output },
				credential: sandboxCredential(sandbox, 'api'),
			});
		const link = await asTool('link');
		expect(link.error?.message).toMatch(
			/Invalid Output \(output\): Link is not available when an AI agent runs this node/,
		);
		expect(sandbox.requests('api')).toHaveLength(0);

		const file = await asTool('databaseFile');
		expect(file.error).toBeUndefined();
		expect(file.items[0].binary?.data.fileName).toBe('svc-ip-asn.csv');
	});
});
