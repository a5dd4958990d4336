import { promises as fs } from 'fs';
import os from 'os';
import path from 'path';

import type { LoggedRequest } from '../sandbox/types';
import { cliRunnable, workflowId, type Example, type Workflow } from '../../scripts/n8n/examples';
import { signatureProblem } from '../../scripts/n8n/fileSignatures';
import { checkRun, parseExecution, type ExecutionOutput } from '../../scripts/n8n/runChecks';

/**
 * The pure logic of `npm run test:e2e` (no n8n here: the e2e itself installs and runs it): the
 * checks it makes of a run must pass on a good run and fail, naming the cause, on a bad one.
 */

const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');
const JPEG = Buffer.concat([
	Buffer.from('ffd8ffe0', 'hex'),
	Buffer.alloc(20),
	Buffer.from('ffd9', 'hex'),
]);

describe('file signatures', () => {
	it('accepts the formats the package writes and rejects what is not', () => {
		expect(signatureProblem(PNG, 'image/png')).toBeUndefined();
		expect(signatureProblem(JPEG, 'x.jpeg')).toBeUndefined();
		expect(
			signatureProblem(
				Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"></svg>\n'),
				'image/svg+xml',
			),
		).toBeUndefined();
		expect(signatureProblem(Buffer.from('1f8b0800', 'hex'), 'svc.tar.gz')).toBeUndefined();
		expect(
			signatureProblem(
				Buffer.concat([Buffer.alloc(10), Buffer.from('\xab\xcd\xefMaxMind.com', 'latin1')]),
				'x.mmdb',
			),
		).toBeUndefined();
		expect(
			signatureProblem(Buffer.from('network,country\n1.0.0.0/24,AU\n'), 'text/csv'),
		).toBeUndefined();

		expect(signatureProblem(JPEG.subarray(0, -2), 'image/jpeg')).toMatch(/not JPEG/);
		expect(signatureProblem(JPEG, 'image/png')).toMatch(/not PNG/);
		expect(signatureProblem(PNG, 'x.tar.gz')).toMatch(/not gzip/);
		expect(signatureProblem(Buffer.alloc(0), 'image/png')).toBe('the file is empty');
		expect(signatureProblem(Buffer.from('anything'), 'application/octet-stream')).toBeUndefined();
	});
});

describe('examples for the CLI', () => {
	const node = (name: string, type: string) => ({
		name,
		type,
		typeVersion: 1,
		position: [0, 0] as [number, number],
		parameters: { rule: {} },
	});
	const example = (nodes: Workflow['nodes']): Example => ({
		file: 'x.json',
		id: workflowId('x.json'),
		workflow: { name: 'X', nodes, connections: {} },
	});

	it('gives ids n8n execute accepts (at most 21 characters), stable and distinct per file', () => {
		expect(workflowId('scheduled-database-download.json').length).toBeLessThanOrEqual(21);
		expect(workflowId('a.json')).toBe(workflowId('a.json'));
		expect(workflowId('a.json')).not.toBe(workflowId('b.json'));
	});

	it('runs a manual workflow as it is and a scheduled one from a Manual Trigger of the same name', () => {
		const manual = example([node('Start', 'n8n-nodes-base.manualTrigger')]);
		expect(cliRunnable(manual)).toEqual({ workflow: { ...manual.workflow, id: manual.id } });

		const scheduled = cliRunnable(
			example([
				node('Every Monday', 'n8n-nodes-base.scheduleTrigger'),
				node('Next', 'n8n-nodes-base.if'),
			]),
		);
		expect(scheduled?.workflow.nodes.map((n) => [n.name, n.type])).toEqual([
			['Every Monday', 'n8n-nodes-base.manualTrigger'],
			['Next', 'n8n-nodes-base.if'],
		]);
		expect(scheduled?.workflow.id).not.toBe(workflowId('x.json'));
		expect(scheduled?.note).toMatch(/Every Monday/);

		expect(cliRunnable(example([node('Hook', 'n8n-nodes-base.webhook')]))).toBeUndefined();
	});
});

