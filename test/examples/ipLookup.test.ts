import { promises as fs } from 'fs';
import path from 'path';

import { createN8nFilesFolder, N8N_WORKING_DIRECTORY, removeN8nFilesFolder } from '../harness/n8nFiles';
import { ROOT } from '../harness/nodeTypes';
import { runWorkflow, type WorkflowJson } from '../harness/run';
import { allSandboxCredentials } from '../harness/sandboxCredentials';
import { placeStoredDatabases } from '../sandbox/ipDatabases/storedFiles';
import { startSandbox, type Sandbox } from '../sandbox/server';

/** The two IP database lookup examples, run through n8n-core as saved. */
let sandbox: Sandbox;
beforeAll(async () => {
	sandbox = await startSandbox();
});
afterAll(async () => await sandbox.close());
beforeEach(() => sandbox.reset());

const example = async (file: string) => JSON.parse(await fs.readFile(path.join(ROOT, 'examples', file), 'utf8')) as WorkflowJson;

describe('IP database lookup examples', () => {
	it('(a) looks visitors up in the database the download node fetched in the same run, like the API, with no request of its own', async () => {
		const workflow = await example('ip-lookup-after-download.json');
		const run = await runWorkflow(workflow, { credentials: allSandboxCredentials(sandbox) });
		expect(run.error).toBeUndefined();
		const items = run.output('IP Database Lookup');
		expect(items.map((item) => [item.json.ip_address, item.json.city ?? null, item.json.found ?? true])).toEqual([
			['81.2.69.160', 'London', true],
			['89.160.20.112', 'Linköping', true],
			['2001:4860:4860::8888', 'Mountain View', true],
			['38.100.1.1', 'Washington, D.C.', true],
			['10.0.0.7', null, false],
		]);
		expect(items[0].json).toMatchObject({ region_iso_code: 'ENG', country_is_eu: false, latitude: 51.5142, timezone: { name: 'Europe/London' } });
		expect(items.map((item) => item.pairedItem)).toEqual([0, 1, 2, 3, 4].map((item) => ({ item })));
		// The download's link request and its one storage download: the lookups sent nothing.
		expect(sandbox.requests('api')).toHaveLength(1);
		expect(sandbox.requests('storage')).toHaveLength(1);
		expect(sandbox.log).toHaveLength(2);
	});

	it('(b) reads the stored file once and looks many log lines up in it, as stored', async () => {
		const workflow = await example('ip-lookup-stored-database.json');
		// What the user has: ~/.n8n-files (n8n's docs ask for it) holding the stored build, read by
		// the example's own relative path, as saved.
		await removeN8nFilesFolder();
		const folder = await createN8nFilesFolder();
		const [stored] = await placeStoredDatabases(workflow, N8N_WORKING_DIRECTORY);
		expect(stored.path).toBe(path.join(folder, 'svc-ip-geolocation.mmdb'));

		const run = await runWorkflow(workflow, { credentials: [] });
		expect(run.error).toBeUndefined();
		expect(run.output('Read Database File')).toHaveLength(1);
		const items = run.output('IP Database Lookup');
		expect(items.map((item) => [item.json.ip_address, item.json.network, item.json.country_code, item.json.found])).toEqual([
			['81.2.69.160', '81.2.69.0/24', 'GB', undefined],
			['8.8.8.8', '8.8.8.0/24', 'US', undefined],
			['211.234.10.20', '211.234.0.0/16', 'KR', undefined],
			['2a02:26f0::1f', '2a02:26f0::/29', 'FR', undefined],
			['190.185.119.4', '190.185.112.0/20', 'BQ', undefined],
			['192.168.1.20', undefined, undefined, false],
		]);
		expect(items[0].json).toMatchObject({ city: 'London', region_iso_code: 'GB-ENG', country_is_eu: 'False' });
		expect(sandbox.log).toHaveLength(0);
		await removeN8nFilesFolder();
	});
});
