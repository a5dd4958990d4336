import { NodeConnectionTypes } from 'n8n-workflow';
import type {
	IDataObject,
	IExecuteFunctions,
	IHttpRequestOptions,
	INodeExecutionData,
	INodeType,
} from 'n8n-workflow';

import {
	REQUEST_FORMS,
	SERVICE_FORMS,
	type RequestFormName,
} from '../credentials/shared/requestForms';
import { describeNodeType } from './harness/baseNodes';
import { NodeTypes, packageCredentialTypes } from './harness/nodeTypes';
import { runWorkflow, workflowNode } from './harness/run';
import { CREDENTIAL_TYPES } from './harness/sandboxCredentials';
import { picture } from './nodes/mediaHelpers';
import { startSandbox, type Sandbox } from './sandbox/server';
import type { KeySource } from './sandbox/types';

/**
 * The package's credentials in n8n's HTTP Request node (Authentication: Predefined Credential
 * Type, which n8n also offers as a node's "Custom API Call"): a request a person builds by hand
 * names no form, and gets the one form of its service with its method and body. The request goes
 * through n8n-core's requestWithAuthentication, as the HTTP Request node (version 4) sends it: the
 * older request options (`uri`; a `form` or `formData` object; `followRedirect`), built here the way
 * that node builds them for each body it offers. `npm run test:e2e` runs the HTTP Request node
 * itself in a real n8n.
 */
let sandbox: Sandbox;
beforeAll(async () => {
	sandbox = await startSandbox();
});
afterAll(async () => await sandbox.close());
beforeEach(() => sandbox.reset());

/**
 * The stand-in takes HTTP Request's type name: n8n-core hands that node (and only it) any
 * credential without its type declaring one, as it does in n8n.
 */
const HAND_BUILT = 'n8n-nodes-base.httpRequest';

/** What a person sets in the HTTP Request node, as the request options it makes of them. */
interface HandBuilt {
	credentialType: string;
	method: 'GET' | 'POST';
	uri: string;
	qs?: IDataObject;
	/** JSON Body's object (HTTP Request: Body Content Type JSON). */
	body?: IDataObject | string;
	/** Form URLencoded's fields. */
	form?: IDataObject;
	/** Form-Data's parts: a file as its bytes and name, a text as itself. */
	formData?: Record<string, string | { value: Buffer; options: { filename: string } }>;
}

/** The requests the test asks for, by the token its node is given (a file's bytes are no parameter value). */
const requests = new Map<number, HandBuilt>();

/** Sends the request of its token with the credential, through n8n-core, as HTTP Request does. */
class HandBuiltRequest implements INodeType {
	description = describeNodeType(HAND_BUILT, 'Hand-built request', {
		properties: [{ displayName: 'Token', name: 'token', type: 'number', default: 0 }],
	});

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const request = requests.get(this.getNodeParameter('token', 0) as number)!;
		const { credentialType, ...given } = request;
		const options = {
			headers: {},
			gzip: true,
			rejectUnauthorized: true,
			followRedirect: true,
			resolveWithFullResponse: true,
			...(given.body !== undefined && typeof given.body === 'object' ? { json: true } : {}),
			...given,
		};
		const response = (await this.helpers.requestWithAuthentication.call(
			this,
			credentialType,
			options as unknown as IHttpRequestOptions,
		)) as { statusCode: number };
		return [[{ json: { statusCode: response.statusCode }, pairedItem: { item: 0 } }]];
	}
}
NodeTypes.register(HAND_BUILT, new HandBuiltRequest());

/** Runs one hand-built request through the engine with a sandbox credential of its type. */
async function send(request: HandBuilt) {
	const service = Object.entries(CREDENTIAL_TYPES).find(
		([, type]) => type === request.credentialType,
	)![0];
	const token = requests.size + 1;
	requests.set(token, request);
	const workflow = {
		nodes: [
			workflowNode(
				'Node',
				HAND_BUILT,
				0,
				{ token },
				{
					credentials: { [request.credentialType]: { id: 'cred', name: 'Sandbox' } },
				},
			),
		],
		connections: {},
	};
	return await runWorkflow(workflow, {
		credentials: [
			{
				id: 'cred',
				name: 'Sandbox',
				type: request.credentialType,
				data: { apiKey: sandbox.keys[service], baseUrl: sandbox.baseUrls[service] },
			},
		],
	});
}

