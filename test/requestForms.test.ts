import { VersionedNodeType } from 'n8n-workflow';
import type {
	ICredentialDataDecryptedObject,
	IDataObject,
	IHttpRequestOptions,
} from 'n8n-workflow';

import {
	REQUEST_FORMS,
	SERVICE_FORMS,
	requestIn,
	type RequestFormName,
} from '../credentials/shared/requestForms';
import { wirePlaceOf } from './harness/handBuiltCalls';
import { PACKAGE_NAME, packageCredentialTypes, packageNodeTypes } from './harness/nodeTypes';
import { runNode, type InputItem } from './harness/run';
import { CREDENTIAL_TYPES, sandboxCredential } from './harness/sandboxCredentials';
import { picture } from './nodes/mediaHelpers';
import { startSandbox, type Sandbox } from './sandbox/server';
import type { KeySource, LoggedRequest } from './sandbox/types';

/**
 * Where the key goes is declared by the node and never guessed: each request a node builds names
 * its form (requestIn), the name travels with the request's options through n8n-core to the
 * credential's `authenticate`, and the credential puts the key where that form says, or refuses a
 * form its service does not take. Every request of every node is run here through n8n-core to
 * the sandbox, and the key must arrive exactly where the form the node named puts it, with
 * nothing of the name on the wire.
 */
let sandbox: Sandbox;
beforeAll(async () => {
	sandbox = await startSandbox();
});
afterAll(async () => await sandbox.close());
beforeEach(() => sandbox.reset());

interface NodeRequest {
	/** What the node is set to do, as the test names it. */
	label: string;
	type: string;
	service: string;
	parameters: IDataObject;
	items?: InputItem[];
	/** The form the node's file says this request is in. */
	form: RequestFormName;
}

const photo: InputItem = {
	json: {},
	binary: { photo: { bytes: picture('png', 40, 30), mimeType: 'image/png', fileName: 'a.png' } },
};
const country = (value: string) => ({ __rl: true, mode: 'id', value });

/** Every request each node sends, by what it is set to do. */
const NODE_REQUESTS: NodeRequest[] = [
	...(
		[
			['bearerJson', 'postJsonKeyInBearer'],
			['form', 'postFormKeyInBody'],
			['query', 'getKeyInQuery'],
		] as const
	).flatMap(([sendAs, form]): NodeRequest[] => [
		{
			label: `Phone, Send As ${sendAs}`,
			type: 'abstractPhone',
			service: 'phone',
			parameters: { phone: '+14152007986', options: { sendAs } },
			form,
		},
		{
			label: `Email, Send As ${sendAs}`,
			type: 'abstractEmail',
			service: 'email',
			parameters: { email: 'ada@acme.io', options: { sendAs } },
			form,
		},
	]),
	{
		label: 'IP Geolocation',
		type: 'abstractIpGeolocation',
		service: 'geo',
		parameters: { ipAddress: '8.8.8.8' },
		form: 'getKeyInQuery',
	},
	{
		label: 'Company Enrichment',
		type: 'abstractCompany',
		service: 'company',
		parameters: { domain: 'acme.io' },
		form: 'getKeyInQuery',
	},
	{
		label: 'Public Holidays',
		type: 'abstractHolidays',
		service: 'holidays',
		parameters: { country: country('DE'), options: { year: '2025' } },
		form: 'getKeyInQuery',
	},
	{
		label: 'VAT, Get Categories',
		type: 'abstractVat',
		service: 'vat',
		parameters: { operation: 'getCategories', countryCode: country('DE') },
		form: 'getKeyInQuery',
	},
	{
		label: 'VAT, Validate',
		type: 'abstractVat',
		service: 'vat',
		parameters: { operation: 'validate', vatNumber: 'SE556656688001' },
		form: 'getKeyInQuery',
	},
	{
		label: 'VAT, Calculate',
		type: 'abstractVat',
		service: 'vat',
		parameters: { operation: 'calculate', countryCode: country('DE'), amount: 100 },
		form: 'getKeyInQuery',
	},
	{
		label: 'IBAN Validation',
		type: 'abstractIban',
		service: 'iban',
		parameters: { iban: 'BE71096123456769' },
		form: 'getKeyInQuery',
	},
	{
		label: 'Image Processing, from a URL',
		type: 'abstractImages',
		service: 'images',
		parameters: { source: 'url', url: 'https://example.com/photo.png' },
		form: 'postJsonKeyInBody',
	},
	{
		label: 'Image Processing, an uploaded file',
		type: 'abstractImages',
		service: 'images',
		parameters: { source: 'binary', binaryPropertyName: 'photo' },
		items: [photo],
		form: 'postUploadKeyInDataPart',
	},
	{
		label: 'Avatars',
		type: 'abstractAvatars',
		service: 'avatars',
		parameters: { name: 'Ada Lovelace' },
		form: 'getKeyInQuery',
	},
	{
		label: 'Website Screenshot',
		type: 'abstractScreenshot',
		service: 'screenshot',
		parameters: { url: 'https://example.com/' },
		form: 'getKeyInQuery',
	},
	{
		label: 'IP Database Download, the link',
		type: 'abstractIpDatabase',
		service: 'api',
		parameters: { database: 'ip-geolocation', format: 'mmdb', output: 'link' },
		form: 'getKeyInQuery',
	},
];

/** The content type each body sends. */
const CONTENT_TYPES: Record<string, RegExp | undefined> = {
	none: undefined,
	form: /^application\/x-www-form-urlencoded/,
	json: /^application\/json/,
	multipart: /^multipart\/form-data/,
};

