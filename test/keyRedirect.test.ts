import http from 'http';
import type { AddressInfo } from 'net';

import type { IDataObject } from 'n8n-workflow';

import { sendHandBuilt, type HandBuilt } from './harness/httpRequestNode';
import { runNode } from './harness/run';

/**
 * A key is never sent to a host other than its service, not even when the service (or whatever
 * answers at the credential's Base URL) redirects elsewhere: n8n follows redirects by default
 * and puts an Authorization header back on a cross-origin hop (sendCredentialsOnCrossOriginRedirect
 * defaults to true in n8n-core), and a 307 or 308 sends the body, key field included, again.
 * Two servers on 127.0.0.1 on two ports are two origins: the first answers every request with
 * a redirect to the second, which logs what reaches it.
 */

interface Arrival {
	method: string;
	url: string;
	authorization?: string;
	body: string;
}

const KEY = 'sbx_redirect_key_0123456789';

let service: http.Server;
let elsewhere: http.Server;
let elsewhereUrl = '';
let serviceUrl = '';
let redirectStatus = 307;
const arrivedElsewhere: Arrival[] = [];

async function listen(server: http.Server): Promise<string> {
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

beforeAll(async () => {
	elsewhere = http.createServer((req, res) => {
		let body = '';
		req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
		req.on('end', () => {
			arrivedElsewhere.push({
				method: req.method ?? '',
				url: req.url ?? '',
				authorization: req.headers.authorization,
				body,
			});
			res.writeHead(200, { 'content-type': 'application/json' });
			res.end('{}');
		});
	});
	service = http.createServer((req, res) => {
		req.resume();
		req.on('end', () => {
			res.writeHead(redirectStatus, { location: `${elsewhereUrl}/collect` });
			res.end();
		});
	});
	elsewhereUrl = await listen(elsewhere);
	serviceUrl = await listen(service);
});
afterAll(async () => {
	await new Promise((resolve) => service.close(resolve));
	await new Promise((resolve) => elsewhere.close(resolve));
});
beforeEach(() => {
	arrivedElsewhere.length = 0;
});

const credential = (type: string) => ({
	type,
	data: { apiKey: KEY, baseUrl: `${serviceUrl}/svc`, requestsPerSecond: 0 } as IDataObject,
});

interface RedirectCase {
	label: string;
	type: string;
	credentialType: string;
	parameters: IDataObject;
	status: number;
}

const CASES: RedirectCase[] = [
	...[302, 307].map((status) => ({
		label: 'Phone, Send As bearerJson (the default)',
		type: 'abstractPhone',
		credentialType: 'abstractPhoneApi',
		parameters: { phone: '+14152007986' },
		status,
	})),
	{
		label: 'Email, Send As form',
		type: 'abstractEmail',
		credentialType: 'abstractEmailApi',
		parameters: { email: 'ada@acme.io', options: { sendAs: 'form' } },
		status: 307,
	},
	{
		label: 'Image Processing from a URL',
		type: 'abstractImages',
		credentialType: 'abstractImagesApi',
		parameters: { source: 'url', url: 'https://example.com/a.png' },
		status: 308,
	},
	{
		label: 'IBAN, the key in the query',
		type: 'abstractIban',
		credentialType: 'abstractIbanApi',
		parameters: { iban: 'BE71096123456769' },
		status: 301,
	},
];

describe.each(CASES.map((c) => [`${c.label}, answered ${c.status} to another origin`, c] as const))(
	'%s',
	(_title, { type, credentialType, parameters, status }) => {
		it('sends the key nowhere but the Base URL: the redirect is not followed', async () => {
			redirectStatus = status;
			const run = await runNode({
				type,
				parameters,
				credential: credential(credentialType),
				continueOnFail: true,
			});
			for (const arrival of arrivedElsewhere) expect(JSON.stringify(arrival)).not.toContain(KEY);
			expect(arrivedElsewhere).toEqual([]);
			expect(JSON.stringify(run.items)).toContain(`answered with status ${status}`);
		});
	},
);

/** n8n's HTTP Request node with the credential, its Redirects option on (its default). */
const HAND_BUILT: Array<[string, number, Omit<HandBuilt, 'uri'>, string]> = [
	[
		'IBAN, GET',
		302,
		{ credentialType: 'abstractIbanApi', method: 'GET', qs: { iban: 'BE71096123456769' } },
		'/v1/',
	],
	[
		'Email, POST with a JSON body (the key in a Bearer header)',
		307,
		{
			credentialType: 'abstractEmailApi',
			method: 'POST',
			body: { email: 'ada@acme.io' },
			followAllRedirects: true,
		},
		'/v1/',
	],
	[
		'Phone, POST form-encoded (the key a field)',
		308,
		{
			credentialType: 'abstractPhoneApi',
			method: 'POST',
			form: { phone: '14152007986' },
			followAllRedirects: true,
		},
		'/v1/',
	],
];

describe.each(HAND_BUILT)(
	"n8n's HTTP Request node, %s, answered %d to another origin",
	(_label, status, request, path) => {
		it('sends the key nowhere but the Base URL, though the node follows redirects', async () => {
			redirectStatus = status;
			const run = await sendHandBuilt(
				{ followRedirect: true, ...request, uri: `${serviceUrl}/svc${path}` },
				credential(request.credentialType).data,
			);
			for (const arrival of arrivedElsewhere) expect(JSON.stringify(arrival)).not.toContain(KEY);
			expect(arrivedElsewhere).toEqual([]);
			expect(run.error?.message).toContain(String(status));
		});
	},
);
