import type {
	ICredentialDataDecryptedObject,
	IDataObject,
	IHttpRequestOptions,
} from 'n8n-workflow';

import { effectiveBaseUrl } from './liveBaseUrls';

/**
 * Where each service wants its key, applied by n8n's credential mechanism (the credential's
 * `authenticate`), never by node code. Every placement first checks that the request goes to
 * the credential's own Base URL: a key is never sent to another host (a storage host, a link
 * from a response), whatever a node asks for.
 */

/** The address the request will reach, joined the way axios joins baseURL and url. */
function requestAddress(request: IHttpRequestOptions): string {
	const url = request.url ?? '';
	if (!request.baseURL || /^[a-z][a-z\d+\-.]*:\/\//i.test(url)) return url;
	return `${request.baseURL.replace(/\/+$/, '')}/${url.replace(/^\/+/, '')}`;
}

function assertGoesToService(
	credentials: ICredentialDataDecryptedObject,
	request: IHttpRequestOptions,
) {
	const base = String(credentials.baseUrl ?? '')
		.trim()
		.replace(/\/+$/, '');
	const target = requestAddress(request);
	const rest = target.slice(base.length);
	const underBase = base !== '' && target.startsWith(base) && (rest === '' || /^[/?#]/.test(rest));
	if (!underBase) {
		throw new Error(
			'The API key is sent only to the Base URL of its credential, and this request goes elsewhere',
		);
	}
}

const apiKeyOf = (credentials: ICredentialDataDecryptedObject) => String(credentials.apiKey ?? '');

/** Default for the suite: query parameter `api_key`. */
export async function keyInQuery(
	credentials: ICredentialDataDecryptedObject,
	request: IHttpRequestOptions,
): Promise<IHttpRequestOptions> {
	assertGoesToService(credentials, request);
	return { ...request, qs: { ...(request.qs ?? {}), api_key: apiKeyOf(credentials) } };
}

/**
 * Phone and email (Bearer header, form field or query): the request's form says where the key goes.
 * A form-encoded body gets an `api_key` field; a JSON body gets `Authorization: Bearer`, so
 * neither key nor personal data lands in a URL; a GET gets the query parameter.
 */
export async function keyByRequestForm(
	credentials: ICredentialDataDecryptedObject,
	request: IHttpRequestOptions,
): Promise<IHttpRequestOptions> {
	assertGoesToService(credentials, request);
	const { body } = request;
	if (body instanceof URLSearchParams) {
		const form = new URLSearchParams(body);
		form.set('api_key', apiKeyOf(credentials));
		return { ...request, body: form };
	}
	if ((request.method ?? 'GET') !== 'GET' && body !== undefined) {
		return {
			...request,
			headers: { ...(request.headers ?? {}), Authorization: `Bearer ${apiKeyOf(credentials)}` },
		};
	}
	return keyInQuery(credentials, request);
}

/**
 * Image processing: `api_key` is a field of the JSON body, or of
 * the JSON options held in the `data` part of an upload.
 */
export async function keyInImageRequest(
	credentials: ICredentialDataDecryptedObject,
	request: IHttpRequestOptions,
): Promise<IHttpRequestOptions> {
	assertGoesToService(credentials, request);
	const { body } = request;
	if (body instanceof FormData) {
		const upload = new FormData();
		for (const [name, value] of body.entries()) {
			if (name === 'data') {
				const options = JSON.parse(String(value)) as IDataObject;
				upload.append('data', JSON.stringify({ ...options, api_key: apiKeyOf(credentials) }));
			} else {
				upload.append(name, value);
			}
		}
		return { ...request, body: upload };
	}
	if (body !== undefined && typeof body === 'object' && !(body instanceof URLSearchParams)) {
		return { ...request, body: { ...(body as IDataObject), api_key: apiKeyOf(credentials) } };
	}
	return keyInQuery(credentials, request);
}

type KeyPlacement = (
	credentials: ICredentialDataDecryptedObject,
	request: IHttpRequestOptions,
) => Promise<IHttpRequestOptions>;

/**
 * A placement for one credential type, whose empty Base URL means the service's live address:
 * the host check then holds the key to that address, as the node's requests go there.
 */
export function withLiveBaseUrl(credentialType: string, placement: KeyPlacement): KeyPlacement {
	return async (credentials, request) =>
		await placement(
			{ ...credentials, baseUrl: effectiveBaseUrl(credentialType, credentials.baseUrl) },
			request,
		);
}
