import type { IExecuteFunctions } from 'n8n-workflow';

import { invalidInput } from '../engine/errors';
import { requiredText } from './validate';

/** One DNS label: letters (any script, for internationalised names), digits, inner hyphens. */
const LABEL = /^[\p{L}\p{N}](?:[\p{L}\p{N}-]{0,61}[\p{L}\p{N}])?$/u;

/** A URL's scheme before `//` (`https://`); `mailto:` is an email address, not a website. */
const SCHEME = /^[a-z][a-z\d+.-]*:\/\//i;

/** The part of a website address that names its host: after the scheme and any user, before the port, path, query or fragment. */
const URL_HOST = /^(?:[a-z][a-z\d+.-]*:\/\/)?(?:[^@/?#]*@)?([^/?#:]*)(?::\d*)?(?:[/?#].*)?$/i;

/**
 * The domain name in `text`, lower-cased and without a trailing dot; undefined when it is no
 * domain name (one label, a label with a space or an underscore, an IP address).
 */
function domainName(text: string): string | undefined {
	const domain = text.replace(/\.$/, '').toLowerCase();
	const labels = domain.split('.');
	if (labels.length < 2 || !labels.every((label) => LABEL.test(label)) || /^\d+$/.test(labels[labels.length - 1])) {
		return undefined;
	}
	return domain;
}

/** How a company's domain was given: as it is, in an email address, or in a website address. */
export type DomainForm = 'domain' | 'email' | 'url';

export interface DomainOfValue {
	/** The domain to look up: lower-cased, without a trailing dot (and, from a website, without `www.`). */
	domain: string;
	form: DomainForm;
}

/** The rule a value that is none of the three forms breaks, as an error states it. */
export const DOMAIN_EMAIL_OR_URL_RULE =
	'must be a domain (example.com), an email address (ada@example.com) or a website address (https://www.example.com/about)';

/**
 * What a lead list gives for a company, read as the domain to look up:
 * - an email address (`ada@acme.com`, `mailto:ada@acme.com`): the part after its last `@`;
 * - a website address (`https://www.acme.com/about`, `acme.com/about`, `acme.com:8080`): its
 *   host, without a leading `www.` (a website's `www.` is its web server, not another company);
 * - anything else is a bare domain, looked up as typed (lower-cased, without a trailing dot), as
 *   saved workflows sent it when the node took nothing but domains: `www.acme.com` stays.
 * Returns why it is none of them instead, for a caller that must not throw (header detection).
 */
export function readDomainOf(value: string): DomainOfValue | { refused: string } {
	const text = value.trim();
	const refused = { refused: `${DOMAIN_EMAIL_OR_URL_RULE}; got "${text}"` };
	if (text === '' || /\s/.test(text)) return refused;
	const email = /^mailto:/i.test(text) ? text.slice('mailto:'.length).split('?')[0] : SCHEME.test(text) ? undefined : text.includes('@') ? text : undefined;
	if (email !== undefined) {
		const at = email.lastIndexOf('@');
		const domain = at > 0 ? domainName(email.slice(at + 1)) : undefined;
		return domain === undefined ? refused : { domain, form: 'email' };
	}
	if (SCHEME.test(text) || /[/?#:]/.test(text)) {
		if (SCHEME.test(text) && !/^https?:\/\//i.test(text)) return refused;
		const host = URL_HOST.exec(text)?.[1];
		const domain = host ? domainName(host) : undefined;
		if (domain === undefined) return refused;
		const withoutWww = domain.startsWith('www.') && domain.split('.').length > 2 ? domain.slice('www.'.length) : domain;
		return { domain: withoutWww, form: 'url' };
	}
	const domain = domainName(text);
	return domain === undefined ? refused : { domain, form: 'domain' };
}

/** `readDomainOf` for a parameter or a file's cell: an error naming the field and the rule when the value is none of the three forms. */
export function domainOfValue(ctx: IExecuteFunctions, itemIndex: number, field: string, value: unknown): DomainOfValue {
	const read = readDomainOf(requiredText(ctx, itemIndex, field, value));
	if ('refused' in read) throw invalidInput(ctx, itemIndex, field, read.refused);
	return read;
}
