import type {
	ICredentialDataDecryptedObject,
	IDataObject,
	IHttpRequestOptions,
} from 'n8n-workflow';

import { effectiveBaseUrl } from './liveBaseUrls';
import {
	FILE_ANSWERING_SERVICES,
	REQUEST_FORMS,
	SERVICE_FORMS,
	type BodyForm,
	type KeyPlace,
	type RequestFormName,
} from './requestForms';

/*
 * The key put into a request by n8n's credential mechanism (the credential's `authenticate`),
 * never by node code, where the form the request names wants it (requestForms.ts). It first
 * checks that the request goes to the credential's own Base URL: a key is never sent to another
 * host (a storage host, a link from a response), whatever a node asks for. Nor does a keyed
 * request follow a redirect: n8n would follow it to any host, putting an Authorization header
 * back on a cross-origin hop and sending a 307's or 308's body (its key field) again.
 *
 * The form's name comes as the `requestForm` option of the request. n8n-core's
 * httpRequestWithAuthentication hands the node's options object to `authenticate` as it is (it
 * only drops an empty body of a GET and adds an abort signal; so does a credential test, whose
 * request n8n's RoutingNode copies key by key), and the request it sends is built from the
 * options n8n knows, so the name never reaches the wire. It stays on the options returned:
 * after a thrown 401 (a credential test's) n8n authenticates them again.
 *
 * A request built by hand names no form: n8n's HTTP Request node with this credential as its
 * Predefined Credential Type (what n8n offers as a node's "Custom API Call"). It comes in the
 * older request options n8n still takes (`uri`, a `form` or `formData` object for those bodies,
 * `followRedirect`), and gets the one form of its service with its method and body: no service
 * takes two forms of one method and body (a test holds it), so the choice never depends on order.
 */

/**
 * The options of a request as the engine and a credential test give them, with the form's
 * name; or as the HTTP Request node gives them, in the older request options.
 */
export type FormNamedOptions = IHttpRequestOptions & {
	requestForm?: unknown;
	uri?: unknown;
	form?: IDataObject;
	formData?: IDataObject;
	followRedirect?: boolean;
	followAllRedirects?: boolean;
	useStream?: boolean;
};

