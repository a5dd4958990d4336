import { createHash } from 'crypto';
import { promises as fs } from 'fs';
import path from 'path';

import { runWorkflow, type WorkflowJson } from '../harness/run';
import { createN8nFilesFolder, N8N_FILES_FOLDER, removeN8nFilesFolder } from '../harness/n8nFiles';
import { ROOT } from '../harness/nodeTypes';
import { allSandboxCredentials } from '../harness/sandboxCredentials';
import { openMmdb } from '../sandbox/ipDatabases/mmdbReader';
import { startSandbox, type Sandbox } from '../sandbox/server';
import { databaseControls } from '../sandbox/services/database';

/** examples/scheduled-database-download.json, run through n8n-core against the sandbox. */
let sandbox: Sandbox;
beforeAll(async () => {
	sandbox = await startSandbox();
});
afterAll(async () => await sandbox.close());

describe('Scheduled database download example', () => {
	it('writes the database on the first run, and takes the unchanged branch on the next with the same static data', async () => {
		await removeN8nFilesFolder();
		await createN8nFilesFolder();
		const workflow = JSON.parse(
			await fs.readFile(path.join(ROOT, 'examples', 'scheduled-database-download.json'), 'utf8'),
		) as WorkflowJson;
		const credentials = allSandboxCredentials(sandbox);
		const served = databaseControls(sandbox).archive('ip-geolocation', 'mmdb');

		const first = await runWorkflow(workflow, { credentials, staticData: {} });
		expect(first.error).toBeUndefined();
		expect(first.output('New build?', 0)).toHaveLength(1);
		expect(first.output('New build?', 1)).toHaveLength(0);
		const [written] = first.output('Write database to disk');
		expect(written.json.fileName).toBe('.n8n-files/svc-ip-geolocation.mmdb');
		const bytes = await fs.readFile(path.join(N8N_FILES_FOLDER, 'svc-ip-geolocation.mmdb'));
		expect(createHash('sha256').update(bytes).digest('hex')).toBe(served.sha256);
		expect(openMmdb(bytes).lookup('81.2.69.160')).toMatchObject({
			city: 'London',
			country_code: 'GB',
		});

		await removeN8nFilesFolder();
		await createN8nFilesFolder();
		const second = await runWorkflow(workflow, { credentials, staticData: first.staticData });
		expect(second.error).toBeUndefined();
		expect(second.output('New build?', 0)).toHaveLength(0);
		expect(second.output('New build?', 1).map((item) => item.json)).toEqual([
			{ database: 'ip-geolocation', format: 'mmdb', sha256: served.sha256, changed: false },
		]);
		expect(second.run.data.resultData.runData['Write database to disk']).toBeUndefined();
		expect(await fs.readdir(N8N_FILES_FOLDER)).toEqual([]);
		expect(sandbox.requests('api')).toHaveLength(2);
	});
});
