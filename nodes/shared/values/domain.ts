import type { IExecuteFunctions } from 'n8n-workflow';

import { invalidInput } from '../engine/errors';
import { requiredText } from './validate';

/** One DNS label: letters (any script, for internationalised names), digits, inner hyphens. */
const LABEL = /^[\p{L}\p{N}](?:[\p{L}\p{N}-]{0,61}[\p{L}\p{N}])?$/u;

/**
 * A bare domain such as example.com, as company enrichment wants it. A pasted
 * website address (scheme, path, port, query) is refused with a hint rather than trimmed
 * silently, so the person sees which domain is looked up and pays for.
 */
export function bareDomain(ctx: IExecuteFunctions, itemIndex: number, field: string, value: unknown): string {
	const text = requiredText(ctx, itemIndex, field, value);
	if (/^[a-z][a-z\d+.-]*:\/\//i.test(text) || /[/?#@:\s]/.test(text)) {
		throw invalidInput(
			ctx,
			itemIndex,
			field,
			`must be a bare domain such as example.com, without http(s)://, path, port or query; got "${text}"`,
		);
	}
	const domain = text.replace(/\.$/, '').toLowerCase();
	const labels = domain.split('.');
	if (labels.length < 2 || !labels.every((label) => LABEL.test(label)) || /^\d+$/.test(labels[labels.length - 1])) {
		throw invalidInput(ctx, itemIndex, field, `must be a domain name such as example.com; got "${text}"`);
	}
	return domain;
}
