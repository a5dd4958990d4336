import type { IExecuteFunctions } from 'n8n-workflow';

import { COUNTRY_CODES } from './countries';
import { readMailAddress } from './mailAddress';
import { PHONE_COUNTRY_CODES } from './phoneCountries';
import { asGiven, quoted } from './quoted';
import { invalidInput } from '../engine/errors';

/**
 * Checks of parameter values, run before any request. Each takes the field as a person sees it
 * ("Quality (quality)") and throws an error that names it and the rule it breaks.
 */

export function requiredText(
	ctx: IExecuteFunctions,
	itemIndex: number,
	field: string,
	value: unknown,
): string {
	const text = value === undefined || value === null ? '' : String(value).trim();
	if (text === '') throw invalidInput(ctx, itemIndex, field, 'is required and must not be empty');
	return text;
}

/** A bound of length: the most characters a value of one format can have, and why, as an error says it. */
export interface LengthBound {
	most: number;
	why: string;
}

/**
 * The longest each value the services take can be, from its format's standard and with room: a
 * value past it cannot be valid, and is refused before any request rather than sent as typed (a
 * value of 4 MiB drew HTTP 431, a request too large, and cost its request). Counted in characters
 * (UTF-16 code units), never more than the value's octets in UTF-8: a bound a standard sets in
 * octets only widens so (test/values/lengths.test.ts holds the public corpora to them).
 */
export const LONGEST = {
	emailAddress: {
		most: 254,
		why: 'no email address is longer (RFC 5321 caps a path at 256 octets, its angle brackets included)',
	},
	emailAsTyped: {
		most: 998,
		why: 'no email address is that long, with a display name or comments around it (RFC 5322 caps a line of a message header at 998 characters)',
	},
	phone: {
		most: 400,
		why: 'a phone number has at most 15 digits (ITU-T E.164); with separators, an extension and the parameters of RFC 3966 (a phone-context domain has at most 253 characters) it stays far shorter',
	},
	iban: {
		most: 100,
		why: 'an IBAN has at most 34 letters and digits (ISO 13616), 42 characters printed in groups of four',
	},
	vatNumber: {
		most: 64,
		why: "a VAT number is its country prefix and at most 12 characters more (the EU's VIES), and its longest written forms (Switzerland's CHE-123.456.789 MWST) have 20",
	},
	url: {
		most: 8000,
		why: 'RFC 9110 asks web servers to take addresses of at least 8,000 octets and no more, so no service can be relied on to fetch a longer one',
	},
	/** A free text the request carries in its address (Avatars' name, Website Screenshot's CSS and user agent). */
	inAddress: {
		most: 8000,
		why: "it is sent in the request's address, and RFC 9110 asks web servers to take addresses of at least 8,000 octets and no more",
	},
} as const satisfies Record<string, LengthBound>;

/** The rule a text longer than `bound` breaks, or undefined for one within it (for callers that must not throw). */
export function tooLong(text: string, bound: LengthBound): string | undefined {
	if (text.length <= bound.most) return undefined;
	return `is ${text.length.toLocaleString('en-US')} characters long, more than ${bound.most.toLocaleString('en-US')}: ${bound.why}; it starts ${quoted(text)}`;
}

/** `text` when it is within `bound`; otherwise an error naming the field, the bound and why. */
export function withinLength(
	ctx: IExecuteFunctions,
	itemIndex: number,
	field: string,
	text: string,
	bound: LengthBound,
): string {
	const rule = tooLong(text, bound);
	if (rule !== undefined) throw invalidInput(ctx, itemIndex, field, rule);
	return text;
}

/**
 * A required text within `bound` (a phone number, an IBAN, a VAT number as sent), trimmed.
 */
export function requiredWithin(
	ctx: IExecuteFunctions,
	itemIndex: number,
	field: string,
	value: unknown,
	bound: LengthBound,
): string {
	return withinLength(ctx, itemIndex, field, requiredText(ctx, itemIndex, field, value), bound);
}

/**
 * Email Reputation's value: the text as typed (what is sent, unless it names its address in
 * angle brackets: `Ada Lovelace <ada@acme.com>` sends `inBrackets`), its address within RFC
 * 5321's length and the whole within a header line's.
 */
export function emailValue(
	ctx: IExecuteFunctions,
	itemIndex: number,
	field: string,
	value: unknown,
): { typed: string; inBrackets?: string } {
	const typed = requiredWithin(ctx, itemIndex, field, value, LONGEST.emailAsTyped);
	const read = readMailAddress(typed);
	withinLength(ctx, itemIndex, field, read?.address ?? typed, LONGEST.emailAddress);
	return read?.inBrackets ? { typed, inBrackets: read.address } : { typed };
}

