import { Container } from '@n8n/di';
import { BinaryDataService } from 'n8n-core';

import { newWorkflowId } from '../harness/retryOnFail';
import { runNode } from '../harness/run';
import { sandboxCredential } from '../harness/sandboxCredentials';
import { binaryBytes } from '../nodes/mediaHelpers';
import type { Sandbox } from '../sandbox/server';

/**
 * A test run that reuses a file (an avatar) gives the next node a file it can read, in the
 * binary mode the process runs (memory or filesystem: each a test file of its own, as n8n's mode
 * is set once per process); a file n8n no longer has is not reused, the request is sent.
 */

const names = ['Ada Lovelace', 'Grace Hopper', 'Ada Lovelace'];

const avatars = (sandbox: Sandbox, workflowId: string) =>
	runNode({
		type: 'abstractAvatars',
		parameters: { name: '={{ $json.name }}', options: { imageSize: 128 } },
		credential: sandboxCredential(sandbox, 'avatars'),
		items: names.map((name) => ({ json: { name } })),
		workflowId,
	});

const bytesOf = async (run: Awaited<ReturnType<typeof avatars>>) =>
	await Promise.all(run.items.map(async (item) => await binaryBytes(item)));

const deleteFilesOf = async (run: Awaited<ReturnType<typeof avatars>>) =>
	await Container.get(BinaryDataService).deleteManyByBinaryDataId(
		run.items.map((item) => item.binary!.data.id!),
	);

/**
 * Two test runs of one workflow: the second sends nothing, and its files hold the first one's
 * bytes; in filesystem mode they are stored again, so they outlive the first run's files.
 */
export async function expectSecondTestRunReusesFiles(
	sandbox: Sandbox,
	mode: 'memory' | 'filesystem',
): Promise<void> {
	const workflowId = newWorkflowId('test-run-files');
	const first = await avatars(sandbox, workflowId);
	expect(first.error).toBeUndefined();
	expect(sandbox.requests('avatars')).toHaveLength(2);
	sandbox.reset();
	const second = await avatars(sandbox, workflowId);
	expect(second.error).toBeUndefined();
	expect(sandbox.requests('avatars')).toHaveLength(0);
	expect(second.items.map((item) => item.pairedItem)).toEqual(names.map((_, item) => ({ item })));
	expect(second.items.map((item) => item.json)).toEqual(first.items.map((item) => item.json));
	const before = await bytesOf(first);
	expect(await bytesOf(second)).toEqual(before);
	if (mode === 'filesystem') {
		// Stored again for the second execution: its files outlive the first one's.
		for (const [index, item] of second.items.entries())
			expect(item.binary!.data.id).not.toBe(first.items[index].binary!.data.id);
		await deleteFilesOf(first);
		expect(await bytesOf(second)).toEqual(before);
	}
}

/** A kept answer whose file n8n has deleted is not reused: the second test run sends its requests. */
export async function expectDeletedFileSentAgain(sandbox: Sandbox): Promise<void> {
	const workflowId = newWorkflowId('test-run-files');
	const first = await avatars(sandbox, workflowId);
	expect(first.error).toBeUndefined();
	await deleteFilesOf(first);
	sandbox.reset();
	const second = await avatars(sandbox, workflowId);
	expect(second.error).toBeUndefined();
	expect(sandbox.requests('avatars')).toHaveLength(2);
	expect(await bytesOf(second)).toHaveLength(3);
}
