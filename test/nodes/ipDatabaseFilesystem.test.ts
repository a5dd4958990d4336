import { Container } from '@n8n/di';
import { BinaryDataService } from 'n8n-core';

import { useBinaryMode } from '../harness/run';
import { downloadSandbox } from './ipDatabaseHelpers';

/** n8n's filesystem binary mode: the archive is streamed to a file, the item holds a reference. */
beforeAll(async () => await useBinaryMode('filesystem'));
const { db, download } = downloadSandbox();

describe('IP database download in filesystem binary mode', () => {
	it.each(['archive', 'databaseFile'])(
		'the %s item carries a reference to the stored file, not base64',
		async (output) => {
			const { items, error } = await download(output);
			expect(error).toBeUndefined();
			const binary = items[0].binary!.data;
			const served = db().archive('ip-geolocation', 'mmdb');
			const expected = output === 'archive' ? served.bytes : served.databaseFile!;
			expect(binary.id).toMatch(/^filesystem(-v2)?:/);
			expect(binary.data).toMatch(/^filesystem/);
			expect(binary.bytes).toBe(expected.length);
			const stored = await Container.get(BinaryDataService).getAsBuffer(binary);
			expect(stored.equals(expected)).toBe(true);
		},
	);

	it('a corrupted archive ends in an error and no item, in this mode too', async () => {
		db().failNextDownload('corrupted');
		const { items, error } = await download('archive');
		expect(items).toEqual([]);
		expect(error?.message).toMatch(/svc-ip-geolocation\.tar\.gz is broken/);
	});
});
