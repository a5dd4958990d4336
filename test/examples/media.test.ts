import { promises as fs } from 'fs';
import path from 'path';

import { runWorkflow, type WorkflowJson } from '../harness/run';
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

const DEMO_FOLDER = '/tmp/n8n-abstractapi-demo';

async function example(file: string): Promise<WorkflowJson> {
	return JSON.parse(await fs.readFile(path.join(ROOT, 'examples', file), 'utf8')) as WorkflowJson;
}

/** Runs an example and returns the files its last node wrote, read back from disk. */
async function runExample(file: string, folder: string) {
	await fs.rm(path.join(DEMO_FOLDER, folder), { recursive: true, force: true });
	const workflow = await example(file);
	const result = await runWorkflow(workflow, { credentials: allSandboxCredentials(sandbox) });
	expect(result.error).toBeUndefined();
	const last = workflow.nodes[workflow.nodes.length - 1].name;
	const written = result.output(last).map((item) => String(item.json.fileName));
	const files = await Promise.all(written.map(async (name) => ({ name, bytes: await fs.readFile(name) })));
	return { files, listing: (await fs.readdir(path.join(DEMO_FOLDER, folder))).sort() };
}

describe('Media examples', () => {
	it('new-user-avatar.json writes a 256 x 256 PNG avatar per new user', async () => {
		const { files, listing } = await runExample('new-user-avatar.json', 'avatars');
		expect(listing).toEqual([
			'avatar-Ada-Lovelace.png',
			'avatar-Alan-Turing.png',
			'avatar-Grace-Brewster-Hopper.png',
			'avatar-Katherine-Johnson.png',
		]);
		for (const file of files) {
			expect(path.dirname(file.name)).toBe(path.join(DEMO_FOLDER, 'avatars'));
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
		const { files, listing } = await runExample('page-screenshots.json', 'screenshots');
		expect(listing).toEqual([
			'screenshot-docs.n8n.io.jpeg',
			'screenshot-example.com.jpeg',
			'screenshot-n8n.io.jpeg',
			'screenshot-www.abstractapi.com.jpeg',
		]);
		for (const file of files) expect(imageInfo(file.bytes)).toEqual({ format: 'jpeg', width: 1440, height: 900 });
		expect(sandbox.requests('screenshot')).toHaveLength(4);
	});
});
