import type { ICredentialDataDecryptedObject, IHttpRequestOptions } from 'n8n-workflow';

import { LIVE_BASE_URLS } from '../credentials/shared/liveBaseUrls';
import { packageCredentialTypes } from './harness/nodeTypes';
import { CREDENTIAL_TYPES } from './harness/sandboxCredentials';
import { startSandbox, type Sandbox } from './sandbox/server';

/**
 * The credential types as n8n uses them: each one's test request (n8n's Test button) resolved
 * against a sandbox credential, authenticated by the type's own `authenticate`, and sent.
 */
let sandbox: Sandbox;
beforeAll(async () => {
	sandbox = await startSandbox();
});
afterAll(async () => await sandbox.close());
beforeEach(() => sandbox.reset());

const services = Object.entries(CREDENTIAL_TYPES);

function credentialData(
	service: string,
	apiKey = sandbox.keys[service],
): ICredentialDataDecryptedObject {
	return { apiKey, baseUrl: sandbox.baseUrls[service], requestsPerSecond: 1 };
}

/** An n8n expression of the test request (`={{ ... }}`) over the credential's values, as n8n evaluates it. */
function resolve(value: unknown, credentials: ICredentialDataDecryptedObject): string {
	const expression = /^=\{\{([\s\S]*)\}\}$/.exec(String(value));
	if (!expression) return String(value);
	return String(new Function('$credentials', `return (${expression[1]});`)(credentials));
}

/** n8n resolves the expressions of the test request, then applies authenticate. */
async function testRequest(type: string, credentials: ICredentialDataDecryptedObject) {
	const credentialType = packageCredentialTypes().get(type)!;
	const request = { ...credentialType.test!.request } as IHttpRequestOptions;
	request.baseURL = resolve(request.baseURL, credentials);
	const authenticate = credentialType.authenticate as (
		c: ICredentialDataDecryptedObject,
		r: IHttpRequestOptions,
	) => Promise<IHttpRequestOptions>;
	return await authenticate(credentials, request);
}

/** The credential's test request sent to `url` instead: a request in a form its service takes. */
function inItsForm(type: string, url: string): IHttpRequestOptions {
	const request = {
		...packageCredentialTypes().get(type)!.test!.request,
		url,
	} as IHttpRequestOptions;
	delete request.baseURL;
	return request;
}

async function send(request: IHttpRequestOptions): Promise<number> {
	const url = new URL(`${request.baseURL!.replace(/\/+$/, '')}/${request.url.replace(/^\/+/, '')}`);
	for (const [name, value] of Object.entries(request.qs ?? {}))
		url.searchParams.set(name, String(value));
	const json =
		request.body !== undefined &&
		!(request.body instanceof URLSearchParams) &&
		!(request.body instanceof FormData);
	const response = await fetch(url, {
		method: request.method ?? 'GET',
		headers: {
			...(json ? { 'Content-Type': 'application/json' } : {}),
			...(request.headers as Record<string, string>),
		},
		body:
			request.body === undefined
				? undefined
				: json
					? JSON.stringify(request.body)
					: (request.body as BodyInit),
		redirect: 'manual',
	});
	await response.arrayBuffer();
	return response.status;
}

describe('credential types', () => {
	it('are eleven, one per service, each with API Key, Base URL and (but the database) Requests per Second', () => {
		const types = packageCredentialTypes();
		expect([...types.keys()].sort()).toEqual(Object.values(CREDENTIAL_TYPES).sort());
		for (const [service, type] of services) {
			const fields = types.get(type)!.properties.map((property) => property.name);
			expect(fields).toEqual(
				service === 'api' ? ['apiKey', 'baseUrl'] : ['apiKey', 'baseUrl', 'requestsPerSecond'],
			);
			expect(types.get(type)!.properties[0].typeOptions?.password).toBe(true);
		}
	});

	it.each(services)(
		'%s: the test request passes with the key of its service',
		async (service, type) => {
			const status = await send(await testRequest(type, credentialData(service)));
			expect(status).toBe(200);
			expect(sandbox.requests(service)).toHaveLength(1);
		},
	);

	it.each(services)(
		'%s: the test request fails with the key of another service',
		async (service, type) => {
			const other = service === 'iban' ? 'vat' : 'iban';
			const status = await send(
				await testRequest(type, credentialData(service, sandbox.keys[other])),
			);
			expect([401, 403]).toContain(status);
		},
	);

	it.each(services)(
		'%s: an empty Base URL means the live address, for the test request and the key',
		async (service, type) => {
			const live = LIVE_BASE_URLS[type];
			expect(live).toMatch(/^https:\/\/[a-z]+\.abstractapi\.com$/);
			const credentials = { ...credentialData(service), baseUrl: '' };
			const request = await testRequest(type, credentials);
			expect(request.baseURL).toBe(live);
			const credentialType = packageCredentialTypes().get(type)!;
			const baseUrlField = credentialType.properties.find(
				(property) => property.name === 'baseUrl',
			)!;
			expect(baseUrlField).toMatchObject({ default: '', placeholder: live });
			expect(baseUrlField.required).toBeFalsy();
			const authenticate = credentialType.authenticate as (
				c: ICredentialDataDecryptedObject,
				r: IHttpRequestOptions,
			) => Promise<IHttpRequestOptions>;
			await expect(
				authenticate(credentials, inItsForm(type, `${live}/v1/`)),
			).resolves.toBeDefined();
			for (const url of [
				`${sandbox.baseUrls[service]}/v1/`,
				`${live}.evil.example/v1/`,
				'https://attacker.example/v1/',
			]) {
				await expect(authenticate(credentials, inItsForm(type, url))).rejects.toThrow(
					/only to the Base URL/,
				);
			}
		},
	);

	it.each(services)(
		'%s: the key is refused to any address outside the Base URL',
		async (service, type) => {
			const credentialType = packageCredentialTypes().get(type)!;
			const authenticate = credentialType.authenticate as (
				c: ICredentialDataDecryptedObject,
				r: IHttpRequestOptions,
			) => Promise<IHttpRequestOptions>;
			const credentials = credentialData(service);
			for (const url of [
				`${sandbox.storageUrl}/file.png`,
				`${sandbox.baseUrls[service]}-evil/v1/`,
				'https://attacker.example/v1/',
			]) {
				await expect(authenticate(credentials, inItsForm(type, url))).rejects.toThrow(
					/only to the Base URL/,
				);
			}
		},
	);
});