describe.each(NODE_REQUESTS.map((request) => [request.label, request] as const))(
	'%s',
	(_label, request) => {
		it(`names ${request.form}, and the key arrives where that form puts it, and only there`, async () => {
			const run = await runNode({
				type: request.type,
				parameters: request.parameters,
				credential: sandboxCredential(sandbox, request.service),
				items: request.items,
			});
			expect(run.error).toBeUndefined();
			const credentialType = CREDENTIAL_TYPES[request.service];
			expect(run.authenticated).toEqual([{ credentialType, requestForm: request.form }]);

			const [sent] = sandbox.requests(request.service) as LoggedRequest[];
			const { method, body } = REQUEST_FORMS[request.form];
			expect(sent.method).toBe(method);
			const contentType = String(sent.headers['content-type'] ?? '');
			if (CONTENT_TYPES[body]) expect(contentType).toMatch(CONTENT_TYPES[body]!);
			expect(sent.keyPlaces).toEqual([wirePlaceOf(request.form)]);
			expect(sent.status).toBe(200);
			// The form's name is for the credential: nothing of it reaches the service.
			expect(JSON.stringify(sent)).not.toMatch(/requestForm/i);
			expect(JSON.stringify(sent)).not.toContain(request.form);
		});
	},
);

describe('the forms nodes send and the forms credentials take', () => {
	it('every node that has a credential is here', () => {
		const nodeTypes = packageNodeTypesWithCredential();
		expect([...new Set(NODE_REQUESTS.map((request) => request.type))].sort()).toEqual(nodeTypes);
	});

	it.each(Object.values(CREDENTIAL_TYPES))(
		'%s takes exactly the forms its nodes send',
		(credentialType) => {
			const sent = NODE_REQUESTS.filter(
				(request) => CREDENTIAL_TYPES[request.service] === credentialType,
			).map((request) => request.form);
			expect([...new Set(sent)].sort()).toEqual([...SERVICE_FORMS[credentialType]].sort());
		},
	);
});

/** The package's credential types' `authenticate`, as n8n-core calls it. */
function authenticateOf(credentialType: string) {
	return packageCredentialTypes().get(credentialType)!.authenticate as (
		credentials: ICredentialDataDecryptedObject,
		request: IHttpRequestOptions,
	) => Promise<IHttpRequestOptions>;
}

/** A request in `form` to the credential's Base URL, as the engine hands it to n8n. */
function optionsIn(form: RequestFormName, baseUrl: string): IHttpRequestOptions {
	const request = requestIn(form, '/v1/', { value: 'x' }, {});
	const body = request.json ?? (request.form ? new URLSearchParams(request.form) : undefined);
	return {
		url: `${baseUrl}/v1/`,
		method: request.method,
		qs: request.qs,
		body: request.multipart ?? body,
		requestForm: form,
	} as IHttpRequestOptions;
}

describe.each(Object.entries(CREDENTIAL_TYPES))(
	'the %s credential (%s) before the key is put anywhere',
	(service, credentialType) => {
		const credentials = () => ({
			apiKey: sandbox.keys[service],
			baseUrl: sandbox.baseUrls[service],
		});
		const notTaken = (Object.keys(REQUEST_FORMS) as RequestFormName[]).filter(
			(form) => !SERVICE_FORMS[credentialType].includes(form),
		);

		// A request that names no form at all is built by hand (httpRequestNode.test.ts).
		it('refuses a request that names what is no form', async () => {
			const request = optionsIn(SERVICE_FORMS[credentialType][0], sandbox.baseUrls[service]);
			(request as { requestForm?: unknown }).requestForm = null;
			await expect(authenticateOf(credentialType)(credentials(), request)).rejects.toThrow(
				/names one of the forms its service takes .*; this one names null/,
			);
		});

		it(`refuses a request in any other form (${notTaken.join(', ')})`, async () => {
			for (const form of notTaken) {
				const request = optionsIn(form, sandbox.baseUrls[service]);
				await expect(authenticateOf(credentialType)(credentials(), request)).rejects.toThrow(
					`this one names "${form}"`,
				);
			}
		});

		it('refuses a request whose method is not the one of the form it names', async () => {
			for (const form of SERVICE_FORMS[credentialType]) {
				const { method } = REQUEST_FORMS[form];
				const request = optionsIn(form, sandbox.baseUrls[service]);
				request.method = method === 'GET' ? 'POST' : 'GET';
				await expect(authenticateOf(credentialType)(credentials(), request)).rejects.toThrow(
					`names the form ${form}, whose method is ${method}, but its method is ${request.method}`,
				);
			}
		});

		it('refuses a request whose body is not the one of the form it names', async () => {
			for (const form of SERVICE_FORMS[credentialType]) {
				const { body } = REQUEST_FORMS[form];
				const request = optionsIn(form, sandbox.baseUrls[service]);
				request.body = body === 'none' ? { value: 'x' } : undefined;
				await expect(authenticateOf(credentialType)(credentials(), request)).rejects.toThrow(
					`names the form ${form}, whose body is ${body}, but its body is ${body === 'none' ? 'json' : 'none'}`,
				);
			}
		});
	},
);

/** The type names of the package's nodes that send requests with a credential. */
function packageNodeTypesWithCredential(): string[] {
	return [...packageNodeTypes()]
		.filter(([, node]) => {
			// A node of several versions keeps its credentials in each version's description.
			const latest = node instanceof VersionedNodeType ? node.getNodeType() : node;
			return (latest.description.credentials ?? []).length > 0;
		})
		.map(([name]) => name.slice(`${PACKAGE_NAME}.`.length))
		.sort();
}
