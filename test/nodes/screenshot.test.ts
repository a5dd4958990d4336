import type { IDataObject } from 'n8n-workflow';

import { runNode } from '../harness/run';
import { sandboxCredential } from '../harness/sandboxCredentials';
import { imageInfo, isJpeg, isPng } from '../sandbox/media/imageInfo';
import { startSandbox, type Sandbox } from '../sandbox/server';
import { DEFAULT_VIEWPORT, pageOverflowOf } from '../sandbox/services/screenshot';
import { binaryBytes } from './mediaHelpers';

let sandbox: Sandbox;
beforeAll(async () => {
	sandbox = await startSandbox();
});
afterAll(async () => await sandbox.close());
beforeEach(() => sandbox.reset());

const capture = (
	parameters: Record<string, unknown>,
	extra: { urls?: string[]; continueOnFail?: boolean; credential?: IDataObject } = {},
) =>
	runNode({
		type: 'abstractScreenshot',
		parameters: { url: '={{ $json.url }}', ...parameters },
		credential: sandboxCredential(sandbox, 'screenshot', extra.credential),
		items: (extra.urls ?? ['https://example.com/pricing']).map((url) => ({ json: { url } })),
		continueOnFail: extra.continueOnFail,
	});

describe('Website screenshot', () => {
	it('sends only the url by default and returns the full page as a JPEG described beside it', async () => {
		const { items, error } = await capture({});
		expect(error).toBeUndefined();
		const requests = sandbox.requests('screenshot');
		expect(requests).toHaveLength(1);
		expect(requests[0].path).toBe('/v1/');
		expect(requests[0].query).toEqual({
			url: 'https://example.com/pricing',
			api_key: sandbox.keys.screenshot,
		});

		const bytes = await binaryBytes(items[0]);
		expect(isJpeg(bytes)).toBe(true);
		const height = DEFAULT_VIEWPORT.height + pageOverflowOf('https://example.com/pricing');
		expect(imageInfo(bytes)).toEqual({ format: 'jpeg', width: DEFAULT_VIEWPORT.width, height });
		expect(items[0].binary?.data).toMatchObject({
			mimeType: 'image/jpeg',
			fileName: 'screenshot-example.com.jpeg',
		});
		expect(items[0].json).toEqual({
			url: 'https://example.com/pricing',
			width: DEFAULT_VIEWPORT.width,
			height,
			format: 'jpeg',
			fileName: 'screenshot-example.com.jpeg',
			mimeType: 'image/jpeg',
			bytes: bytes.length,
		});
	});

	it('sends all seven options under the service names and returns a PNG of the viewport asked for', async () => {
		const { items, error } = await capture({
			binaryPropertyName: 'page',
			options: {
				captureFullPage: false,
				width: 800,
				height: 600,
				delay: 2,
				cssInjection: '.cookie-banner { display: none; }',
				userAgent: 'Mozilla/5.0 (n8n test)',
				exportFormat: 'png',
				timeout: 30,
			},
		});
		expect(error).toBeUndefined();
		expect(sandbox.requests('screenshot')[0].query).toEqual({
			url: 'https://example.com/pricing',
			capture_full_page: 'false',
			width: '800',
			height: '600',
			delay: '2',
			css_injection: '.cookie-banner { display: none; }',
			user_agent: 'Mozilla/5.0 (n8n test)',
			export_format: 'png',
			api_key: sandbox.keys.screenshot,
		});
		const bytes = await binaryBytes(items[0], 'page');
		expect(isPng(bytes)).toBe(true);
		expect(imageInfo(bytes)).toEqual({ format: 'png', width: 800, height: 600 });
		expect(items[0].binary?.page).toMatchObject({
			mimeType: 'image/png',
			fileName: 'screenshot-example.com.png',
		});
		expect(items[0].json).toMatchObject({ width: 800, height: 600, format: 'png' });
	});

	it('names each file by the host and pairs each item', async () => {
		const urls = ['http://docs.example.org/a?x=1', 'https://shop.example.net:8443/'];
		const { items } = await capture(
			{ options: { captureFullPage: false, width: 320, height: 200 } },
			{ urls },
		);
		expect(items.map((item) => item.binary?.data.fileName)).toEqual([
			'screenshot-docs.example.org.jpeg',
			'screenshot-shop.example.net.jpeg',
		]);
		expect(items.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }]);
		for (const item of items)
			expect(imageInfo(await binaryBytes(item))).toEqual({
				format: 'jpeg',
				width: 320,
				height: 200,
			});
	});

	it.each([
		['a URL without protocol', ['example.com'], {}, 'URL (url)'],
		['a URL of another protocol', ['ftp://example.com/'], {}, 'URL (url)'],
		['a width of 0', undefined, { width: 0 }, 'Viewport Width (width)'],
		['a negative delay', undefined, { delay: -1 }, 'Delay (delay)'],
		[
			'an export format the service lacks',
			undefined,
			{ exportFormat: 'gif' },
			'Export Format (exportFormat)',
		],
		['a timeout of 0', undefined, { timeout: 0 }, 'Timeout (timeout)'],
	])('rejects %s before any request, naming the field', async (_case, urls, options, field) => {
		const { error, items } = await capture({ options }, { urls });
		expect(items).toHaveLength(0);
		expect(error?.message).toContain(`Invalid ${field}`);
		expect(sandbox.requests('screenshot')).toHaveLength(0);
	});

	it('says clearly that the protocol is missing', async () => {
		const { error } = await capture({}, { urls: ['example.com'] });
		expect(error?.message).toBe(
			'Invalid URL (url): must be a full address starting with http:// or https://, got "example.com"',
		);
	});

	it('retries a dropped connection and succeeds with exactly one extra request', async () => {
		sandbox.inject('screenshot', { kind: 'drop' });
		const { items, error } = await capture({ options: { captureFullPage: false } });
		expect(error).toBeUndefined();
		expect(isJpeg(await binaryBytes(items[0]))).toBe(true);
		const log = sandbox.requests('screenshot');
		expect(log).toHaveLength(2);
		expect(log.map((entry) => entry.fault ?? entry.status)).toEqual(['drop', 200]);
	});

	it('gives up after the timeout the user set, without retrying a capture that may be charged', async () => {
		sandbox.inject('screenshot', { kind: 'delay', ms: 2500 });
		const { error } = await capture({ options: { timeout: 1 } });
		expect(error?.message).toMatch(/in time/);
		expect(sandbox.requests('screenshot')).toHaveLength(1);
	});

	it('with Continue On Fail turns a bad URL into a paired error item and captures the others', async () => {
		const urls = ['https://a.example.com/', 'www.example.com', 'https://b.example.com/'];
		const { items, error } = await capture(
			{ options: { captureFullPage: false } },
			{ urls, continueOnFail: true },
		);
		expect(error).toBeUndefined();
		expect(items).toHaveLength(3);
		expect(items[1].json.error).toContain('Invalid URL (url)');
		expect(items[1].pairedItem).toEqual({ item: 1 });
		expect(items[0].binary?.data.fileName).toBe('screenshot-a.example.com.jpeg');
		expect(items[2].binary?.data.fileName).toBe('screenshot-b.example.com.jpeg');
		expect(sandbox.requests('screenshot').map((entry) => entry.query.url)).toEqual([
			urls[0],
			urls[2],
		]);
	});

	it('keeps the key out of a 401 error and out of the service 400 for a page it cannot load', async () => {
		const wrongKey = 'sbx_wrong_screenshot_key_42424242';
		const rejected = await capture({}, { credential: { apiKey: wrongKey } });
		expect(rejected.error?.message).toContain('The API key was rejected (401)');
		expect(`${rejected.error?.message} ${rejected.error?.description}`).not.toContain(wrongKey);

		const failed = await capture(
			{},
			{ urls: ['https://unreachable.invalid/'], continueOnFail: true },
		);
		expect(sandbox.requests('screenshot').at(-1)?.status).toBe(400);
		expect(failed.items[0].json.error).toContain('(400)');
		expect(failed.items[0].json.description).toContain('could not be loaded');
		expect(JSON.stringify(failed.items)).not.toContain(sandbox.keys.screenshot);
	});
});
