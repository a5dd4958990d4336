import type { IExecuteFunctions } from 'n8n-workflow';

import { COUNTRY_CODES } from './countries';
import { PHONE_COUNTRY_CODES } from './phoneCountries';
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
			`"${String(value)}" is not a two-letter country code of the service's list (for instance US, DE, FR)${filed}`,
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
			`"${String(value)}" is not an ISO 3166-1 alpha-2 country code (two letters, for instance US, DE, RU)`,
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
		throw invalidInput(
			ctx,
			itemIndex,
			field,
			`must be ${kind} ${range}, got ${JSON.stringify(value)}`,
		);
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
			`must be a hex color such as 335eea (3 or 6 hex digits), got "${String(value)}"`,
		);
	}
	return text.toLowerCase();
}

/** An absolute http:// or https:// address. */
export function httpUrl(
	ctx: IExecuteFunctions,
	itemIndex: number,
	field: string,
	value: unknown,
): string {
	const text = requiredText(ctx, itemIndex, field, value);
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
			`must be a full address starting with http:// or https://, got "${text}"`,
		);
	}
	return text;
}
