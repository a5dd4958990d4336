/**
 * Strict reading of a media service's query parameters: unknown names, malformed numbers,
 * booleans other than true/false and out-of-range values are a 400, so a test that passes
 * proves the node sent the service's names and values.
 */
export class ParameterError extends Error {}

export type Query = Record<string, string>;

export function rejectUnknown(query: Query, known: readonly string[]): void {
	const unknown = Object.keys(query).filter((name) => name !== 'api_key' && !known.includes(name));
	if (unknown.length > 0) throw new ParameterError(`Unknown parameter ${unknown.join(', ')}.`);
}

export function integer(
	query: Query,
	name: string,
	min: number,
	max: number,
	fallback?: number,
): number | undefined {
	const text = query[name];
	if (text === undefined) return fallback;
	const value = Number(text);
	if (!/^-?\d+$/.test(text) || value < min || value > max) {
		throw new ParameterError(`Parameter ${name} must be a whole number from ${min} to ${max}.`);
	}
	return value;
}

export function decimal(
	query: Query,
	name: string,
	min: number,
	max: number,
	fallback: number,
): number {
	const text = query[name];
	if (text === undefined) return fallback;
	const value = Number(text);
	if (text.trim() === '' || !Number.isFinite(value) || value < min || value > max) {
		throw new ParameterError(`Parameter ${name} must be a number from ${min} to ${max}.`);
	}
	return value;
}

export function boolean(query: Query, name: string, fallback: boolean): boolean {
	const text = query[name];
	if (text === undefined) return fallback;
	if (text !== 'true' && text !== 'false')
		throw new ParameterError(`Parameter ${name} must be true or false.`);
	return text === 'true';
}

export function oneOf<T extends string>(
	query: Query,
	name: string,
	values: readonly T[],
	fallback: T,
): T {
	const text = query[name];
	if (text === undefined) return fallback;
	if (!values.includes(text as T))
		throw new ParameterError(`Parameter ${name} must be one of ${values.join(', ')}.`);
	return text as T;
}

/** Hex without '#', as the avatar service wants it: a value with '#' is invalid. */
export function hex(query: Query, name: string, fallback: string): string {
	const text = query[name];
	if (text === undefined) return fallback;
	if (!/^([\da-f]{3}|[\da-f]{6})$/i.test(text)) {
		throw new ParameterError(`Parameter ${name} must be a hex colour without the leading #.`);
	}
	return text.toLowerCase();
}

export const isHttpUrl = (text: unknown): text is string =>
	typeof text === 'string' && /^https?:\/\/[^\s/]+/i.test(text);