describe('checks of a run', () => {
	let folder: string;
	beforeAll(async () => {
		folder = await fs.mkdtemp(path.join(os.tmpdir(), 'e2e-checks-'));
		await fs.mkdir(path.join(folder, '.n8n', 'storage', 'bin'), { recursive: true });
		await fs.writeFile(path.join(folder, '.n8n', 'storage', 'bin', 'one'), PNG);
		await fs.writeFile(path.join(folder, 'avatar.png'), PNG);
	});
	afterAll(async () => await fs.rm(folder, { recursive: true, force: true }));

	const workflow: Workflow = {
		name: 'Avatars',
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
				name: 'Avatar',
				type: 'n8n-nodes-abstractapi.abstractAvatars',
				typeVersion: 1,
				position: [0, 0],
				parameters: {},
				credentials: { abstractAvatarsApi: { id: 'sandbox-abstractAvatarsApi', name: 'x' } },
			},
			{
				name: 'Save',
				type: 'n8n-nodes-base.readWriteFile',
				typeVersion: 1,
				position: [0, 0],
				parameters: { operation: 'write' },
			},
		],
	};
	const binary = {
		data: {
			mimeType: 'image/png',
			fileName: 'avatar.png',
			id: 'filesystem-v2:bin/one',
			bytes: PNG.length,
		},
	};
	const execution = (avatarItems = 2): ExecutionOutput => ({
		status: 'success',
		data: {
			resultData: {
				runData: {
					Start: [
						{ executionIndex: 0, source: [], data: { main: [[{ json: {} }, { json: {} }]] } },
					],
					Avatar: [
						{
							executionIndex: 1,
							source: [{ previousNode: 'Start' }],
							data: {
								main: [
									Array.from({ length: avatarItems }, () => ({ json: { name: 'Ada' }, binary })),
								],
							},
						},
					],
					Save: [
						{
							executionIndex: 2,
							source: [{ previousNode: 'Avatar' }],
							data: { main: [[{ json: { fileName: path.join(folder, 'avatar.png') }, binary }]] },
						},
					],
				},
			},
		},
	});
	const request = (service: string, status = 200, more: Partial<LoggedRequest> = {}) =>
		({
			service,
			status,
			method: 'GET',
			path: '/v1/',
			query: {},
			headers: {},
			keyPlaces: ['query'],
			...more,
		}) as unknown as LoggedRequest;
	const context = (overrides: Partial<Parameters<typeof checkRun>[2]> = {}) => ({
		stdout: '{}',
		execution: execution(),
		log: [request('avatars'), request('avatars')],
		keys: ['sbx_avatars_secret'],
		startedAt: Date.now() - 60_000,
		userFolder: folder,
		packageName: 'n8n-nodes-abstractapi',
		...overrides,
	});
	const example: Example = { file: 'new-user-avatar.json', id: 'ex1', workflow };

	it('passes a good run and prints its item counts in the order the nodes ran', async () => {
		const check = await checkRun(example, workflow, context());
		expect(check.problems).toEqual([]);
		expect(check.summary.split('\n')[0]).toBe(
			'ok     new-user-avatar.json: Start 2, Avatar 2, Save 1',
		);
		expect(check.summary).toMatch(
			/requests: avatars 2; binaries checked: 1; files written: .*avatar\.png \(16 B\)/,
		);
	});

	it('fails when the sandbox did not get one request per input item, or answered an error', async () => {
		const extra = await checkRun(
			example,
			workflow,
			context({ log: [request('avatars'), request('avatars'), request('avatars')] }),
		);
		expect(extra.problems).toEqual([
			'the sandbox got 3 avatars request(s), expected one per input item (per row of a CSV file): 2',
		]);
		const refused = await checkRun(
			example,
			workflow,
			context({ log: [request('avatars'), request('avatars', 401)] }),
		);
		expect(refused.problems).toEqual(['1 avatars request(s) were answered 401']);
		const stray = await checkRun(
			example,
			workflow,
			context({ log: [request('avatars'), request('avatars'), request('email')] }),
		);
		expect(stray.problems).toEqual(['requests to services no node of the workflow uses: email']);
	});

	it("fails when a request carries the key in more places than one, or its form's name", async () => {
		const twice = await checkRun(
			example,
			workflow,
			context({
				log: [request('avatars'), request('avatars', 200, { keyPlaces: ['query', 'bearer'] })],
			}),
		);
		expect(twice.problems).toEqual(['1 avatars request(s) carried the key in 2 places, not one']);
		const named = await checkRun(
			example,
			workflow,
			context({
				log: [request('avatars'), request('avatars', 200, { query: { requestForm: 'x' } })],
			}),
		);
		expect(named.problems).toEqual([
			'avatars: a request carried the name of its form to the service',
		]);
	});

	it('expects one request per row, not per input item, from a node that reads a CSV file', async () => {
		const csvWorkflow: Workflow = {
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
					parameters: { input: 'csvFile', binaryPropertyName: 'data', emailColumn: 'email' },
					credentials: { abstractEmailApi: { id: 'sandbox-abstractEmailApi', name: 'sandbox' } },
				},
			],
		};
		const rows = [
			{ json: { email_address: 'a@b.io', csvRow: { number: 2 } } },
			{ json: { email_address: 'c@d.io', csvRow: { number: 3 } } },
		];
		const run: ExecutionOutput = {
			status: 'success',
			data: {
				resultData: {
					runData: {
						Start: [{ executionIndex: 0, source: [], data: { main: [[{ json: {} }]] } }],
						Emails: [
							{ executionIndex: 1, source: [{ previousNode: 'Start' }], data: { main: [rows] } },
						],
					},
				},
			},
		};
		const csvExample: Example = { file: 'bulk.json', id: 'ex2', workflow: csvWorkflow };
		const ok = await checkRun(
			csvExample,
			csvWorkflow,
			context({ execution: run, log: [request('email'), request('email')] }),
		);
		expect(ok.problems).toEqual([]);
		const short = await checkRun(
			csvExample,
			csvWorkflow,
			context({ execution: run, log: [request('email')] }),
		);
		expect(short.problems).toEqual([
			'the sandbox got 1 email request(s), expected one per input item (per row of a CSV file): 2',
		]);
	});

	it('fails on a failed run, a key in the output or at the storage host, and a missing or wrong binary', async () => {
		const failed = execution();
		failed.status = 'error';
		failed.data.resultData.error = { message: 'The key was rejected', node: { name: 'Avatar' } };
		expect((await checkRun(example, workflow, context({ execution: failed }))).problems).toEqual([
			'the run did not succeed (status error): Avatar: The key was rejected',
		]);
		expect(
			(await checkRun(example, workflow, context({ stdout: '{"x":"sbx_avatars_secret"}' })))
				.problems,
		).toEqual(['an API key appears in the run data']);
		const leak = { ...request('storage'), query: { api_key: 'sbx_avatars_secret' } };
		expect(
			(
				await checkRun(
					example,
					workflow,
					context({ log: [request('avatars'), request('avatars'), leak] }),
				)
			).problems,
		).toEqual(['an API key reached the storage host (GET /v1/)']);

		const wrong = execution();
		wrong.data.resultData.runData.Avatar[0].data!.main![0]![0].binary = {
			data: { ...binary.data, id: 'filesystem-v2:bin/none' },
		};
		expect(
			(await checkRun(example, workflow, context({ execution: wrong }))).problems.join('\n'),
		).toMatch(/n8n has no file for it/);
		const jpegClaim = execution();
		for (const item of jpegClaim.data.resultData.runData.Avatar[0].data!.main![0]!)
			item.binary = { data: { ...binary.data, mimeType: 'image/jpeg' } };
		expect(
			(await checkRun(example, workflow, context({ execution: jpegClaim }))).problems.join('\n'),
		).toMatch(/image\/jpeg: its bytes are not JPEG/);
	});

	it('fails when a written file is older than the run', async () => {
		const check = await checkRun(example, workflow, context({ startedAt: Date.now() + 60_000 }));
		expect(check.problems.join('\n')).toMatch(/avatar\.png was not written by this run/);
	});

	it("finds a file written under a relative name in n8n's home folder (its working directory), and misses it elsewhere", async () => {
		const relative = execution();
		relative.data.resultData.runData.Save[0].data!.main![0]![0].json.fileName = 'avatar.png';
		expect((await checkRun(example, workflow, context({ execution: relative }))).problems).toEqual(
			[],
		);
		const elsewhere = execution();
		elsewhere.data.resultData.runData.Save[0].data!.main![0]![0].json.fileName =
			'.n8n-files/avatar.png';
		expect(
			(await checkRun(example, workflow, context({ execution: elsewhere }))).problems.join('\n'),
		).toMatch(/says it wrote .*\.n8n-files\/avatar\.png, but: ENOENT/);
	});

	it("takes the run's JSON from after n8n's log lines", () => {
		const output = parseExecution(
			'n8n Task Broker ready on 127.0.0.1\nLegacy key not found\n{\n  "data": {"resultData": {"runData": {}}},\n  "status": "success"\n}\n',
		);
		expect(output.status).toBe('success');
		const followed = parseExecution(
			'{\n  "data": {"resultData": {"runData": {}}},\n  "status": "success"\n}\nn8n Task Runner stopped\n{"level":"info"}\n',
		);
		expect(followed.status).toBe('success');
		expect(() => parseExecution('Error executing workflow.')).toThrow(/no run data/);
	});
});
