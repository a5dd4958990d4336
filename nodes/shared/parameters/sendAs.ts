import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import type { RequestFormName } from '../../../credentials/shared/requestForms';
import { invalidInput } from '../engine/errors';
import { quoted } from '../values/quoted';
import { fieldLabel } from './fieldLabel';

/*
 * How phone and email lookups reach their service: the person chooses the request's form. The
 * values are what saved workflows hold; each stands for one of the forms (requestForms.ts).
 */

/** The request form of each Send As value. */
const SEND_AS_FORMS = {
	bearerJson: 'postJsonKeyInBearer',
	form: 'postFormKeyInBody',
	query: 'getKeyInQuery',
} as const satisfies Record<string, RequestFormName>;

type SendAs = keyof typeof SEND_AS_FORMS;

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

/** The form Send As chooses, checked: an expression may give any text. */
export function sendAsFormOf(
	ctx: IExecuteFunctions,
	itemIndex: number,
	value: unknown,
): (typeof SEND_AS_FORMS)[SendAs] {
	const chosen = value === undefined || value === '' ? 'bearerJson' : String(value);
	if (!Object.hasOwn(SEND_AS_FORMS, chosen)) {
		throw invalidInput(
			ctx,
			itemIndex,
			fieldLabel(sendAsOption),
			`must be one of ${Object.keys(SEND_AS_FORMS).join(', ')}, got ${quoted(String(value))}`,
		);
	}
	return SEND_AS_FORMS[chosen as SendAs];
}
