import type {
	ICredentialDataDecryptedObject,
	IDataObject,
	IHttpRequestOptions,
} from 'n8n-workflow';

import { effectiveBaseUrl } from './liveBaseUrls';
import {
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
 * host (a storage host, a link from a response), whatever a node asks for.
 *
 * The form's name comes as the `requestForm` option of the request. n8n-core's
 * httpRequestWithAuthentication hands the node's options object to `authenticate` as it is (it
 * only drops an empty body of a GET and adds an abort signal; so does a credential test, whose
 * request n8n's RoutingNode copies key by key), and the request it sends is built from the
 * options n8n knows, so the name never reaches the wire. It stays on the options returned:
 * after a thrown 401 (a credential test's) n8n authenticates them again.
 */

/** The options of a request as the engine and a credential test give them: with the form's name. */
export type FormNamedOptions = IHttpRequestOptions & { requestForm?: unknown };

/** The address the request will reach, joined the way axios joins baseURL and url. */
function requestAddress(request: IHttpRequestOptions): string {
	const url = request.url ?? '';
	if (!request.baseURL || /^[a-z][a-z\d+\-.]*:\/\//i.test(url)) return url;
	return `${request.baseURL.replace(/\/+$/, '')}/${url.replace(/^\/+/, '')}`;
}

function assertGoesToService(baseUrl: string, request: IHttpRequestOptions) {
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
function bodyFormOf(body: unknown): BodyForm | undefined {
	if (body === undefined) return 'none';
	if (body instanceof URLSearchParams) return 'form';
	if (body instanceof FormData) return 'multipart';
	return typeof body === 'object' ? 'json' : undefined;
}

/** The request with the key put in `place` (requestForms.ts). */
function withKey(place: KeyPlace, request: IHttpRequestOptions, key: string): IHttpRequestOptions {
	const { body } = request;
	switch (place) {
		case 'query':
			return { ...request, qs: { ...(request.qs ?? {}), api_key: key } };
		case 'bearerHeader':
			return {
				...request,
				headers: { ...(request.headers ?? {}), Authorization: `Bearer ${key}` },
			};
		case 'bodyField': {
			if (!(body instanceof URLSearchParams))
				return { ...request, body: { ...(body as IDataObject), api_key: key } };
			const form = new URLSearchParams(body);
			form.set('api_key', key);
			return { ...request, body: form };
		}
		case 'dataPart': {
			const upload = new FormData();
			for (const [name, value] of (body as FormData).entries()) {
				if (name === 'data') {
					const options = JSON.parse(String(value)) as IDataObject;
					upload.append('data', JSON.stringify({ ...options, api_key: key }));
				} else {
					upload.append(name, value);
				}
			}
			return { ...request, body: upload };
		}
	}
}

type KeyPlacement = (
	credentials: ICredentialDataDecryptedObject,
	request: IHttpRequestOptions,
) => Promise<IHttpRequestOptions>;

/**
 * The form the request names, if the service takes it (SERVICE_FORMS) and the request's body is
 * that form's; else an error that says which, before the key is put anywhere.
 */
function namedForm(credentialType: string, request: FormNamedOptions): RequestFormName {
	const { requestForm } = request;
	const taken: readonly string[] = SERVICE_FORMS[credentialType] ?? [];
	if (typeof requestForm !== 'string' || !taken.includes(requestForm)) {
		throw new Error(
			`The API key is put only in a request that names one of the forms its service takes (${taken.join(', ')}); this one names ${JSON.stringify(requestForm ?? null)}`,
		);
	}
	const form = REQUEST_FORMS[requestForm as RequestFormName];
	const body = bodyFormOf(request.body);
	if (body !== form.body) {
		throw new Error(
			`The request names the form ${requestForm}, whose body is ${form.body}, but its body is ${body ?? 'text'}`,
		);
	}
	return requestForm as RequestFormName;
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
		return withKey(form.key, request, String(credentials.apiKey ?? ''));
	};
}
