import { promises as fs } from 'fs';
import path from 'path';

import { parse as oracleParse } from 'csv-parse/sync';

import {
	createN8nFilesFolder,
	N8N_WORKING_DIRECTORY,
	removeN8nFilesFolder,
} from '../harness/n8nFiles';
import { ROOT } from '../harness/nodeTypes';
import { runWorkflow, type WorkflowJson } from '../harness/run';
import { allSandboxCredentials } from '../harness/sandboxCredentials';
import { startSandbox, type Sandbox } from '../sandbox/server';
import { placeStoredInputs, STORED_INPUTS } from '../sandbox/storedInputs';

/**
 * examples/ip-lookup-log-result-file.json through n8n-core: the geolocation database downloaded,
 * a web log read from storage (~/.n8n-files/access-log.csv, put there as the demo and test:e2e
 * put it), every line's client looked up (Database Node empty: the download before it), and the
 * result file written back beside the log.
 */
let sandbox: Sandbox;
beforeAll(async () => {
	sandbox = await startSandbox();
});
afterAll(async () => {
	await removeN8nFilesFolder();
	await sandbox.close();
});

describe('Web log lookup example', () => {
	it('downloads the database once, looks every line up with no request of its own, and stores one result file', async () => {
		const workflow = JSON.parse(
			await fs.readFile(path.join(ROOT, 'examples', 'ip-lookup-log-result-file.json'), 'utf8'),
		) as WorkflowJson;
		await removeN8nFilesFolder();
		await createN8nFilesFolder();
		expect(await placeStoredInputs(workflow, N8N_WORKING_DIRECTORY)).toEqual([
			path.join(N8N_WORKING_DIRECTORY, '.n8n-files', 'access-log.csv'),
		]);
		const result = await runWorkflow(workflow, { credentials: allSandboxCredentials(sandbox) });
		expect(result.error).toBeUndefined();
		// The download's link request and its file: nothing for the lookups.
		expect(sandbox.log.map((entry) => entry.service)).toEqual(['api', 'storage']);

		const log = oracleParse(STORED_INPUTS['access-log.csv']) as string[][];
		const [summary] = result.output('IP Database Lookup');
		expect(summary.json).toMatchObject({
			rows: log.length - 1,
			answered: log.length - 1,
			nextRow: null,
			lookups: new Set(log.slice(1).map((line) => line[1])).size,
		});

		const [saved] = result.output('Save result file');
		expect(saved.json.fileName).toBe('.n8n-files/access-log-results.csv');
		const [header, ...rows] = oracleParse(
			await fs.readFile(
				path.join(N8N_WORKING_DIRECTORY, '.n8n-files', 'access-log-results.csv'),
				'utf8',
			),
		) as string[][];
		expect(header.slice(0, 7)).toEqual([...log[0], 'ip_address', 'city']);
		expect(header.slice(-4)).toEqual(['found', 'reason', 'other_fields', 'status']);
		const column = (name: string) => rows.map((row) => row[header.indexOf(name)]);
		expect(rows.map((row) => row.slice(0, 5))).toEqual(log.slice(1));
		expect(column('city')).toEqual([
			'London',
			'Mountain View',
			'London',
			'Linköping',
			'',
			'Washington, D.C.',
			'London',
			'',
			'Mountain View',
			'Seoul',
			'Linköping',
			'London',
		]);
		expect(column('country_code')).toEqual([
			'GB',
			'US',
			'GB',
			'SE',
			'',
			'US',
			'GB',
			'FR',
			'US',
			'KR',
			'SE',
			'GB',
		]);
		expect(column('found')).toEqual(['', '', '', '', 'false', '', '', '', '', '', '', '']);
		expect(new Set(column('status'))).toEqual(new Set(['ok']));
	});
});
