import { badRequest } from '../errorBody';
import type { SandboxResponse } from '../types';

/**
 * The `fields` parameter of IP geolocation and company enrichment:
 * comma-separated top-level keys; the answer holds only those. An unknown key is a bad
 * request here, so a test notices a node that sends a wrong name.
 */
export function onlyFields(
	record: Record<string, unknown>,
	fields: string | undefined,
): SandboxResponse {
	if (fields === undefined || fields.trim() === '') return { status: 200, json: record };
	const wanted = fields
		.split(',')
		.map((key) => key.trim())
		.filter((key) => key !== '');
	const unknown = wanted.filter((key) => !(key in record));
	if (unknown.length > 0) {
		return badRequest(`Unknown field(s) in fields: ${unknown.join(', ')}.`, {
			parameter: 'fields',
		});
	}
	return {
		status: 200,
		json: Object.fromEntries(Object.entries(record).filter(([key]) => wanted.includes(key))),
	};
}
