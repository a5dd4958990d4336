import { readdirSync, readlinkSync } from 'fs';

import { Container } from '@n8n/di';
import { BinaryDataConfig } from 'n8n-core';

import { useBinaryMode } from '../harness/run';
import { startSandbox, type Sandbox } from '../sandbox/server';
import { csvItem, leadsCsv, runEmailCsv } from '../nodes/csvHelpers';
import { carrying, lasting } from './errorOutputMatrix';

/**
 * A run that stops on a failed row (On Error "Stop Workflow") leaves no file open behind it. In
 * filesystem binary mode the node reads a file's rows from a read stream of n8n's binary store as
 * it sends them; a run stopped mid-file must close that stream, not leave it suspended with its
 * file descriptor open (n8n's process would keep one per stopped execution). The files this
 * process holds open are read from /proc/self/fd, as the kernel sees them.
 */
let sandbox: Sandbox;
beforeAll(async () => {
	await useBinaryMode('filesystem');
	sandbox = await startSandbox();
});
afterAll(async () => await sandbox.close());
beforeEach(() => sandbox.reset());

/** Files under n8n's binary store that this process holds open. */
function openStoreFiles(): string[] {
	const store = Container.get(BinaryDataConfig).localStoragePath;
	const open: string[] = [];
	for (const fd of readdirSync('/proc/self/fd')) {
		try {
			const target = readlinkSync(`/proc/self/fd/${fd}`);
			if (target.startsWith(store)) open.push(target);
		} catch {
			// Closed between the listing and the read.
		}
	}
	return open;
}

/** Store files opened since `before` and still open once closing has had its turn (a stream closes its descriptor asynchronously). */
async function stillOpenSince(before: string[]): Promise<string[]> {
	const opened = () => openStoreFiles().filter((file) => !before.includes(file));
	for (let tries = 0; tries < 100 && opened().length > 0; tries++)
		await new Promise((resolve) => setTimeout(resolve, 20));
	return opened();
}

describe('a run stopped by a failed row, in filesystem binary mode', () => {
	it('closes the file it was reading rows from, mid-file', async () => {
		const count = 20_000;
		const csv = leadsCsv(count);
		// Many stream chunks of 64 KiB: the failed row is in the first, the rest is never read.
		expect(Buffer.byteLength(csv)).toBeGreaterThan(8 * 64 * 1024);
		const before = openStoreFiles();
		sandbox.faultWhen('email', carrying('lead10@example.com'), lasting(400));
		const { error } = await runEmailCsv({ sandbox, items: [csvItem(csv)] });
		expect(error?.message).toMatch(/row 11/);
		// The run stopped well before the end of the file: it was still being read.
		expect(sandbox.requests('email').length).toBeLessThan(count / 10);
		expect(await stillOpenSince(before)).toEqual([]);
	});

	it('a run to the end of its file leaves none open either', async () => {
		const before = openStoreFiles();
		const { error, items } = await runEmailCsv({ sandbox, items: [csvItem(leadsCsv(50))] });
		expect(error).toBeUndefined();
		expect(items).toHaveLength(50);
		expect(await stillOpenSince(before)).toEqual([]);
	});
});
