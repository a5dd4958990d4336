import type { IDataObject, IHttpRequestOptions } from 'n8n-workflow';

import type { FormNamedOptions } from './keyPlacement';
import { testBaseUrl } from './liveBaseUrls';
import { REQUEST_FORMS, type RequestFormName } from './requestForms';

/** The forms a test request can be in: n8n resolves its options as parameter values, which a form or multipart body is not. */
type TestForm = {
	[Name in RequestFormName]: (typeof REQUEST_FORMS)[Name]['body'] extends 'none' | 'json'
		? Name
		: never;
}[RequestFormName];

/**
 * A credential type's test request (n8n's Test button) that sends `fields` to `path` in the named
 * form, at the credential's Base URL (or the live address). n8n runs it through its RoutingNode,
 * which copies the request's options key by key, `requestForm` included, and then through
 * httpRequestWithAuthentication: the credential places the key by that name, as for a node's
 * request.
 */
export function testRequestIn(
	credentialType: string,
	requestForm: TestForm,
	path: string,
	fields: IDataObject,
	options: Pick<IHttpRequestOptions, 'encoding' | 'timeout'> = {},
): IHttpRequestOptions {
	const { method, body } = REQUEST_FORMS[requestForm];
	const request: FormNamedOptions = {
		baseURL: testBaseUrl(credentialType),
		method,
		url: path,
		...(body === 'json' ? { body: fields, json: true } : { qs: fields }),
		...options,
		requestForm,
	};
	return request;
}