/**
 * Codes the holidays service's published list files under another code: it pairs RE with both
 * Reunion and Russia and BH with both Bahrain and the Bahamas. A refusal of one says where the
 * service keeps that country, so that a person is not left thinking it has none.
 */
export const HOLIDAYS_FILED_UNDER: Readonly<Record<string, string>> = {
	RU: 'the service files Russia under RE',
	BS: 'the service files the Bahamas under BH',
};

/**
 * A country code of the holidays service's list (Public Holidays, VAT); the refusal names the
 * value and the rule, and where the service files a country it lists under another code (`filedUnder`).
 */
export function countryCode(
	ctx: IExecuteFunctions,
	itemIndex: number,
	field: string,
	value: unknown,
	filedUnder: Readonly<Record<string, string>> = {},
): string {
	const code = requiredText(ctx, itemIndex, field, value).toUpperCase();
	if (!COUNTRY_CODES.has(code)) {
		const filed = filedUnder[code] ? `; ${filedUnder[code]}` : '';
		throw invalidInput(
			ctx,
			itemIndex,
			field,
			`${quoted(String(value))} is not a two-letter country code of the service's list (for instance US, DE, FR)${filed}`,
		);
	}
	return code;
}

/** Any ISO 3166-1 alpha-2 code (Phone Intelligence's Country), sent as given, upper-cased. */
export function isoCountryCode(
	ctx: IExecuteFunctions,
	itemIndex: number,
	field: string,
	value: unknown,
): string {
	const code = requiredText(ctx, itemIndex, field, value).toUpperCase();
	if (!PHONE_COUNTRY_CODES.has(code)) {
		throw invalidInput(
			ctx,
			itemIndex,
			field,
			`${quoted(String(value))} is not an ISO 3166-1 alpha-2 country code (two letters, for instance US, DE, RU)`,
		);
	}
	return code;
}

/** A number from a number field, or from an expression that gives a numeric text. */
export function asNumber(value: unknown): unknown {
	return typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
}

export interface NumberRule {
	min: number;
	/** Upper bound, inclusive; none when the service documents none. */
	max?: number;
	whole?: boolean;
}

/** A number that keeps a rule; the error states the rule in words. */
export function numberWithin(
	ctx: IExecuteFunctions,
	itemIndex: number,
	field: string,
	value: unknown,
	{ min, max, whole = false }: NumberRule,
): number {
	const number = asNumber(value);
	const fits =
		typeof number === 'number' &&
		Number.isFinite(number) &&
		(!whole || Number.isInteger(number)) &&
		number >= min &&
		(max === undefined || number <= max);
	if (!fits) {
		const kind = whole ? 'a whole number' : 'a number';
		const range = max !== undefined ? `from ${min} to ${max}` : `of at least ${min}`;
		throw invalidInput(ctx, itemIndex, field, `must be ${kind} ${range}, got ${asGiven(value)}`);
	}
	return number as number;
}

/** A whole number within bounds. */
export function wholeNumber(
	ctx: IExecuteFunctions,
	itemIndex: number,
	field: string,
	value: unknown,
	min: number,
	max: number,
): number {
	return numberWithin(ctx, itemIndex, field, value, { min, max, whole: true });
}

/** A number, fractions allowed, within bounds. */
export function decimalNumber(
	ctx: IExecuteFunctions,
	itemIndex: number,
	field: string,
	value: unknown,
	min: number,
	max: number,
): number {
	return numberWithin(ctx, itemIndex, field, value, { min, max });
}

// The IP address checks live with the address parser that the database lookups use.
export { isIpv4, isIpv6 } from './ipAddress';

/** A color as hex without '#', as the avatar service wants it; '#' from n8n's color picker is stripped. */
export function hexColor(
	ctx: IExecuteFunctions,
	itemIndex: number,
	field: string,
	value: unknown,
): string {
	const text = requiredText(ctx, itemIndex, field, value).replace(/^#/, '');
	if (!/^([\da-f]{3}|[\da-f]{6})$/i.test(text)) {
		throw invalidInput(
			ctx,
			itemIndex,
			field,
			`must be a hex color such as 335eea (3 or 6 hex digits), got ${quoted(String(value))}`,
		);
	}
	return text.toLowerCase();
}

/** An absolute http:// or https:// address, of at most LONGEST.url characters. */
export function httpUrl(
	ctx: IExecuteFunctions,
	itemIndex: number,
	field: string,
	value: unknown,
): string {
	const text = requiredWithin(ctx, itemIndex, field, value, LONGEST.url);
	let valid = false;
	try {
		const url = new URL(text);
		valid = (url.protocol === 'http:' || url.protocol === 'https:') && /^https?:\/\//i.test(text);
	} catch {
		valid = false;
	}
	if (!valid) {
		throw invalidInput(
			ctx,
			itemIndex,
			field,
			`must be a full address starting with http:// or https://, got ${quoted(text)}`,
		);
	}
	return text;
}
