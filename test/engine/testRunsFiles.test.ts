import { Container } from '@n8n/di';
import { BinaryDataService } from 'n8n-core';

import { sandboxWithEmptyStore } from '../harness/keptStore';
import { newWorkflowId } from '../harness/retryOnFail';
import { BINARY_MODES, runNode, useBinaryMode } from '../harness/run';
import { sandboxCredential } from '../harness/sandboxCredentials';
import { binaryBytes, SMALL_DOWNLOAD } from '../nodes/mediaHelpers';

/**
 * A test run that reuses a file (an avatar) gives the next node a file it can read, in each of
 * n8n's binary modes (memory: the files in the items; filesystem: in n8n's store); a file n8n no
 * longer has is not reused, the request is sent, unless the file was fetched for free (a processed
 * image's download): then only the file is fetched again. The estimate counts each as the run does.
 */
const sandbox = sandboxWithEmptyStore();

const names = ['Ada Lovelace', 'Grace Hopper', 'Ada Lovelace'];

const avatars = (workflowId: string) =>
	runNode({
		type: 'abstractAvatars',
		parameters: { name: '={{ $json.name }}', options: { imageSize: 128 } },
		credential: sandboxCredential(sandbox(), 'avatars'),
		items: names.map((name) => ({ json: { name } })),
		workflowId,
	});

type AvatarsRun = Awaited<ReturnType<typeof avatars>>;

const bytesOf = async (run: AvatarsRun) =>
	await Promise.all(run.items.map(async (item) => await binaryBytes(item)));

/** n8n deletes the run's files (`data`, or another binary property): as pruning an execution does. */
const deleteFilesOf = async (run: { items: AvatarsRun['items'] }, property = 'data') =>
	await Container.get(BinaryDataService).deleteManyByBinaryDataId(
		run.items.map((item) => item.binary![property].id!),
	);

/** Image Processing of two images, each result downloaded into `small` (fetched for free). */
const images = (workflowId: string, options = {}) =>
	runNode({
		type: 'abstractImages',
		parameters: { ...SMALL_DOWNLOAD, options },
		credential: sandboxCredential(sandbox(), 'images'),
		items: ['a', 'b'].map((name) => ({ json: { url: `https://cdn.example.com/${name}.png` } })),
		workflowId,
	});

/** A workflow whose Image Processing test run downloaded files n8n has deleted since; nothing sent yet. */
async function imagesWhoseFilesAreGone(): Promise<string> {
	const workflowId = newWorkflowId('test-run-files');
	const first = await images(workflowId);
	expect(first.error).toBeUndefined();
	await deleteFilesOf(first, 'small');
	sandbox().reset();
	return workflowId;
}

/** Two test runs of one workflow, the second with nothing sent in between. */
async function twoTestRuns(): Promise<[AvatarsRun, AvatarsRun]> {
	const workflowId = newWorkflowId('test-run-files');
	const first = await avatars(workflowId);
	expect(first.error).toBeUndefined();
	expect(sandbox().requests('avatars')).toHaveLength(2);
	sandbox().reset();
	return [first, await avatars(workflowId)];
}

describe.each(BINARY_MODES)('%s binary mode', (mode) => {
	beforeAll(async () => await useBinaryMode(mode));

	it('the second test run sends nothing, and its files hold the same bytes', async () => {
		const [first, second] = await twoTestRuns();
		// The mode is the one asked for: n8n's store holds the file (an id), or the item does.
		expect(first.items.map((item) => item.binary!.data.id !== undefined)).toEqual(
			names.map(() => mode === 'filesystem'),
		);
		expect(second.error).toBeUndefined();
		expect(sandbox().requests('avatars')).toHaveLength(0);
		expect(second.items.map((item) => item.pairedItem)).toEqual(names.map((_, item) => ({ item })));
		expect(second.items.map((item) => item.json)).toEqual(first.items.map((item) => item.json));
		expect(await bytesOf(second)).toEqual(await bytesOf(first));
	});
});

describe('filesystem binary mode, where n8n keeps each execution its own files', () => {
	beforeAll(async () => await useBinaryMode('filesystem'));

	/** A run that reuses both images, processing none: it downloads `downloads` files and gives both. */
	async function reusesImages(workflowId: string, downloads: number): Promise<void> {
		const run = await images(workflowId);
		expect(run.error).toBeUndefined();
		expect(sandbox().requests('images')).toHaveLength(0);
		expect(sandbox().requests('storage')).toHaveLength(downloads);
		for (const item of run.items)
			expect((await binaryBytes(item, 'small')).length).toBeGreaterThan(0);
		sandbox().reset();
	}

	it('an Image Processing answer whose downloaded file n8n has deleted is reused: the file is downloaded again, the image not processed again', async () => {
		await reusesImages(await imagesWhoseFilesAreGone(), 2);
	});

	it('the estimate counts an Image Processing answer whose downloaded file n8n has deleted as reused, as the run reuses it', async () => {
		const workflowId = await imagesWhoseFilesAreGone();
		// The files were fetched for free: the run downloads them again and processes nothing.
		const estimate = await images(workflowId, { estimateOnly: true });
		expect(estimate.error).toBeUndefined();
		expect(estimate.items[0].json).toMatchObject({ requestsToSend: 0, notSent: { reused: 2 } });
		expect(sandbox().requests('storage')).toHaveLength(0);
		await reusesImages(workflowId, 2);
	});

	it('an Image Processing answer whose file was downloaded again keeps that file: the run after it downloads nothing', async () => {
		const workflowId = await imagesWhoseFilesAreGone();
		await reusesImages(workflowId, 2);
		await reusesImages(workflowId, 0);
	});

	it("the second test run's files are stored again: they outlive the first run's", async () => {
		const [first, second] = await twoTestRuns();
		const before = await bytesOf(first);
		for (const [index, item] of second.items.entries()) {
			const { id, ...described } = item.binary!.data;
			expect(id).not.toBe(first.items[index].binary!.data.id);
			// Only where it is stored changed: named, typed and sized as the first run's.
			expect({ ...described, id: first.items[index].binary!.data.id }).toEqual(
				first.items[index].binary!.data,
			);
		}
		await deleteFilesOf(first);
		expect(await bytesOf(second)).toEqual(before);
	});

	it('the estimate counts a kept answer whose file n8n has deleted as a request, as the run sends it', async () => {
		const workflowId = newWorkflowId('test-run-files');
		const first = await avatars(workflowId);
		await deleteFilesOf(first);
		sandbox().reset();
		const estimate = await runNode({
			type: 'abstractAvatars',
			parameters: { name: '={{ $json.name }}', options: { imageSize: 128, estimateOnly: true } },
			credential: sandboxCredential(sandbox(), 'avatars'),
			items: names.map((name) => ({ json: { name } })),
			workflowId,
		});
		expect(estimate.error).toBeUndefined();
		expect(estimate.items[0].json).toMatchObject({ requestsToSend: 2, notSent: { reused: 0 } });
		// The estimate stored nothing and dropped nothing: the run finds the same and sends as it said.
		await avatars(workflowId);
		expect(sandbox().requests('avatars')).toHaveLength(2);
	});

	it('a kept answer whose file n8n has deleted is not reused: the request is sent', async () => {
		const workflowId = newWorkflowId('test-run-files');
		const first = await avatars(workflowId);
		expect(first.error).toBeUndefined();
		await deleteFilesOf(first);
		sandbox().reset();
		const second = await avatars(workflowId);
		expect(second.error).toBeUndefined();
		expect(sandbox().requests('avatars')).toHaveLength(2);
		expect(await bytesOf(second)).toHaveLength(3);
	});
});
