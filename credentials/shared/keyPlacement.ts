import type {
	ICredentialDataDecryptedObject,
	IDataObject,
	IHttpRequestOptions,
} from 'n8n-workflow';

import { effectiveBaseUrl } from './liveBaseUrls';
import { REQUEST_FORMS, SERVICE_FORMS, type BodyForm, type KeyPlace } from './requestForms';

/*
 * The key put into a request by n8n's credential mechanism (the credential's `authenticate`),
 * never by node code, where the request's form wants it (requestForms.ts). It first checks that
 * the request goes to the credential's own Base URL: a key is never sent to another host (a
 * storage host, a link from a response), whatever a node asks for.
 */

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
 * A credential type's `authenticate`: the key goes where the request's form wants it, the form
 * being the one of the service's forms (SERVICE_FORMS) that has the request's body, else the
 * query form. An empty Base URL means the service's live address: the host check then holds the
 * key to that address, as the node's requests go there.
 */
export function keyPlacement(credentialType: string): KeyPlacement {
	const forms = (SERVICE_FORMS[credentialType] ?? ['query']).map((name) => REQUEST_FORMS[name]);
	return async (credentials, request) => {
		assertGoesToService(effectiveBaseUrl(credentialType, credentials.baseUrl), request);
		const body = bodyFormOf(request.body);
		const form = forms.find((candidate) => candidate.body === body) ?? REQUEST_FORMS.query;
		return withKey(form.key, request, String(credentials.apiKey ?? ''));
	};
}
