import http from 'http';
import type { AddressInfo } from 'net';

import FormData from 'form-data';

import { sendHandBuilt } from './harness/httpRequestNode';
import { startSandbox, type Sandbox } from './sandbox/server';

/**
 * Options of n8n's HTTP Request node a person sets beyond its bodies: its Proxy option, and the
 * multipart body it builds from version 4.2 on (a `form-data` instance, not the plain map of parts
 * of older versions, which httpRequestNode.test.ts sends).
 */
let sandbox: Sandbox;
let proxy: http.Server;
let proxyUrl = '';
const throughProxy: string[] = [];

beforeAll(async () => {
	sandbox = await startSandbox();
	// A forward proxy a person points the node at: it logs what it is given, and answers itself.
	proxy = http.createServer((req, res) => {
		let body = '';
		req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
		req.on('end', () => {
			throughProxy.push(`${req.method} ${req.url} ${JSON.stringify(req.headers)} ${body}`);
			res.writeHead(200, { 'content-type': 'application/json' });
			res.end('{}');
		});
	});
	await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
	proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
});
afterAll(async () => {
	await sandbox.close();
	await new Promise((resolve) => proxy.close(resolve));
});
beforeEach(() => {
	sandbox.reset();
	throughProxy.length = 0;
});

const credential = (service: string) => ({
	apiKey: sandbox.keys[service],
	baseUrl: sandbox.baseUrls[service],
});

describe("n8n's HTTP Request node with its Proxy option set", () => {
	it('gives the key to no proxy: the request is refused before it is sent', async () => {
		const run = await sendHandBuilt(
			{
				credentialType: 'abstractIbanApi',
				method: 'GET',
				uri: `${sandbox.baseUrls.iban}/v1/`,
				qs: { iban: 'BE71096123456769' },
				proxy: proxyUrl,
			},
			credential('iban'),
		);
		for (const arrival of throughProxy) expect(arrival).not.toContain(sandbox.keys.iban);
		expect(throughProxy).toEqual([]);
		expect(run.error?.message).toMatch(/proxy/i);
	});
});

describe("n8n's HTTP Request node's multipart body (a form-data instance from version 4.2 on)", () => {
	it('is refused before it is sent, saying why and what uploads instead', async () => {
		const parts = new FormData();
		parts.append('data', JSON.stringify({ lossy: true }));
		const run = await sendHandBuilt(
			{
				credentialType: 'abstractImagesApi',
				method: 'POST',
				uri: `${sandbox.baseUrls.images}/v1/upload/`,
				formData: parts,
			},
			credential('images'),
		);
		expect(run.error?.message).toMatch(
			/data part, which n8n's HTTP Request node \(version 4.2 and later\) builds as a stream .*Image Processing node/,
		);
		expect(sandbox.requests('images')).toHaveLength(0);
	});
});

describe("n8n's HTTP Request node answered with a file (Avatars, Screenshot), its key in the query", () => {
	it.each([
		['abstractAvatarsApi', 'avatars', { name: 'Ada Lovelace' }],
		['abstractScreenshotApi', 'screenshot', { url: 'https://example.com', width: 320 }],
	])(
		'%s: the file is in the output, and its name holds no key',
		async (credentialType, service, qs) => {
			const run = await sendHandBuilt(
				{
					credentialType,
					method: 'GET',
					uri: `${sandbox.baseUrls[service]}/v1/`,
					qs,
					// Response Format Autodetect, the node's default.
					encoding: null,
					useStream: true,
					json: false,
				},
				credential(service),
			);
			expect(run.error).toBeUndefined();
			const [item] = run.output('Node');
			expect(item.binary?.data.mimeType).toMatch(/^image\//);
			expect(JSON.stringify(item)).not.toContain(sandbox.keys[service]);
			expect(sandbox.requests(service)[0].keyPlaces).toEqual(['query']);
		},
	);
});

describe("n8n's HTTP Request node with an api_key of its own in the URL", () => {
	it('is refused before it is sent: the service would get two keys and choose', async () => {
		const run = await sendHandBuilt(
			{
				credentialType: 'abstractIbanApi',
				method: 'GET',
				uri: `${sandbox.baseUrls.iban}/v1/?api_key=typed_by_hand&iban=BE71096123456769`,
			},
			credential('iban'),
		);
		expect(run.error?.message).toMatch(
			/URL has an api_key of its own.*remove api_key from the URL/,
		);
		expect(sandbox.requests('iban')).toHaveLength(0);
	});
});

describe("n8n's HTTP Request node paginating a service that answers JSON, its key in the query", () => {
	it("reads each page's JSON: a page of no holidays ends it", async () => {
		const run = await sendHandBuilt(
			{
				credentialType: 'abstractHolidaysApi',
				method: 'GET',
				uri: `${sandbox.baseUrls.holidays}/v1/`,
				qs: { country: 'US', year: 2025, month: 1, day: 1 },
				encoding: null,
				useStream: true,
				json: false,
				// Update a Parameter in Each Request (the day), complete when the response is empty.
				pagination: {
					continue:
						'={{ Array.isArray($response.body) ? $response.body.length > 0 : !!$response.body }}',
					request: { qs: { day: '={{ $pageCount + 1 }}' } },
					maxRequests: 4,
				},
			},
			credential('holidays'),
		);
		expect(run.error).toBeUndefined();
		// New Year's Day, then January 2nd: no holiday, the end.
		expect(run.output('Node')[0].json).toEqual({ pages: 2 });
		expect(sandbox.requests('holidays')).toHaveLength(2);
	});
});
