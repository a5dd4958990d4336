import { badRequest, errorResponse } from '../errorBody';
import type { SandboxRequest, SandboxResponse } from '../types';

/**
 * The three request forms of phone and email: GET with a query,
 * POST form-encoded with `api_key` as a field, POST with `Authorization: Bearer` and a JSON body.
 * Returns the looked-up value, or the service's answer when the request does not carry one.
 */
export function lookedUpValue(
	request: SandboxRequest,
	name: 'phone' | 'email',
): { value: string; params: Record<string, string> } | { reject: SandboxResponse } {
	if (request.path !== '/v1/')
		return { reject: errorResponse(404, `No endpoint ${request.path}; use /v1/.`, 'not_found') };
	let params: Record<string, string>;
	if (request.method === 'GET') {
		params = { ...request.query };
	} else if (request.method === 'POST') {
		const isJson = /^application\/json/i.test(String(request.headers['content-type'] ?? ''));
		// With the Bearer header the body must be JSON: without the JSON content type it is read as
		// form data and the field is not detected, whatever the body holds.
		params = request.keySource === 'bearer' && !isJson ? {} : stringFields(request.fields);
	} else {
		return { reject: badRequest(`Method ${request.method} is not supported; use GET or POST.`) };
	}
	const value = params[name]?.trim();
	if (!value) return { reject: badRequest(`Parameter ${name} is required.`, { parameter: name }) };
	return { value, params };
}

function stringFields(fields: Record<string, unknown>): Record<string, string> {
	const strings: Record<string, string> = {};
	for (const [key, value] of Object.entries(fields)) {
		if (typeof value === 'string' || typeof value === 'number') strings[key] = String(value);
	}
	return strings;
}
