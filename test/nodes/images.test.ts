import path from 'path';

import { NodeHelpers } from 'n8n-workflow';
import type { IDataObject, INode, INodeParameters, INodeProperties, INodeType } from 'n8n-workflow';

import { ROOT } from '../harness/nodeTypes';

import { runNode, type InputItem } from '../harness/run';
import { sandboxCredential } from '../harness/sandboxCredentials';
import { imageInfo, isJpeg, isPng } from '../sandbox/media/imageInfo';
import { startSandbox, type Sandbox } from '../sandbox/server';
import { binaryBytes, carriesKey, picture } from './mediaHelpers';

let sandbox: Sandbox;
beforeAll(async () => {
	sandbox = await startSandbox();
});
afterAll(async () => await sandbox.close());
beforeEach(() => sandbox.reset());

const RECORD_FIELDS = [
	'original_size',
	'original_height',
	'original_width',
	'final_size',
	'bytes_saved',
	'final_height',
	'final_width',
	'url',
];

/** A 400 x 300 PNG, the upload source of most tests. */
const SOURCE = picture('png', 400, 300);
const photoItem = (bytes = SOURCE, mimeType = 'image/png', fileName = 'photo.png'): InputItem => ({
	json: {},
	binary: { photo: { bytes, mimeType, fileName } },
});

/** Runs the node at the version a new node gets (2) unless a test asks for a saved workflow's. */
const processImage = (
	parameters: IDataObject,
	extra: {
		items?: InputItem[];
		continueOnFail?: boolean;
		credential?: IDataObject;
		typeVersion?: number;
	} = {},
) =>
	runNode({
		type: 'abstractImages',
		parameters,
		credential: sandboxCredential(sandbox, 'images', extra.credential),
		items: extra.items ?? [{ json: {} }],
		continueOnFail: extra.continueOnFail,
		typeVersion: extra.typeVersion,
	});

const upload = (
	parameters: IDataObject,
	extra: { items?: InputItem[]; continueOnFail?: boolean } = {},
) =>
	processImage(
		{ source: 'binary', binaryPropertyName: 'photo', ...parameters },
		{ items: [photoItem()], ...extra },
	);

/** Every storage-host request so far, checked for any form of the key. */
const storageRequestsCarryingKey = () =>
	sandbox.requests('storage').filter((entry) => carriesKey(entry, sandbox.keys.images));

