/**
 * An email address as a lead list or a CRM export writes it, read the way RFC 5322 section 3.4
 * allows in a message header (forms: readMailAddress), so that a valid address is never refused.
 */

export interface MailAddress {
	/** The address itself, `local@domain`, without display name, brackets or comments. */
	address: string;
	local: string;
	/** The domain as written (a domain name, or an address literal such as `[192.0.2.1]`). */
	domain: string;
	/** Whether the address came in angle brackets (with or without a display name). */
	inBrackets: boolean;
}

/** RFC 5322's atext, plus any non-ASCII character (RFC 6532). */
const ATOM = "[A-Za-z0-9!#$%&'*+/=?^_`{|}~\\-\\u0080-\\u{10FFFF}]+";
const DOT_ATOM = new RegExp(`^${ATOM}(?:\\.${ATOM})*$`, 'u');
/** A quoted string: printable characters and spaces, with `\` quoting a printable ASCII character or a space. */
const QUOTED = /^"(?:[^"\\\p{Cc}]|\\[\x20-\x7e\t])*"$/u;
/** A line break that is not folding white space (CRLF then a space or tab): no part of an address. */
const BARE_LINE_BREAK = /\r(?!\n[ \t])|(?<!\r)\n/;
const DOMAIN_LITERAL = /^\[[^[\]\\\s]*\]$/;

/**
 * `text` without its comments (parenthesised, nested, outside quoted strings); undefined when
 * a quote or a parenthesis is left open.
 */
function withoutComments(text: string): string | undefined {
	let out = '';
	let depth = 0;
	let quoted = false;
	for (let index = 0; index < text.length; index++) {
		const char = text[index];
		if (char === '\\' && (quoted || depth > 0)) {
			if (depth === 0) out += text.slice(index, index + 2);
			index++;
		} else if (quoted) {
			out += char;
			if (char === '"') quoted = false;
		} else if (char === '(') {
			// A comment separates what surrounds it, as white space does: test(x)test is two words.
			if (depth === 0) out += ' ';
			depth++;
		} else if (char === ')') {
			if (depth === 0) return undefined;
			depth--;
		} else if (depth === 0) {
			out += char;
			if (char === '"') quoted = true;
		}
	}
	return depth === 0 && !quoted ? out : undefined;
}

/** Where the angle brackets of `Name <address>` open: the last `<` outside quotes; -1 when none. */
function angleStart(text: string): number {
	let quoted = false;
	let start = -1;
	for (let index = 0; index < text.length; index++) {
		const char = text[index];
		if (char === '\\' && quoted) index++;
		else if (char === '"') quoted = !quoted;
		else if (char === '<' && !quoted) start = index;
	}
	return start;
}

/**
 * The address in `value`, or undefined when it holds none in a form RFC 5322 allows:
 * - the address alone, `ada@acme.com`, its local part a dot-atom or a quoted string
 *   (`"ada lovelace"@acme.com`), UTF-8 letters allowed (RFC 6532);
 * - in angle brackets, `<ada@acme.com>`, or after a display name, `Ada Lovelace <ada@acme.com>`
 *   or `"Lovelace, Ada" <ada@acme.com>`: the address is the part in the brackets;
 * - comments in parentheses and spaces around the local part and the domain, `(sales) ada@acme.com`.
 */
export function readMailAddress(value: string): MailAddress | undefined {
	if (BARE_LINE_BREAK.test(value.trim())) return undefined;
	// Folding white space (RFC 5322 section 3.2.2): a line break before a space is the space.
	let text = value.trim().replace(/\r\n(?=[ \t])/g, '');
	let inBrackets = false;
	if (text.endsWith('>')) {
		const start = angleStart(text);
		if (start < 0) return undefined;
		// The display name may be anything a person wrote before the brackets, a quoted one included.
		text = text.slice(start + 1, -1);
		inBrackets = true;
	}
	const spec = withoutComments(text);
	if (spec === undefined) return undefined;
	const at = spec.lastIndexOf('@');
	if (at < 0) return undefined;
	const local = spec.slice(0, at).trim();
	const domain = spec.slice(at + 1).trim();
	if (!(DOT_ATOM.test(local) || QUOTED.test(local))) return undefined;
	if (!(DOT_ATOM.test(domain) || DOMAIN_LITERAL.test(domain))) return undefined;
	return { address: `${local}@${domain}`, local, domain, inBrackets };
}
