import { promises as fs } from 'fs';
import path from 'path';

import { runWorkflow, type WorkflowJson } from '../harness/run';
import {
	createN8nFilesFolder,
	N8N_FILES_FOLDER,
	removeN8nFilesFolder,
	resolveFromWorkingDirectory,
} from '../harness/n8nFiles';
import { ROOT } from '../harness/nodeTypes';
import { allSandboxCredentials } from '../harness/sandboxCredentials';
import { imageInfo } from '../sandbox/media/imageInfo';
import { startSandbox, type Sandbox } from '../sandbox/server';

/** The media examples as saved in examples/, run through n8n-core against the sandbox. */
let sandbox: Sandbox;
beforeAll(async () => {
	sandbox = await startSandbox();
});
afterAll(async () => await sandbox.close());
beforeEach(() => sandbox.reset());

async function example(file: string): Promise<WorkflowJson> {
	return JSON.parse(await fs.readFile(path.join(ROOT, 'examples', file), 'utf8')) as WorkflowJson;
}

/**
 * Runs an example in a fresh `~/.n8n-files` (made first, as a user has to) and returns the files
 * its last node wrote, read back from disk.
 */
async function runExample(file: string) {
	await removeN8nFilesFolder();
	await createN8nFilesFolder();
	const workflow = await example(file);
	const result = await runWorkflow(workflow, { credentials: allSandboxCredentials(sandbox) });
	expect(result.error).toBeUndefined();
	const last = workflow.nodes[workflow.nodes.length - 1].name;
	const written = result.output(last).map((item) => String(item.json.fileName));
	const files = await Promise.all(
		written.map(async (name) => ({
			name,
			path: resolveFromWorkingDirectory(name),
			bytes: await fs.readFile(resolveFromWorkingDirectory(name)),
		})),
	);
	return { files, listing: (await fs.readdir(N8N_FILES_FOLDER)).sort() };
}

describe('Media examples', () => {
	it('new-user-avatar.json writes a 256 x 256 PNG avatar per new user', async () => {
		const { files, listing } = await runExample('new-user-avatar.json');
		expect(listing).toEqual([
			'avatar-Ada-Lovelace.png',
			'avatar-Alan-Turing.png',
			'avatar-Grace-Brewster-Hopper.png',
			'avatar-Katherine-Johnson.png',
		]);
		for (const file of files) {
			expect(path.dirname(file.name)).toBe('.n8n-files');
			expect(path.dirname(file.path)).toBe(N8N_FILES_FOLDER);
			expect(imageInfo(file.bytes)).toEqual({ format: 'png', width: 256, height: 256 });
		}
		expect(sandbox.requests('avatars').map((entry) => entry.query.name)).toEqual([
			'Ada Lovelace',
			'Grace Brewster Hopper',
			'Alan Turing',
			'Katherine Johnson',
		]);
	});

	it('page-screenshots.json writes a 1440 x 900 JPEG per page', async () => {
		const { files, listing } = await runExample('page-screenshots.json');
		expect(listing).toEqual([
			'screenshot-docs.n8n.io.jpeg',
			'screenshot-example.com.jpeg',
			'screenshot-n8n.io.jpeg',
			'screenshot-www.abstractapi.com.jpeg',
		]);
		for (const file of files)
			expect(imageInfo(file.bytes)).toEqual({ format: 'jpeg', width: 1440, height: 900 });
		expect(sandbox.requests('screenshot')).toHaveLength(4);
	});
});
