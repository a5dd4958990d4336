import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { SEND_AS_FORMS, type SendAs } from '../../../credentials/shared/requestForms';
import { invalidInput } from '../engine/errors';

/*
 * How phone and email lookups reach their service: the person chooses the request's form
 * (requestForms.ts says what each sends and where its key goes).
 */

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
	if (!SEND_AS_FORMS.includes(chosen as SendAs)) {
		throw invalidInput(
			ctx,
			itemIndex,
			'Send As (sendAs)',
			`must be one of ${SEND_AS_FORMS.join(', ')}, got "${String(value)}"`,
		);
	}
	return chosen as SendAs;
}
