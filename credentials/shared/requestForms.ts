import type { IDataObject } from 'n8n-workflow';

/*
 * How a request to a service carries its fields and the API key, one row per form: its method,
 * its body and where the key goes. A node builds its request in a form (requestIn), and the
 * credential puts the key where that form wants it (keyPlacement.ts), both from this table, so
 * the two cannot disagree. It sits with the credentials because they must not import the nodes.
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

export const REQUEST_FORMS = {
	/** Every service's default: key and fields in the URL. */
	query: { method: 'GET', body: 'none', key: 'query' },
	/** Phone and email. */
	form: { method: 'POST', body: 'form', key: 'bodyField' },
	/** Phone and email (their default): neither key nor personal data in a URL. */
	bearerJson: { method: 'POST', body: 'json', key: 'bearerHeader' },
	/** Image processing from a URL. */
	jsonBody: { method: 'POST', body: 'json', key: 'bodyField' },
	/** Image processing of an uploaded file: the fields travel as JSON in the `data` part. */
	upload: { method: 'POST', body: 'multipart', key: 'dataPart' },
} as const satisfies Record<string, RequestForm>;

export type RequestFormName = keyof typeof REQUEST_FORMS;

/** The forms a phone or email lookup may be sent in: the values of their Send As option. */
export const SEND_AS_FORMS = [
	'bearerJson',
	'query',
	'form',
] as const satisfies readonly RequestFormName[];

export type SendAs = (typeof SEND_AS_FORMS)[number];

/**
 * The forms each service takes, by credential type. A request whose body is in none of them (or
 * has no body) carries the key in the query string; a service not listed takes the query form alone.
 */
export const SERVICE_FORMS: Readonly<Record<string, readonly RequestFormName[]>> = {
	abstractPhoneApi: SEND_AS_FORMS,
	abstractEmailApi: SEND_AS_FORMS,
	abstractImagesApi: ['jsonBody', 'upload', 'query'],
};

/** A request in a form, as the nodes' engine takes it (its ServiceRequest). */
export interface FormRequest {
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
	name: RequestFormName,
	path: string,
	fields: IDataObject,
	files: Record<string, FilePart> = {},
): FormRequest {
	const { method, body } = REQUEST_FORMS[name];
	switch (body) {
		case 'none':
			return { method, path, qs: { ...fields } };
		case 'form':
			return { method, path, form: Object.fromEntries(Object.entries(fields).map(asText)) };
		case 'json':
			return { method, path, json: { ...fields } };
		case 'multipart': {
			const multipart = new FormData();
			for (const [part, file] of Object.entries(files))
				multipart.append(part, file.bytes, file.fileName);
			multipart.append('data', JSON.stringify(fields));
			return { method, path, multipart };
		}
	}
}

/** A form body holds text. */
const asText = ([name, value]: [string, unknown]): [string, string] => [name, String(value)];
