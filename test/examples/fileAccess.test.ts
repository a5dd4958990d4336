import { promises as fs } from 'fs';
import os from 'os';
import path from 'path';

import {
	createN8nFilesFolder,
	N8N_FILES_FOLDER,
	N8N_WORKING_DIRECTORY,
	removeN8nFilesFolder,
} from '../harness/n8nFiles';
import { ROOT } from '../harness/nodeTypes';
import { runWorkflow, type WorkflowJson } from '../harness/run';
import { allSandboxCredentials } from '../harness/sandboxCredentials';
import { startSandbox, type Sandbox } from '../sandbox/server';

/**
 * The harness writes files as a stock n8n 2.x does (n8n-core's file helpers, default restriction
 * `~/.n8n-files`, no folder created), so an example that passes here passes on a fresh machine
 * where the user made only `~/.n8n-files`, and one that needs more fails here as it would there.
 */
let sandbox: Sandbox;
beforeAll(async () => {
	sandbox = await startSandbox();
});
afterAll(async () => await sandbox.close());

/** examples/new-user-avatar.json with its write step's path (and Continue On Fail) changed. */
async function avatarExample(fileName?: string, continueOnFail = false): Promise<WorkflowJson> {
	const workflow = JSON.parse(
		await fs.readFile(path.join(ROOT, 'examples', 'new-user-avatar.json'), 'utf8'),
	) as WorkflowJson;
	const save = workflow.nodes.find((node) => node.type === 'n8n-nodes-base.readWriteFile');
	if (!save) throw new Error('the avatar example has no write step');
	if (fileName !== undefined) save.parameters.fileName = fileName;
	if (continueOnFail) save.onError = 'continueRegularOutput';
	return workflow;
}

/** What n8n shows under an error's message: the underlying errors' own messages. */
const detail = (error: unknown) =>
	((error as { messages?: string[] } | undefined)?.messages ?? []).join('\n');

const run = async (workflow: WorkflowJson) =>
	await runWorkflow(workflow, { credentials: allSandboxCredentials(sandbox) });

describe('Files written by the examples, as in a stock n8n', () => {
	beforeEach(async () => await removeN8nFilesFolder());

	it('fail at the write step, creating nothing, where the user has not made ~/.n8n-files', async () => {
		const result = await run(await avatarExample());
		// n8n 2.41.1 says the same: "The file or directory does not exist", and the realpath error.
		expect(result.error?.message).toBe('The file or directory does not exist');
		expect(detail(result.error)).toContain(
			`ENOENT: no such file or directory, realpath '${N8N_FILES_FOLDER}'`,
		);
		await expect(fs.access(N8N_FILES_FOLDER)).rejects.toThrow();
	});

	it('land in ~/.n8n-files once it exists, named relative to the working directory', async () => {
		await createN8nFilesFolder();
		const result = await run(await avatarExample());
		expect(result.error).toBeUndefined();
		expect(result.output('Save avatar').map((item) => item.json.fileName)).toEqual([
			'.n8n-files/avatar-Ada-Lovelace.png',
			'.n8n-files/avatar-Grace-Brewster-Hopper.png',
			'.n8n-files/avatar-Alan-Turing.png',
			'.n8n-files/avatar-Katherine-Johnson.png',
		]);
		expect(
			result.output('Save avatar').every((item) => item.binary?.data?.mimeType === 'image/png'),
		).toBe(true);
		expect((await fs.readdir(N8N_FILES_FOLDER)).length).toBe(4);
	});

	it('are not written into a subfolder n8n would have to create', async () => {
		await createN8nFilesFolder();
		const result = await run(
			await avatarExample('=.n8n-files/avatars/{{ $binary.data.fileName }}'),
		);
		expect(result.error?.message).toBe('The file or directory does not exist');
		expect(detail(result.error)).toContain(
			`ENOENT: no such file or directory, realpath '${N8N_FILES_FOLDER}/avatars'`,
		);
		expect(await fs.readdir(N8N_FILES_FOLDER)).toEqual([]);
	});

	it('are refused in an existing folder outside ~/.n8n-files (the home folder, /tmp), with paired error items under Continue On Fail', async () => {
		await createN8nFilesFolder();
		const outside = await fs.mkdtemp(path.join(os.tmpdir(), 'abstract-outside-'));
		try {
			for (const folder of [N8N_WORKING_DIRECTORY, outside]) {
				const stopped = await run(await avatarExample(`=${folder}/{{ $binary.data.fileName }}`));
				expect(stopped.error?.message).toMatch(/is not writable|not allowed/);

				const continued = await run(
					await avatarExample(`=${folder}/{{ $binary.data.fileName }}`, true),
				);
				expect(continued.error).toBeUndefined();
				const items = continued.output('Save avatar');
				expect(items.map((item) => item.pairedItem)).toEqual(
					[0, 1, 2, 3].map((item) => ({ item })),
				);
				expect(
					items.every((item) => /is not writable|not allowed/.test(String(item.json.error))),
				).toBe(true);
			}
			expect(await fs.readdir(outside)).toEqual([]);
			expect(
				(await fs.readdir(N8N_WORKING_DIRECTORY)).filter((name) => name.endsWith('.png')),
			).toEqual([]);
		} finally {
			await fs.rm(outside, { recursive: true, force: true });
		}
	});
});
