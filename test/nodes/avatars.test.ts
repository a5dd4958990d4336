import type { IDataObject } from 'n8n-workflow';

import { runNode } from '../harness/run';
import { sandboxCredential } from '../harness/sandboxCredentials';
import { imageInfo, isPng, isSvg } from '../sandbox/media/imageInfo';
import { startSandbox, type Sandbox } from '../sandbox/server';
import { binaryBytes } from './mediaHelpers';

let sandbox: Sandbox;
beforeAll(async () => {
	sandbox = await startSandbox();
});
afterAll(async () => await sandbox.close());
beforeEach(() => sandbox.reset());

const avatar = (
	parameters: Record<string, unknown>,
	extra: { names?: string[]; continueOnFail?: boolean; credential?: IDataObject } = {},
) =>
	runNode({
		type: 'abstractAvatars',
		parameters: { name: '={{ $json.name }}', ...parameters },
		credential: sandboxCredential(sandbox, 'avatars', extra.credential),
		items: (extra.names ?? ['Ada Lovelace']).map((name) => ({ json: { name } })),
		continueOnFail: extra.continueOnFail,
	});

describe('Avatars', () => {
	it('sends only the name by default and returns a 128 x 128 PNG described beside it', async () => {
		const { items, error } = await avatar({});
		expect(error).toBeUndefined();
		const requests = sandbox.requests('avatars');
		expect(requests).toHaveLength(1);
		expect(requests[0].path).toBe('/v1/');
		expect(requests[0].query).toEqual({ name: 'Ada Lovelace', api_key: sandbox.keys.avatars });

		const bytes = await binaryBytes(items[0]);
		expect(isPng(bytes)).toBe(true);
		expect(imageInfo(bytes)).toEqual({ format: 'png', width: 128, height: 128 });
		expect(items[0].binary?.data).toMatchObject({
			mimeType: 'image/png',
			fileName: 'avatar-Ada-Lovelace.png',
		});
		expect(items[0].json).toEqual({
			name: 'Ada Lovelace',
			size: 128,
			format: 'png',
			fileName: 'avatar-Ada-Lovelace.png',
			mimeType: 'image/png',
			bytes: bytes.length,
		});
		expect(items[0].pairedItem).toEqual({ item: 0 });
	});

	it('sends every option under the service name, strips the colour picker # and answers an SVG of the size', async () => {
		const { items, error } = await avatar({
			binaryPropertyName: 'picture',
			options: {
				imageSize: 200,
				imageFormat: 'svg',
				fontSize: 0.5,
				charLimit: 3,
				backgroundColor: '#FF8800',
				fontColor: '#000',
				isRounded: true,
				isUppercase: false,
				isItalic: true,
				isBold: true,
			},
		});
		expect(error).toBeUndefined();
		expect(sandbox.requests('avatars')[0].query).toEqual({
			name: 'Ada Lovelace',
			image_size: '200',
			image_format: 'svg',
			font_size: '0.5',
			char_limit: '3',
			background_color: 'ff8800',
			font_color: '000',
			is_rounded: 'true',
			is_uppercase: 'false',
			is_italic: 'true',
			is_bold: 'true',
			api_key: sandbox.keys.avatars,
		});
		const bytes = await binaryBytes(items[0], 'picture');
		expect(isSvg(bytes)).toBe(true);
		expect(imageInfo(bytes)).toEqual({ format: 'svg', width: 200, height: 200 });
		expect(bytes.toString()).toContain('>ALd</text>');
		expect(items[0].binary?.picture).toMatchObject({
			mimeType: 'image/svg+xml',
			fileName: 'avatar-Ada-Lovelace.svg',
		});
		expect(items[0].json).toMatchObject({
			format: 'svg',
			size: 200,
			fileName: 'avatar-Ada-Lovelace.svg',
			mimeType: 'image/svg+xml',
		});
	});

	it('returns a PNG of the requested size for each item, paired', async () => {
		const { items } = await avatar(
			{ options: { imageSize: 64 } },
			{ names: ['Grace Hopper', 'Émile Zola'] },
		);
		expect(items).toHaveLength(2);
		for (const [index, item] of items.entries()) {
			expect(imageInfo(await binaryBytes(item))).toEqual({ format: 'png', width: 64, height: 64 });
			expect(item.pairedItem).toEqual({ item: index });
		}
		expect(items.map((item) => item.binary?.data.fileName)).toEqual([
			'avatar-Grace-Hopper.png',
			'avatar-Emile-Zola.png',
		]);
	});

	it.each([
		['image size 5', { imageSize: 5 }, 'Image Size (imageSize)'],
		['image size 513', { imageSize: 513 }, 'Image Size (imageSize)'],
		['font size 1.5', { fontSize: 1.5 }, 'Font Size (fontSize)'],
		[
			'a background colour that is not hex',
			{ backgroundColor: 'zzz' },
			'Background Color (backgroundColor)',
		],
		['a font colour of five digits', { fontColor: '#12345' }, 'Font Color (fontColor)'],
		['a character limit of 0', { charLimit: 0 }, 'Character Limit (charLimit)'],
		['an image format the service lacks', { imageFormat: 'gif' }, 'Image Format (imageFormat)'],
	])('rejects %s before any request, naming the field', async (_case, options, field) => {
		const { error, items } = await avatar({ options });
		expect(items).toHaveLength(0);
		expect(error?.message).toContain(`Invalid ${field}`);
		expect(sandbox.requests('avatars')).toHaveLength(0);
	});

	it('rejects an empty name before any request', async () => {
		const { error } = await avatar({}, { names: ['  '] });
		expect(error?.message).toContain('Invalid Name (name)');
		expect(sandbox.requests('avatars')).toHaveLength(0);
	});

	it('retries a 429 once and succeeds with exactly one extra request', async () => {
		sandbox.inject('avatars', { kind: 'status', status: 429, retryAfter: 0 });
		const { items, error } = await avatar({});
		expect(error).toBeUndefined();
		expect(items).toHaveLength(1);
		expect(sandbox.requests('avatars').map((entry) => entry.status)).toEqual([429, 200]);
	});

	it('paces to the credential rate, so a rate-limited plan draws no 429', async () => {
		sandbox.limitRate('avatars', 3);
		const { items, error } = await avatar(
			{},
			{ names: ['A B', 'C D', 'E F', 'G H', 'I J'], credential: { requestsPerSecond: 3 } },
		);
		expect(error).toBeUndefined();
		expect(items).toHaveLength(5);
		expect(sandbox.requests('avatars').map((entry) => entry.status)).toEqual([
			200, 200, 200, 200, 200,
		]);
	});

	it('with Continue On Fail turns a bad item into a paired error item and runs the others', async () => {
		const { items, error } = await avatar(
			{},
			{ names: ['Ada Lovelace', '', 'Alan Turing'], continueOnFail: true },
		);
		expect(error).toBeUndefined();
		expect(items).toHaveLength(3);
		expect(items[1].json.error).toContain('Invalid Name (name)');
		expect(items[1].pairedItem).toEqual({ item: 1 });
		expect(items[1].binary).toBeUndefined();
		expect(items[0].binary?.data.fileName).toBe('avatar-Ada-Lovelace.png');
		expect(items[2].binary?.data.fileName).toBe('avatar-Alan-Turing.png');
		expect(sandbox.requests('avatars')).toHaveLength(2);
	});

	it('keeps the key out of a 401 error and out of a 400 whose service message echoes the request', async () => {
		const wrongKey = 'sbx_wrong_avatars_key_0123456789';
		const rejected = await avatar({}, { credential: { apiKey: wrongKey } });
		expect(rejected.error?.message).toContain('The API key was rejected (401)');
		expect(`${rejected.error?.message} ${rejected.error?.description}`).not.toContain(wrongKey);

		// A name without a letter or digit passes the node (it is not empty) and the service
		// refuses it with a message quoting the request, key included.
		const refused = await avatar({}, { names: ['!!!'] });
		expect(sandbox.requests('avatars').at(-1)?.status).toBe(400);
		expect(refused.error?.message).toContain('(400)');
		expect(refused.error?.description).toContain('[redacted]');
		expect(`${refused.error?.message} ${refused.error?.description}`).not.toContain(
			sandbox.keys.avatars,
		);

		const continued = await avatar({}, { names: ['!!!', 'Ada Lovelace'], continueOnFail: true });
		expect(continued.items[0].json.error).toContain('(400)');
		expect(JSON.stringify(continued.items.map((item) => item.json))).not.toContain(
			sandbox.keys.avatars,
		);
	});
});
