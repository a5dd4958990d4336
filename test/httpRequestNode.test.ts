import {
	REQUEST_FORMS,
	SERVICE_FORMS,
	type RequestFormName,
} from '../credentials/shared/requestForms';
import { sendHandBuilt, type HandBuilt } from './harness/httpRequestNode';
import { testRequestIn, wirePlaceOf } from './harness/handBuiltCalls';
import { CREDENTIAL_TYPES } from './harness/sandboxCredentials';
import { picture } from './nodes/mediaHelpers';
import { startSandbox, type Sandbox } from './sandbox/server';

/**
 * The package's credentials in n8n's HTTP Request node (Authentication: Predefined Credential
 * Type, which n8n also offers as a node's "Custom API Call"): a request a person builds by hand
 * names no form, and gets the one form of its service with its method and body. Each request goes
 * through n8n-core as that node sends it (harness/httpRequestNode.ts), for each body it offers.
 */
let sandbox: Sandbox;
beforeAll(async () => {
	sandbox = await startSandbox();
});
afterAll(async () => await sandbox.close());
beforeEach(() => sandbox.reset());

/** Sends a hand-built request with a sandbox credential of its type. */
async function send(request: HandBuilt) {
	const service = Object.entries(CREDENTIAL_TYPES).find(
		([, type]) => type === request.credentialType,
	)![0];
	return await sendHandBuilt(request, {
		apiKey: sandbox.keys[service],
		baseUrl: sandbox.baseUrls[service],
	});
}

/** A request of the credential's own test (its path and fields), built by hand in `form`. */
function handBuiltIn(credentialType: string, form: RequestFormName, baseUrl: string): HandBuilt {
	const { method, body } = REQUEST_FORMS[form];
	const at = (path: string) => `${baseUrl.replace(/\/+$/, '')}${path}`;
	if (body === 'multipart')
		return {
			credentialType,
			method,
			uri: at('/v1/upload/'),
			formData: {
				image: { value: picture('png', 40, 30), options: { filename: 'a.png' } },
				data: JSON.stringify({ lossy: true }),
			},
		};
	const { path, fields } = testRequestIn(credentialType, form);
	const sent = { none: { qs: fields }, json: { body: fields }, form: { form: fields } }[body];
	return { credentialType, method, uri: at(path), ...sent };
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
			expect(sent.keyPlaces).toEqual([wirePlaceOf(form)]);
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
