import type { IExecuteFunctions } from 'n8n-workflow';

import { invalidInput } from '../engine/errors';
import { readMailAddress } from './mailAddress';
import { quoted } from './quoted';
import { ROOT_ZONE_LIST_DATE, ROOT_ZONE_TLDS } from './rootZoneTlds';
import { LONGEST, requiredText, tooLong } from './validate';

/** A URL's scheme before `//` (`https://`); `mailto:` is an email address, not a website. */
const SCHEME = /^[a-z][a-z\d+.-]*:\/\//i;

/** One label of a host name in ASCII (RFC 1123): letters, digits, inner hyphens; an internationalised label's punycode form is one. */
const ASCII_LABEL = /^[a-z\d](?:[a-z\d-]{0,61}[a-z\d])?$/;

/** The longest domain name DNS can carry, in its ASCII form without the trailing dot (RFC 1035). */
const MAX_DOMAIN_LENGTH = 253;

let rootZone: ReadonlySet<string> | undefined;
/** The root zone's top-level domains (ASCII), made into a set the first time a domain is checked. */
const rootZoneTlds = () => (rootZone ??= new Set(ROOT_ZONE_TLDS.split('\n')));

/** How a company's domain was given: as it is, in an email address, or in a website address. */
export type DomainForm = 'domain' | 'email' | 'url';

export interface DomainOfValue {
	/**
	 * The domain to look up, in the ASCII form DNS and the service's examples use (punycode for an
	 * internationalised name), lower-case, without a trailing dot (and, from a website, without `www.`).
	 */
	domain: string;
	form: DomainForm;
	/** Whether the domain is what the value said, up to case and a trailing dot (a bare domain typed as sent). */
	asTyped: boolean;
}

/** The rule a value that is none of the three forms breaks, as an error states it. */
export const DOMAIN_EMAIL_OR_URL_RULE =
	'must be a domain (example.com), an email address (ada@example.com) or a website address (https://www.example.com/about)';

/**
 * The host `URL` reads in `host` (WHATWG URL, IDNA per UTS #46: case, full-width forms,
 * decomposed text, marks and joiners, punycode), as its ASCII form; undefined when it is no host.
 */
function asciiHost(host: string): string | undefined {
	try {
		return new URL(`http://${host}/`).hostname;
	} catch {
		return undefined;
	}
}

/** The domain name a parsed host is, or the rule it breaks (no domain name, or a top-level domain outside the root zone). */
function domainOfHost(
	host: string | undefined,
	text: string,
): { domain: string } | { refused: string } {
	const got = `got ${quoted(text)}`;
	if (host === undefined || host.startsWith('['))
		return { refused: `${DOMAIN_EMAIL_OR_URL_RULE}; ${got}` };
	const domain = host.replace(/\.$/, '');
	const labels = domain.split('.');
	const tld = labels[labels.length - 1];
	// The URL parser reads a host whose last label is a number as an IPv4 address.
	if (
		labels.length < 2 ||
		/^(\d+|0x[\da-f]*)$/.test(tld) ||
		!labels.every((label) => ASCII_LABEL.test(label))
	) {
		return { refused: `${DOMAIN_EMAIL_OR_URL_RULE}; ${got}` };
	}
	if (domain.length > MAX_DOMAIN_LENGTH) {
		return {
			refused: `must be a domain name of at most ${MAX_DOMAIN_LENGTH} characters in its ASCII form (DNS's limit); ${got} (${domain.length})`,
		};
	}
	if (!rootZoneTlds().has(tld)) {
		return {
			refused: `the top-level domain ".${tld}" is not in the DNS root zone (IANA's list of ${ROOT_ZONE_LIST_DATE}), so no company can have this domain; ${got}`,
		};
	}
	return { domain };
}

/** The same domain as typed, up to case and a trailing dot. */
const sameAsTyped = (domain: string, typed: string) =>
	domain === typed.trim().toLowerCase().replace(/\.$/, '');

/**
 * What a lead list gives for a company, read as the domain to look up:
 * - an email address, as RFC 5322 writes it (`ada@acme.com`, `"ada lovelace"@acme.com`,
 *   `Ada Lovelace <ada@acme.com>`, `<ada@acme.com>`, `mailto:ada@acme.com`): its domain;
 * - a website address (`https://www.acme.com/about`, `acme.com/about`, `acme.com:8080`): its
 *   host, without a leading `www.` (a website's `www.` is its web server, not another company);
 * - anything else is a bare domain, looked up as typed, as saved workflows sent it when the node
 *   took nothing but domains: `www.acme.com` stays.
 * Every host is read by the WHATWG URL parser, as a browser reads it, and sent in its ASCII form;
 * its top-level domain must be in the root zone. Returns why it is none of these instead, for a
 * caller that must not throw (header detection).
 */
export function readDomainOf(value: string): DomainOfValue | { refused: string } {
	const text = value.trim();
	// Nothing is parsed of a text longer than any website address (a domain or an email address is shorter still).
	const long = tooLong(text, LONGEST.url);
	if (long !== undefined) return { refused: long };
	const refused = { refused: `${DOMAIN_EMAIL_OR_URL_RULE}; got ${quoted(text)}` };
	if (text === '') return refused;
	const mailto = /^mailto:/i.test(text);
	if (mailto || (!SCHEME.test(text) && text.includes('@'))) {
		const address = readMailAddress(mailto ? text.slice('mailto:'.length).split('?')[0] : text);
		if (address === undefined || address.domain.startsWith('[')) return refused;
		const read = domainOfHost(asciiHost(address.domain), text);
		return 'refused' in read
			? read
			: { domain: read.domain, form: 'email', asTyped: sameAsTyped(read.domain, address.domain) };
	}
	// A space, a tab or a control character is no part of a domain or a website address (the URL parser would drop some silently).
	if (/[\s\p{Cc}]/u.test(text)) return refused;
	if (SCHEME.test(text) || /[/?#:\\]/.test(text)) {
		if (SCHEME.test(text) && !/^https?:\/\//i.test(text)) return refused;
		let host: string | undefined;
		try {
			host = new URL(SCHEME.test(text) ? text : `http://${text}`).hostname;
		} catch {
			host = undefined;
		}
		const read = domainOfHost(host, text);
		if ('refused' in read) return read;
		const { domain } = read;
		const withoutWww =
			domain.startsWith('www.') && domain.split('.').length > 2
				? domain.slice('www.'.length)
				: domain;
		return { domain: withoutWww, form: 'url', asTyped: false };
	}
	const read = domainOfHost(asciiHost(text), text);
	return 'refused' in read
		? read
		: { domain: read.domain, form: 'domain', asTyped: sameAsTyped(read.domain, text) };
}

/** `readDomainOf` for a parameter or a file's cell: an error naming the field and the rule when the value is none of the three forms. */
export function domainOfValue(
	ctx: IExecuteFunctions,
	itemIndex: number,
	field: string,
	value: unknown,
): DomainOfValue {
	const read = readDomainOf(requiredText(ctx, itemIndex, field, value));
	if ('refused' in read) throw invalidInput(ctx, itemIndex, field, read.refused);
	return read;
}
