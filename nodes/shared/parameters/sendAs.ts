import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { invalidInput } from '../engine/errors';
import type { ServiceRequest } from '../engine/types';

/**
 * How phone and email lookups reach their service (GET, or POST as a form or as JSON). The node only
 * chooses the request's form; the credential (keyByRequestForm) puts the key where that form
 * wants it: Bearer header for a JSON body, `api_key` field for a form body, query for a GET.
 */
export type SendAs = 'bearerJson' | 'query' | 'form';

const SEND_AS_VALUES: readonly SendAs[] = ['bearerJson', 'query', 'form'];

/** The `sendAs` option of the phone and email nodes' `options` collection. */
export const sendAsOption: INodeProperties = {
	displayName: 'Send As',
	name: 'sendAs',
	type: 'options',
	options: [
		{
			name: 'Bearer Header and JSON Body',
			value: 'bearerJson',
			description:
				'POST with the key in an Authorization header: neither key nor personal data in a URL',
		},
		{
			name: 'Form Body',
			value: 'form',
			description: 'POST form-encoded, with the key as a field of the body',
		},
		{
			name: 'Query String',
			value: 'query',
			description: 'GET with key and value in the URL, which proxies and server logs may record',
		},
	],
	default: 'bearerJson',
	description: 'How the request carries the key and the looked-up value',
};

/** The chosen form, checked: an expression may give any text. */
export function sendAsOf(ctx: IExecuteFunctions, itemIndex: number, value: unknown): SendAs {
	const chosen = value === undefined || value === '' ? 'bearerJson' : value;
	if (!SEND_AS_VALUES.includes(chosen as SendAs)) {
		throw invalidInput(
			ctx,
			itemIndex,
			'Send As (sendAs)',
			`must be one of ${SEND_AS_VALUES.join(', ')}, got "${String(value)}"`,
		);
	}
	return chosen as SendAs;
}

/**
 * The request for one lookup in the chosen form. With `bearerJson` the engine sends the JSON
 * body with `Content-Type: application/json`: without it the service would read the body as
 * form data and not find the looked-up field.
 */
export function lookupRequest(
	path: string,
	fields: Record<string, string>,
	sendAs: SendAs,
): ServiceRequest {
	switch (sendAs) {
		case 'query':
			return { method: 'GET', path, qs: { ...fields } };
		case 'form':
			return { method: 'POST', path, form: { ...fields } };
		case 'bearerJson':
			return { method: 'POST', path, json: { ...fields } };
	}
}
