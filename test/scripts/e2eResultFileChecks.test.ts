import { promises as fs } from 'fs';
import os from 'os';
import path from 'path';

import type { LoggedRequest } from '../sandbox/types';
import type { Example, Workflow } from '../../scripts/n8n/examples';
import { checkRun, type ExecutionOutput } from '../../scripts/n8n/runChecks';

/**
 * `npm run test:e2e`'s request count for a node with Output "Result File": one item per file, but
 * one request per row of it, counted by the summary's `rows` (the example's values are distinct).
 */
describe('checks of a run with a result file', () => {
	let folder: string;
	beforeAll(async () => (folder = await fs.mkdtemp(path.join(os.tmpdir(), 'e2e-result-file-'))));
	afterAll(async () => await fs.rm(folder, { recursive: true, force: true }));

	const workflow: Workflow = {
		name: 'Bulk',
		connections: {},
		nodes: [
			{
				name: 'Start',
				type: 'n8n-nodes-base.manualTrigger',
				typeVersion: 1,
				position: [0, 0],
				parameters: {},
			},
			{
				name: 'Emails',
				type: 'n8n-nodes-abstractapi.abstractEmail',
				typeVersion: 1,
				position: [0, 0],
				parameters: {
					input: 'csvFile',
					binaryPropertyName: 'data',
					emailColumn: 'email',
					output: 'resultFile',
				},
				credentials: { abstractEmailApi: { id: 'sandbox-abstractEmailApi', name: 'sandbox' } },
			},
		],
	};
	const run: ExecutionOutput = {
		status: 'success',
		data: {
			resultData: {
				runData: {
					Start: [{ executionIndex: 0, source: [], data: { main: [[{ json: {} }]] } }],
					Emails: [
						{
							executionIndex: 1,
							source: [{ previousNode: 'Start' }],
							data: { main: [[{ json: { rows: 3, answered: 3 } }]] },
						},
					],
				},
			},
		},
	};
	const request = () =>
		({
			service: 'email',
			status: 200,
			method: 'POST',
			path: '/v1/',
			query: {},
			headers: {},
			keyPlaces: ['bearer'],
		}) as unknown as LoggedRequest;
	const example: Example = { file: 'bulk.json', id: 'ex', workflow };
	const check = async (requests: number) =>
		await checkRun(example, workflow, {
			stdout: '{}',
			execution: run,
			log: Array.from({ length: requests }, request),
			keys: ['sbx_email_secret'],
			startedAt: Date.now() - 60_000,
			userFolder: folder,
			packageName: 'n8n-nodes-abstractapi',
		});

	it('expects one request per row of the file, though the node outputs one item', async () => {
		expect((await check(3)).problems).toEqual([]);
		expect((await check(1)).problems).toEqual([
			'the sandbox got 1 email request(s), expected one per input item (per row of a CSV file): 3',
		]);
	});
});