describe('Image processing', () => {
	it('sends a URL source as JSON with the key in the body and returns the 2.8 record, paired', async () => {
		const url = 'https://cdn.example.com/pictures/team.jpg';
		const { items, error } = await processImage({
			source: 'url',
			url,
			options: { lossy: true, quality: 80 },
		});
		expect(error).toBeUndefined();
		const [request] = sandbox.requests('images');
		expect(request.method).toBe('POST');
		expect(request.path).toBe('/v1/url/');
		expect(request.headers['content-type']).toMatch(/^application\/json/);
		expect(request.headers.authorization).toBeUndefined();
		expect(request.query).toEqual({});
		expect(request.fields).toEqual({ url, lossy: true, quality: 80, api_key: sandbox.keys.images });

		expect(items).toHaveLength(1);
		expect(Object.keys(items[0].json)).toEqual(RECORD_FIELDS);
		expect(items[0].json).toMatchObject({
			final_width: items[0].json.original_width,
			final_height: items[0].json.original_height,
		});
		expect(String(items[0].json.url)).toMatch(new RegExp(`^${sandbox.storageUrl}/processed/`));
		expect(items[0].binary).toBeUndefined();
		expect(items[0].pairedItem).toEqual({ item: 0 });
	});

	// Every resize field is set each time: only the strategy's own keys may travel.
	const everyResizeField = {
		width: 200,
		height: 100,
		size: 50,
		scale: 50,
		cropMode: 'ne',
		background: '#ff8800',
	};
	it.each([
		['exact', { width: 200, height: 100 }, [200, 100]],
		['portrait', { height: 100 }, [133, 100]],
		['landscape', { width: 200 }, [200, 150]],
		['auto', { width: 200, height: 100 }, [200, 150]],
		['fit', { width: 200, height: 100, crop_mode: 'ne' }, [200, 100]],
		['crop', { width: 200, height: 100, scale: 50, crop_mode: 'ne' }, [100, 50]],
		['square', { size: 50 }, [50, 50]],
		['fill', { width: 200, height: 100, background: 'rgb(255, 136, 0)' }, [200, 100]],
	])(
		'strategy %s sends exactly its keys and gets the dimensions of the contract',
		async (strategy, keys, [width, height]) => {
			const { items, error } = await upload({ resizeStrategy: strategy, ...everyResizeField });
			expect(error).toBeUndefined();
			const [request] = sandbox.requests('images');
			expect(request.fields.resize).toEqual({ strategy, ...keys });
			expect(items[0].json).toMatchObject({
				original_width: 400,
				original_height: 300,
				final_width: width,
				final_height: height,
			});
		},
	);

	it.each([
		['none', []],
		['exact', ['width', 'height']],
		['portrait', ['height']],
		['landscape', ['width']],
		['auto', ['width', 'height']],
		['fit', ['width', 'height', 'cropMode']],
		['crop', ['width', 'height', 'scale', 'cropMode']],
		['square', ['size']],
		['fill', ['width', 'height', 'background']],
	])('the editor shows strategy %s exactly its keys', (strategy, keys) => {
		// eslint-disable-next-line @typescript-eslint/no-require-imports
		const { AbstractImages } = require(
			path.join(ROOT, 'dist/nodes/AbstractImages/AbstractImages.node.js'),
		) as {
			AbstractImages: new () => INodeType;
		};
		const { description } = new AbstractImages();
		const shown = NodeHelpers.getNodeParameters(
			description.properties,
			{ source: 'url', resizeStrategy: strategy },
			true,
			false,
			{ typeVersion: 2 } as INode,
			description,
		);
		const resizeFields = ['width', 'height', 'size', 'scale', 'cropMode', 'background'];
		expect(Object.keys(shown ?? {}).filter((name) => resizeFields.includes(name))).toEqual(keys);
	});

	it('uploads a binary property as multipart (image part and JSON data part holding the key) end to end', async () => {
		const { items, error } = await upload({ options: { lossy: false, quality: 70 } });
		expect(error).toBeUndefined();
		const [request] = sandbox.requests('images');
		expect(request.path).toBe('/v1/upload/');
		expect(request.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
		expect(request.parts).toEqual([
			{ name: 'image', fileName: 'photo.png', contentType: 'image/png', size: SOURCE.length },
			{ name: 'data', size: expect.any(Number) },
		]);
		expect(request.fields).toEqual({ lossy: false, quality: 70, api_key: sandbox.keys.images });
		expect(request.query).toEqual({});
		expect(request.headers.authorization).toBeUndefined();
		expect(items[0].json).toMatchObject({
			original_size: SOURCE.length,
			original_width: 400,
			original_height: 300,
		});
	});

	it('downloads the processed image from its link without the key: exactly its bytes, typed and named', async () => {
		const { items, error } = await upload({
			resizeStrategy: 'square',
			size: 64,
			downloadResult: true,
		});
		expect(error).toBeUndefined();
		const record = items[0].json;
		expect(Object.keys(record)).toEqual(RECORD_FIELDS);
		const bytes = await binaryBytes(items[0], 'photo');
		expect(isPng(bytes)).toBe(true);
		expect(imageInfo(bytes)).toEqual({ format: 'png', width: 64, height: 64 });
		expect(bytes.length).toBe(record.final_size);
		expect(items[0].binary?.photo).toMatchObject({ mimeType: 'image/png', fileName: 'photo.png' });

		const storage = sandbox.requests('storage');
		expect(storage).toHaveLength(1);
		expect(storage[0].path).toBe(new URL(String(record.url)).pathname);
		expect(storageRequestsCarryingKey()).toEqual([]);
		const stored = Buffer.from(await (await fetch(String(record.url))).arrayBuffer());
		expect(bytes.equals(stored)).toBe(true);
	});

	it('processes an image the service fetches from a URL, with its real dimensions, and downloads the result', async () => {
		const jpeg = picture('jpeg', 320, 240);
		const first = await upload({}, { items: [photoItem(jpeg, 'image/jpeg', 'holiday.jpg')] });
		const sourceUrl = String(first.items[0].json.url);
		sandbox.reset();

		const { items, error } = await processImage({
			source: 'url',
			url: sourceUrl,
			resizeStrategy: 'landscape',
			width: 160,
			outputBinaryPropertyName: 'small',
			downloadResult: true,
		});
		expect(error).toBeUndefined();
		// The source is the first run's processed image, as stored: its size and real dimensions.
		expect(items[0].json).toMatchObject({
			original_size: first.items[0].json.final_size,
			original_width: 320,
			original_height: 240,
			final_width: 160,
			final_height: 120,
		});
		const bytes = await binaryBytes(items[0], 'small');
		expect(isJpeg(bytes)).toBe(true);
		expect(imageInfo(bytes)).toEqual({ format: 'jpeg', width: 160, height: 120 });
		expect(items[0].binary?.small).toMatchObject({
			mimeType: 'image/jpeg',
			fileName: 'holiday.jpg',
		});
		expect(storageRequestsCarryingKey()).toEqual([]);
	});

	it('turns the colour picker hex and rgb() expressions into the service rgb(r, g, b) form', async () => {
		await processImage(
			{
				source: 'url',
				url: 'https://cdn.example.com/a.png',
				resizeStrategy: 'fill',
				width: 10,
				height: 10,
				background: '={{ $json.bg }}',
			},
			{
				items: [{ json: { bg: '#abc' } }, { json: { bg: 'rgb(0,128,255)' } }, { json: { bg: '' } }],
			},
		);
		expect(
			sandbox.requests('images').map((entry) => (entry.fields.resize as IDataObject).background),
		).toEqual(['rgb(170, 187, 204)', 'rgb(0, 128, 255)', undefined]);
	});

	describe('Download Result by node version', () => {
		const typeOfPackage = () => {
			// eslint-disable-next-line @typescript-eslint/no-require-imports
			const { AbstractImages } = require(
				path.join(ROOT, 'dist/nodes/AbstractImages/AbstractImages.node.js'),
			) as {
				AbstractImages: new () => INodeType;
			};
			return new AbstractImages().description;
		};
		/** The top-level parameters the editor shows, by label, and the values n8n saves, for a version. */
		const editor = (typeVersion: number, json: IDataObject) => {
			const description = typeOfPackage();
			const node = { typeVersion } as INode;
			// The tests write parameter sets as JSON; n8n's helpers type them as parameter values.
			const values = json as INodeParameters;
			const saved =
				NodeHelpers.getNodeParameters(
					description.properties,
					values,
					false,
					false,
					node,
					description,
				) ?? {};
			const resolved =
				NodeHelpers.getNodeParameters(
					description.properties,
					values,
					true,
					false,
					node,
					description,
				) ?? {};
			const labels = description.properties
				.filter(
					(property) =>
						property.name in resolved &&
						NodeHelpers.displayParameter(resolved, property, node, description),
				)
				.map((property) => property.displayName);
			return { labels, saved };
		};

		it('a new node is version 2; the editor shows Put Output File in Field only with Download Result on', () => {
			expect(typeOfPackage()).toMatchObject({ version: [1, 2], defaultVersion: 2 });
			expect(editor(2, { source: 'url' }).labels).toEqual([
				'Source',
				'Image URL',
				'Download Result',
				'Resize Strategy',
				'Options',
			]);
			const on = editor(2, {
				source: 'url',
				downloadResult: true,
				outputBinaryPropertyName: 'small',
			});
			expect(on.labels).toEqual([
				'Source',
				'Image URL',
				'Download Result',
				'Put Output File in Field',
				'Resize Strategy',
				'Options',
			]);
			// n8n keeps the field's value when it saves the workflow (it dropped it when the switch was an option).
			expect(on.saved).toMatchObject({ downloadResult: true, outputBinaryPropertyName: 'small' });
			expect(editor(2, { source: 'binary', downloadResult: true }).labels).toEqual([
				'Source',
				'Input Binary Field',
				'Download Result',
				'Resize Strategy',
				'Options',
			]);
		});

		it('version 1 keeps its layout: Put Output File in Field for every URL source, Download Result an option', () => {
			const description = typeOfPackage();
			expect(editor(1, { source: 'url' }).labels).toEqual([
				'Source',
				'Image URL',
				'Put Output File in Field',
				'Resize Strategy',
				'Options',
			]);
			const saved = editor(1, {
				source: 'url',
				binaryPropertyName: 'small',
				options: { downloadResult: true },
			}).saved;
			expect(saved).toMatchObject({
				binaryPropertyName: 'small',
				options: { downloadResult: true },
			});
			expect(saved).not.toHaveProperty('downloadResult');
			const v1Options = description.properties.find(
				(property) =>
					property.name === 'options' &&
					NodeHelpers.displayParameter({}, property, { typeVersion: 1 } as INode, description),
			)!;
			expect((v1Options.options as INodeProperties[]).map((option) => option.name)).toEqual([
				'downloadResult',
				'estimateOnly',
				'lossy',
				'quality',
				'reuseAnswersForHours',
				'reuseTestRunAnswers',
				'sendRepeatsOnce',
			]);
		});

		it('version 2 without Download Result returns the record only, and never touches the stored image', async () => {
			const { items, error } = await processImage({
				source: 'url',
				url: 'https://cdn.example.com/a.png',
				outputBinaryPropertyName: 'small',
			});
			expect(error).toBeUndefined();
			expect(Object.keys(items[0].json)).toEqual(RECORD_FIELDS);
			expect(items[0].binary).toBeUndefined();
			expect(sandbox.requests('storage')).toHaveLength(0);
		});

		it('a saved version 1 workflow with the Download Result option still downloads, into its field', async () => {
			const { items, error } = await processImage(
				{
					source: 'url',
					url: 'https://cdn.example.com/b.png',
					binaryPropertyName: 'small',
					resizeStrategy: 'square',
					size: 48,
					options: { downloadResult: true },
				},
				{ typeVersion: 1 },
			);
			expect(error).toBeUndefined();
			const bytes = await binaryBytes(items[0], 'small');
			expect(imageInfo(bytes)).toEqual({ format: 'png', width: 48, height: 48 });
			expect(sandbox.requests('storage')).toHaveLength(1);
			expect(storageRequestsCarryingKey()).toEqual([]);
		});

		it('version 1 without the option does not download', async () => {
			const { items, error } = await processImage(
				{ source: 'url', url: 'https://cdn.example.com/b.png' },
				{ typeVersion: 1 },
			);
			expect(error).toBeUndefined();
			expect(items[0].binary).toBeUndefined();
			expect(sandbox.requests('storage')).toHaveLength(0);
		});
	});

	const viaUrl = { source: 'url', url: 'https://cdn.example.com/a.jpg' };
	it.each([
		['quality 101', { ...viaUrl, options: { quality: 101 } }, 'Quality (quality)'],
		[
			'exact without height',
			{ ...viaUrl, resizeStrategy: 'exact', width: 100, height: 0 },
			'Height (height)',
		],
		[
			'crop without width',
			{ ...viaUrl, resizeStrategy: 'crop', width: '', height: 100 },
			'Width (width)',
		],
		['square with size 0', { ...viaUrl, resizeStrategy: 'square', size: 0 }, 'Size (size)'],
		[
			'a width that is not whole',
			{ ...viaUrl, resizeStrategy: 'landscape', width: 12.5 },
			'Width (width)',
		],
		[
			'a negative scale',
			{ ...viaUrl, resizeStrategy: 'crop', width: 10, height: 10, scale: -5 },
			'Scale (scale)',
		],
		[
			'an unknown crop mode',
			{ ...viaUrl, resizeStrategy: 'fit', width: 10, height: 10, cropMode: 'middle' },
			'Crop Mode (cropMode)',
		],
		[
			'fill with rgb(300,0,0)',
			{ ...viaUrl, resizeStrategy: 'fill', width: 10, height: 10, background: 'rgb(300,0,0)' },
			'Background (background)',
		],
		['a URL without protocol', { source: 'url', url: 'cdn.example.com/a.jpg' }, 'Image URL (url)'],
		[
			'a binary property the item lacks',
			{ source: 'binary', binaryPropertyName: 'image' },
			'Input Binary Field (binaryPropertyName)',
		],
	])('rejects %s before any request, naming the field', async (_case, parameters, field) => {
		const { error, items } = await processImage(parameters, { items: [photoItem()] });
		expect(items).toHaveLength(0);
		expect(error?.message).toContain(`Invalid ${field}`);
		expect(sandbox.requests('images')).toHaveLength(0);
	});

	it('names the binary properties an item has when the one asked for is missing', async () => {
		const { error } = await processImage(
			{ source: 'binary', binaryPropertyName: 'image' },
			{ items: [photoItem()] },
		);
		expect(error?.message).toContain(
			'the input item has no binary property "image" (it has: photo)',
		);
	});

	it('retries a 503 and succeeds with exactly one extra request', async () => {
		sandbox.inject('images', { kind: 'status', status: 503 });
		const { items, error } = await upload({ resizeStrategy: 'square', size: 32 });
		expect(error).toBeUndefined();
		expect(items[0].json.final_width).toBe(32);
		expect(sandbox.requests('images').map((entry) => entry.status)).toEqual([503, 200]);
	});

	it('with Continue On Fail turns a bad item into a paired error item and processes the others', async () => {
		const urls = ['https://cdn.example.com/1.jpg', 'not a url', 'https://cdn.example.com/3.png'];
		const { items, error } = await processImage(
			{ source: 'url', url: '={{ $json.url }}' },
			{ items: urls.map((url) => ({ json: { url } })), continueOnFail: true },
		);
		expect(error).toBeUndefined();
		expect(items).toHaveLength(3);
		expect(items[1].json.error).toContain('Invalid Image URL (url)');
		expect(items.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
		expect(Object.keys(items[0].json)).toEqual(RECORD_FIELDS);
		expect(Object.keys(items[2].json)).toEqual(RECORD_FIELDS);
		expect(sandbox.requests('images').map((entry) => entry.fields.url)).toEqual([urls[0], urls[2]]);
	});

	it('keeps the key out of a 401 and a 400 (a source the service cannot fetch), message, description and output', async () => {
		const wrongKey = 'sbx_wrong_images_key_77777777';
		const refused = await processImage(
			{ source: 'url', url: 'https://cdn.example.com/a.jpg' },
			{ credential: { apiKey: wrongKey } },
		);
		expect(refused.error?.message).toContain('The API key was rejected (401)');
		expect(`${refused.error?.message} ${refused.error?.description}`).not.toContain(wrongKey);

		const missing = `${sandbox.storageUrl}/nothing/here.png`;
		const failed = await processImage({ source: 'url', url: missing });
		expect(sandbox.requests('images').at(-1)?.status).toBe(400);
		expect(failed.error?.message).toContain('(400)');
		expect(failed.error?.description).toContain('could not be fetched');
		expect(`${failed.error?.message} ${failed.error?.description}`).not.toContain(
			sandbox.keys.images,
		);

		const continued = await processImage({ source: 'url', url: missing }, { continueOnFail: true });
		expect(continued.items[0].json.error).toContain('(400)');
		expect(JSON.stringify(continued.items)).not.toContain(sandbox.keys.images);
	});
});
