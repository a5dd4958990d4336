import type { IDataObject } from 'n8n-workflow';

/*
 * How a request to a service carries its fields and the API key, one row per form: its method,
 * its body and where the key goes. A node builds its request in a form it names (requestIn), and
 * the request carries that name to the credential, which puts the key where the named form says
 * (keyPlacement.ts) and refuses a form its service does not take: nothing is inferred from the
 * request's shape. It sits with the credentials because they must not import the nodes.
 */

/** The body a form sends its fields in: none (the fields in the query string), form-encoded, JSON or multipart. */
export type BodyForm = 'none' | 'form' | 'json' | 'multipart';

/**
 * Where the key goes: `api_key` in the query string; an `api_key` field of the body; an
 * `Authorization: Bearer` header; `api_key` in the JSON of a multipart body's `data` part.
 */
export type KeyPlace = 'query' | 'bodyField' | 'bearerHeader' | 'dataPart';

export interface RequestForm {
	method: 'GET' | 'POST';
	body: BodyForm;
	key: KeyPlace;
}

/** The forms, each named for its method, its body and where its key goes, so a node's call reads as what it sends. */
export const REQUEST_FORMS = {
	/** Every service but image processing: fields and key in the URL. */
	getKeyInQuery: { method: 'GET', body: 'none', key: 'query' },
	/** Phone and email: form-encoded, the key a field beside the others. */
	postFormKeyInBody: { method: 'POST', body: 'form', key: 'bodyField' },
	/** Phone and email (their default): neither key nor personal data in a URL. */
	postJsonKeyInBearer: { method: 'POST', body: 'json', key: 'bearerHeader' },
	/** Image processing from a URL. */
	postJsonKeyInBody: { method: 'POST', body: 'json', key: 'bodyField' },
	/** Image processing of an uploaded file: the file parts, then the fields and key as JSON in the `data` part. */
	postUploadKeyInDataPart: { method: 'POST', body: 'multipart', key: 'dataPart' },
} as const satisfies Record<string, RequestForm>;

export type RequestFormName = keyof typeof REQUEST_FORMS;

/** The forms phone and email take (their documentation, each credential's documentationUrl), the person's choice by Send As. */
const PHONE_AND_EMAIL_FORMS = [
	'postJsonKeyInBearer',
	'postFormKeyInBody',
	'getKeyInQuery',
] as const satisfies readonly RequestFormName[];

/**
 * The forms each service takes, by credential type (as its documentation, the credential's
 * documentationUrl, says). The credential puts the key only in a request in one of these; every
 * other request it refuses.
 */
export const SERVICE_FORMS: Readonly<Record<string, readonly RequestFormName[]>> = {
	abstractPhoneApi: PHONE_AND_EMAIL_FORMS,
	abstractEmailApi: PHONE_AND_EMAIL_FORMS,
	abstractIpGeolocationApi: ['getKeyInQuery'],
	abstractCompanyApi: ['getKeyInQuery'],
	abstractHolidaysApi: ['getKeyInQuery'],
	abstractVatApi: ['getKeyInQuery'],
	abstractIbanApi: ['getKeyInQuery'],
	abstractImagesApi: ['postJsonKeyInBody', 'postUploadKeyInDataPart'],
	abstractAvatarsApi: ['getKeyInQuery'],
	abstractScreenshotApi: ['getKeyInQuery'],
	abstractIpIntelligenceApi: ['getKeyInQuery'],
};

/**
 * The services whose answer is a file (an image), by credential type. n8n names a file answer it
 * reads as a stream after its request's path, the query and its key included: keyPlacement.ts
 * has a request built by hand to them read whole.
 */
export const FILE_ANSWERING_SERVICES: ReadonlySet<string> = new Set([
	'abstractAvatarsApi',
	'abstractScreenshotApi',
]);

/**
 * A request in a form, as the nodes' engine takes it (its ServiceRequest). `requestForm` is the
 * form's name: the engine hands it to n8n with the request's options, n8n hands those to the
 * credential's `authenticate` as they are, and the credential places the key by it.
 */
export interface FormRequest {
	requestForm: RequestFormName;
	method: 'GET' | 'POST';
	path: string;
	qs?: IDataObject;
	json?: IDataObject;
	form?: Record<string, string>;
	multipart?: FormData;
}

/** A file sent as a part of a multipart body. */
export interface FilePart {
	bytes: Blob;
	fileName: string;
}

/**
 * The request that sends `fields` to `path` in the named form (`files`: the parts of an upload,
 * before its `data` part). With a JSON body the engine sends `Content-Type: application/json`:
 * without it the service would read the body as form data and not find the fields.
 */
export function requestIn(
	requestForm: RequestFormName,
	path: string,
	fields: IDataObject,
	files: Record<string, FilePart> = {},
): FormRequest {
	const { method, body } = REQUEST_FORMS[requestForm];
	switch (body) {
		case 'none':
			return { requestForm, method, path, qs: { ...fields } };
		case 'form':
			return {
				requestForm,
				method,
				path,
				form: Object.fromEntries(Object.entries(fields).map(asText)),
			};
		case 'json':
			return { requestForm, method, path, json: { ...fields } };
		case 'multipart': {
			const multipart = new FormData();
			for (const [part, file] of Object.entries(files))
				multipart.append(part, file.bytes, file.fileName);
			multipart.append('data', JSON.stringify(fields));
			return { requestForm, method, path, multipart };
		}
	}
}

/** A form body holds text. */
const asText = ([name, value]: [string, unknown]): [string, string] => [name, String(value)];
