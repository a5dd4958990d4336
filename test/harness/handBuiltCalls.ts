import type { IDataObject } from 'n8n-workflow';

import {
	REQUEST_FORMS,
	SERVICE_FORMS,
	type RequestFormName,
} from '../../credentials/shared/requestForms';
import type { KeySource } from '../sandbox/types';
import { packageCredentialTypes } from './packageFiles';
import { CREDENTIAL_TYPES } from './sandboxCredentials';

/** Where the sandbox finds the key of a request in a form, by the form's key place and body. */
export function wirePlaceOf(form: RequestFormName): KeySource {
	const { key, body } = REQUEST_FORMS[form];
	if (key === 'query') return 'query';
	if (key === 'bearerHeader') return 'bearer';
	if (key === 'dataPart') return 'multipart';
	return body === 'form' ? 'form' : 'json';
}

/** A call a person builds by hand in n8n's HTTP Request node with a credential of the package. */
export interface HandBuiltCall {
	credentialType: string;
	/** The sandbox's name of the service. */
	service: string;
	form: RequestFormName;
	path: string;
	fields: IDataObject;
}

/** The credential's own test request (its path and fields), sent in `form`. */
export function testRequestIn(credentialType: string, form: RequestFormName): HandBuiltCall {
	const test = packageCredentialTypes().get(credentialType)!.test!.request;
	const service = Object.entries(CREDENTIAL_TYPES).find(([, type]) => type === credentialType)![0];
	const fields = { ...((test.qs ?? test.body) as IDataObject) };
	return { credentialType, service, form, path: test.url ?? '', fields };
}

/** Every form each service takes, but an upload (its parts are no test request's fields), as such a call. */
export function handBuiltCalls(): HandBuiltCall[] {
	return Object.values(CREDENTIAL_TYPES).flatMap((credentialType) =>
		SERVICE_FORMS[credentialType]
			.filter((form) => REQUEST_FORMS[form].body !== 'multipart')
			.map((form) => testRequestIn(credentialType, form)),
	);
}