/** The address the request will reach, joined the way axios joins baseURL and url. */
function requestAddress(request: FormNamedOptions): string {
	const url = String(request.url ?? request.uri ?? '');
	if (!request.baseURL || /^[a-z][a-z\d+\-.]*:\/\//i.test(url)) return url;
	return `${request.baseURL.replace(/\/+$/, '')}/${url.replace(/^\/+/, '')}`;
}

function assertGoesToService(baseUrl: string, request: FormNamedOptions) {
	// A proxy the request names (HTTP Request's Proxy option) would be given the whole request,
	// key included: in clear for an http Base URL, and for https whenever it may present any
	// certificate (Ignore SSL Issues).
	const proxy: unknown = request.proxy;
	if (proxy !== undefined && proxy !== null && proxy !== '') {
		throw new Error(
			'The API key is sent only to the Base URL of its credential, not through a proxy the request names (HTTP Request: remove the Proxy option)',
		);
	}
	const base = baseUrl.trim().replace(/\/+$/, '');
	const target = requestAddress(request);
	const rest = target.slice(base.length);
	const underBase = base !== '' && target.startsWith(base) && (rest === '' || /^[/?#]/.test(rest));
	if (!underBase) {
		throw new Error(
			'The API key is sent only to the Base URL of its credential, and this request goes elsewhere',
		);
	}
}

/** The form of a request's body; undefined for one no form sends (text). */
function bodyFormOf(request: FormNamedOptions): BodyForm | undefined {
	if (request.formData !== undefined) return 'multipart';
	if (request.form !== undefined) return 'form';
	const { body } = request;
	if (body === undefined) return 'none';
	if (body instanceof URLSearchParams) return 'form';
	if (body instanceof FormData) return 'multipart';
	// A JSON body is a plain object: bytes, a stream or a text (the HTTP Request node's binary and raw bodies) are no form's.
	return isPlainObject(body) ? 'json' : undefined;
}

function isPlainObject(value: unknown): value is IDataObject {
	const prototype =
		typeof value === 'object' && value !== null ? Object.getPrototypeOf(value) : undefined;
	return prototype === Object.prototype || prototype === null;
}

/** The request with the key put in `place` (requestForms.ts). */
function withKey(place: KeyPlace, request: FormNamedOptions, key: string): FormNamedOptions {
	const { body, form, formData } = request;
	switch (place) {
		case 'query':
			// One given in the URL would be sent beside it, the service choosing which it reads.
			if (new URL(requestAddress(request)).searchParams.has('api_key'))
				throw new Error(
					"The request's URL has an api_key of its own: the credential puts the API key in the query, remove api_key from the URL",
				);
			return { ...request, qs: { ...(request.qs ?? {}), api_key: key } };
		case 'bearerHeader':
			return {
				...request,
				headers: { ...(request.headers ?? {}), Authorization: `Bearer ${key}` },
			};
		case 'bodyField': {
			if (form !== undefined) return { ...request, form: { ...form, api_key: key } };
			if (!(body instanceof URLSearchParams))
				return { ...request, body: { ...(body as IDataObject), api_key: key } };
			const fields = new URLSearchParams(body);
			fields.set('api_key', key);
			return { ...request, body: fields };
		}
		case 'dataPart': {
			if (formData !== undefined) {
				// HTTP Request from version 4.2 on sends its Form-Data body as a form-data stream:
				// its parts cannot be read back to put the key in the data part's JSON.
				if (!isPlainObject(formData))
					throw new Error(
						"The API key goes in the JSON of an upload's data part, which n8n's HTTP Request node (version 4.2 and later) builds as a stream it cannot be put in: upload with the Image Processing node",
					);
				return { ...request, formData: { ...formData, data: withKeyInData(formData.data, key) } };
			}
			const upload = new FormData();
			for (const [name, value] of (body as FormData).entries()) {
				if (name === 'data') upload.append('data', withKeyInData(value, key));
				else upload.append(name, value);
			}
			return { ...request, body: upload };
		}
	}
}

/**
 * A hand-built upload's `data` part with the key in its JSON (a part not given: the key alone),
 * or an error that says the part must be JSON: the service reads its options and key there.
 */
function withKeyInData(data: unknown, key: string): string {
	if (data === undefined) return JSON.stringify({ api_key: key });
	let options: unknown;
	try {
		options = JSON.parse(String(data));
	} catch {
		options = undefined;
	}
	if (!isPlainObject(options))
		throw new Error(
			'The data part of an upload holds its options as a JSON object, where the API key is put; this one is not a JSON object',
		);
	return JSON.stringify({ ...options, api_key: key });
}

type KeyPlacement = (
	credentials: ICredentialDataDecryptedObject,
	request: IHttpRequestOptions,
) => Promise<IHttpRequestOptions>;

/**
 * The form the request names, if the service takes it (SERVICE_FORMS) and the request's method
 * and body are that form's; else an error that says which, before the key is put anywhere (n8n
 * drops the body of a GET: a body form's key would silently not be sent).
 */
function namedForm(credentialType: string, request: FormNamedOptions): RequestFormName {
	const { requestForm } = request;
	if (requestForm === undefined) return handBuiltForm(credentialType, request);
	const taken: readonly string[] = SERVICE_FORMS[credentialType] ?? [];
	if (typeof requestForm !== 'string' || !taken.includes(requestForm)) {
		throw new Error(
			`The API key is put only in a request that names one of the forms its service takes (${taken.join(', ')}); this one names ${JSON.stringify(requestForm ?? null)}`,
		);
	}
	const form = REQUEST_FORMS[requestForm as RequestFormName];
	const method = (request.method ?? 'GET').toUpperCase();
	if (method !== form.method) {
		throw new Error(
			`The request names the form ${requestForm}, whose method is ${form.method}, but its method is ${method}`,
		);
	}
	const body = bodyFormOf(request);
	if (body !== form.body) {
		throw new Error(
			`The request names the form ${requestForm}, whose body is ${form.body}, but its body is ${body ?? 'text'}`,
		);
	}
	return requestForm as RequestFormName;
}

/** How a form reads to a person building the request by hand. */
const BODY_WORDS: Record<BodyForm, string> = {
	none: 'its fields in the query string',
	form: 'a form-encoded body',
	json: 'a JSON body',
	multipart: 'a multipart body',
};

/** The form of its service a request built by hand is in, by its method and body; else an error that lists the service's forms. */
function handBuiltForm(credentialType: string, request: FormNamedOptions): RequestFormName {
	const method = (request.method ?? 'GET').toUpperCase();
	const body = bodyFormOf(request);
	const taken = SERVICE_FORMS[credentialType] ?? [];
	const form = taken.find(
		(name) => REQUEST_FORMS[name].method === method && REQUEST_FORMS[name].body === body,
	);
	if (form !== undefined) return form;
	const ways = taken.map(
		(name) => `${REQUEST_FORMS[name].method} with ${BODY_WORDS[REQUEST_FORMS[name].body]}`,
	);
	throw new Error(
		`This service takes requests as ${ways.join(', or ')}; this one is ${method} with ${body === undefined ? 'a text body' : BODY_WORDS[body]}`,
	);
}

/**
 * A credential type's `authenticate`: the key goes where the form the request names wants it.
 * An empty Base URL means the service's live address: the host check then holds the key to that
 * address, as the node's requests go there.
 */
export function keyPlacement(credentialType: string): KeyPlacement {
	return async (credentials, request) => {
		assertGoesToService(effectiveBaseUrl(credentialType, credentials.baseUrl), request);
		const form = REQUEST_FORMS[namedForm(credentialType, request)];
		const keyed = withKey(form.key, request, String(credentials.apiKey ?? ''));
		// n8n names an answer it makes a file (HTTP Request: an image, or Response Format File)
		// after the path of the stream's request, the key in its query; read whole, it names it
		// after nothing of the request. But n8n's pagination reads the JSON of a stream only, and
		// it (as Never Error) sets `simple` off: there only a file-answering service's answer is.
		const { requestForm, useStream, simple } = request as FormNamedOptions & { simple?: boolean };
		const readWhole =
			requestForm === undefined &&
			form.key === 'query' &&
			useStream === true &&
			(FILE_ANSWERING_SERVICES.has(credentialType) || simple !== false);
		// Both ways of saying it: the engine's options and the older ones of the HTTP Request node.
		return {
			...keyed,
			...(readWhole ? { useStream: false } : {}),
			disableFollowRedirect: true,
			followRedirect: false,
			followAllRedirects: false,
		} satisfies FormNamedOptions;
	};
}
