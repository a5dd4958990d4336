import { runNode, useBinaryMode } from '../harness/run';
import { sandboxCredential } from '../harness/sandboxCredentials';
import { imageInfo } from '../sandbox/media/imageInfo';
import { startSandbox, type Sandbox } from '../sandbox/server';
import { binaryBytes, picture } from './mediaHelpers';

/**
 * n8n in filesystem binary mode (set once per process, hence a file of its own): the media
 * nodes' items carry a reference to a file, not the bytes in base64, and the file holds exactly
 * what the service sent.
 */
let sandbox: Sandbox;
beforeAll(async () => {
	await useBinaryMode('filesystem');
	sandbox = await startSandbox();
});
afterAll(async () => await sandbox.close());
beforeEach(() => sandbox.reset());

/** What the service answers to the same request, fetched directly. */
async function direct(service: string, query: Record<string, string>): Promise<Buffer> {
	const url = new URL(`${sandbox.baseUrls[service]}/v1/`);
	for (const [name, value] of Object.entries({ ...query, api_key: sandbox.keys[service] }))
		url.searchParams.set(name, value);
	const response = await fetch(url);
	expect(response.status).toBe(200);
	return Buffer.from(await response.arrayBuffer());
}

/** The item references a stored file: an id, the mode name instead of base64, the byte count. */
function expectReference(json: string, bytes: Buffer) {
	expect(json).not.toContain(bytes.subarray(0, 48).toString('base64'));
	expect(json.length).toBeLessThan(1_500);
}

describe('Media nodes in filesystem binary mode', () => {
	it('an avatar item references a file holding exactly the service bytes', async () => {
		const { items, error } = await runNode({
			type: 'abstractAvatars',
			parameters: { name: 'Ada Lovelace', options: { imageSize: 256 } },
			credential: sandboxCredential(sandbox, 'avatars'),
		});
		expect(error).toBeUndefined();
		const binary = items[0].binary!.data;
		expect(binary.id).toMatch(/^filesystem(-v2)?:/);
		expect(binary.data).not.toMatch(/^iVBOR/); // not a base64 PNG
		const bytes = await binaryBytes(items[0]);
		expect(bytes.equals(await direct('avatars', { name: 'Ada Lovelace', image_size: '256' }))).toBe(
			true,
		);
		expect(imageInfo(bytes)).toEqual({ format: 'png', width: 256, height: 256 });
		expectReference(JSON.stringify(items[0]), bytes);
	});

	it('a screenshot item references a file holding exactly the service bytes', async () => {
		const url = 'https://example.com/';
		const { items, error } = await runNode({
			type: 'abstractScreenshot',
			parameters: { url, options: { exportFormat: 'png' } },
			credential: sandboxCredential(sandbox, 'screenshot'),
		});
		expect(error).toBeUndefined();
		expect(items[0].binary!.data.id).toBeDefined();
		const bytes = await binaryBytes(items[0]);
		expect(bytes.equals(await direct('screenshot', { url, export_format: 'png' }))).toBe(true);
		expectReference(JSON.stringify(items[0]), bytes);
	});

	it('an upload reads the input file from disk and the downloaded result is stored as a file', async () => {
		const source = picture('jpeg', 300, 200);
		const { items, error } = await runNode({
			type: 'abstractImages',
			parameters: {
				source: 'binary',
				binaryPropertyName: 'data',
				resizeStrategy: 'exact',
				width: 90,
				height: 60,
				downloadResult: true,
			},
			credential: sandboxCredential(sandbox, 'images'),
			items: [
				{
					json: {},
					binary: { data: { bytes: source, mimeType: 'image/jpeg', fileName: 'in.jpg' } },
				},
			],
		});
		expect(error).toBeUndefined();
		expect(sandbox.requests('images')[0].parts[0]).toMatchObject({
			name: 'image',
			size: source.length,
		});
		expect(items[0].json).toMatchObject({ original_width: 300, original_height: 200 });
		expect(items[0].binary!.data.id).toBeDefined();
		const bytes = await binaryBytes(items[0]);
		const stored = Buffer.from(await (await fetch(String(items[0].json.url))).arrayBuffer());
		expect(bytes.equals(stored)).toBe(true);
		expect(imageInfo(bytes)).toEqual({ format: 'jpeg', width: 90, height: 60 });
		expectReference(JSON.stringify(items[0]), bytes);
	});
});