/** Where each form's key arrives, as the sandbox logs it. */
const ARRIVES: Record<RequestFormName, KeySource> = {
	getKeyInQuery: 'query',
	postFormKeyInBody: 'form',
	postJsonKeyInBearer: 'bearer',
	postJsonKeyInBody: 'json',
	postUploadKeyInDataPart: 'multipart',
};

/** A request of the credential's own test (its path and fields), built by hand in `form`. */
function handBuiltIn(credentialType: string, form: RequestFormName, baseUrl: string): HandBuilt {
	const test = packageCredentialTypes().get(credentialType)!.test!.request;
	const fields = { ...((test.qs ?? test.body) as IDataObject) };
	const { method, body } = REQUEST_FORMS[form];
	const at = (path: string) => `${baseUrl.replace(/\/+$/, '')}${path}`;
	switch (body) {
		case 'none':
			return { credentialType, method, uri: at(test.url), qs: fields };
		case 'json':
			return { credentialType, method, uri: at(test.url), body: fields };
		case 'form':
			return { credentialType, method, uri: at(test.url), form: fields };
		case 'multipart':
			return {
				credentialType,
				method,
				uri: at('/v1/upload/'),
				formData: {
					image: { value: picture('png', 40, 30), options: { filename: 'a.png' } },
					data: JSON.stringify({ lossy: true }),
				},
			};
	}
}

const takenForms = Object.values(CREDENTIAL_TYPES).flatMap((credentialType) =>
	SERVICE_FORMS[credentialType].map((form) => [credentialType, form] as const),
);

describe('a request built by hand in the HTTP Request node', () => {
	it('no service takes two forms of one method and body: a hand-built request has one form, whatever their order', () => {
		for (const forms of Object.values(SERVICE_FORMS)) {
			const shapes = forms.map(
				(form) => `${REQUEST_FORMS[form].method} ${REQUEST_FORMS[form].body}`,
			);
			expect(new Set(shapes).size).toBe(shapes.length);
		}
	});

	it.each(takenForms)(
		'%s, sent as %s: the key arrives where that form puts it, once, and the service answers',
		async (credentialType, form) => {
			const service = Object.entries(CREDENTIAL_TYPES).find(
				([, type]) => type === credentialType,
			)![0];
			const run = await send(handBuiltIn(credentialType, form, sandbox.baseUrls[service]));
			expect(run.error).toBeUndefined();
			expect(run.output('Node')[0].json).toEqual({ statusCode: 200 });
			const [sent] = sandbox.requests(service);
			expect(sent.method).toBe(REQUEST_FORMS[form].method);
			expect(sent.keyPlaces).toEqual([ARRIVES[form]]);
			expect(run.authenticated).toEqual([{ credentialType, requestForm: undefined }]);
		},
	);

	it("keeps the fields of an upload's data part beside the key", async () => {
		const run = await send(
			handBuiltIn('abstractImagesApi', 'postUploadKeyInDataPart', sandbox.baseUrls.images),
		);
		expect(run.error).toBeUndefined();
		const [sent] = sandbox.requests('images');
		expect(sent.fields).toEqual({ lossy: true, api_key: sandbox.keys.images });
		expect(sent.parts.map((part) => part.name)).toEqual(['image', 'data']);
	});

	it('in no form of its service, is refused before it is sent, with the forms the service takes', async () => {
		const vat = handBuiltIn('abstractVatApi', 'getKeyInQuery', sandbox.baseUrls.vat);
		const run = await send({ ...vat, method: 'POST', qs: undefined, body: { country_code: 'DE' } });
		expect(run.error?.message).toMatch(
			/This service takes requests as GET with its fields in the query string; this one is POST with a JSON body/,
		);
		const text = handBuiltIn('abstractEmailApi', 'postJsonKeyInBearer', sandbox.baseUrls.email);
		const raw = await send({ ...text, body: 'email=a@example.com' });
		expect(raw.error?.message).toMatch(/this one is POST with a text body/);
		expect(sandbox.requests('vat')).toHaveLength(0);
		expect(sandbox.requests('email')).toHaveLength(0);
	});

	it("to another host than its credential's Base URL, is refused and the key goes nowhere", async () => {
		const iban = handBuiltIn('abstractIbanApi', 'getKeyInQuery', sandbox.baseUrls.vat);
		const run = await send(iban);
		expect(run.error?.message).toMatch(/sent only to the Base URL of its credential/);
		expect(sandbox.requests('vat')).toHaveLength(0);
	});
});
