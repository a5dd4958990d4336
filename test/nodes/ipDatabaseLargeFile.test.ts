import { randomBytes } from 'crypto';

import { Container } from '@n8n/di';
import { BinaryDataService } from 'n8n-core';

import { craftedArchive, databaseMembers } from '../hostileFiles/craftedArchives';
import { BINARY_MODES, useBinaryMode } from '../harness/run';
import { binaryBytes, downloadSandbox } from './ipDatabaseHelpers';

/**
 * A database file of several megabytes, byte for byte, in both binary modes. The download writes
 * it to n8n's store a megabyte at a time; in filesystem mode a few buffers take turns (the store
 * writes each before it reads the one after next), in memory mode n8n keeps every chunk until the
 * end, so a buffer reused there would show as megabytes repeated in the stored file.
 */
const { db, download } = downloadSandbox();

// Random bytes: every megabyte differs from every other. Not a whole number of megabytes.
const DATABASE = randomBytes(7 * 1024 * 1024 + 12345);
const archive = craftedArchive(databaseMembers('svc-ip-geolocation.mmdb', DATABASE));

describe.each(BINARY_MODES)('IP database download of a large file, %s binary mode', (mode) => {
	beforeAll(async () => await useBinaryMode(mode));

	it.each(['databaseFile', 'archive'])('the %s output is stored byte for byte', async (output) => {
		db().serve(archive);
		const { items, error } = await download(output);
		expect(error).toBeUndefined();
		expect(items).toHaveLength(1);
		expect(Object.keys(items[0].binary ?? {})).toEqual(['data']);
		const binary = items[0].binary!.data;
		const stored =
			mode === 'filesystem'
				? await Container.get(BinaryDataService).getAsBuffer(binary)
				: binaryBytes(items[0]);
		const expected = output === 'archive' ? archive.bytes : DATABASE;
		expect(stored.length).toBe(expected.length);
		expect(stored.equals(expected)).toBe(true);
	});
});
