/**
 * Records of two MMDB readers compared as values (no reader imported here: the fuzz campaigns
 * and the bench use it as well as the tests of the built package).
 */

/** mmdb-lib gives bytes as Buffer views; the package gives plain Uint8Array copies. */
export function normalise(value: unknown): unknown {
	if (value instanceof Uint8Array) return Uint8Array.from(value);
	if (Array.isArray(value)) return value.map(normalise);
	if (value !== null && typeof value === 'object') {
		return Object.fromEntries(Object.entries(value).map(([key, entry]) => [key, normalise(entry)]));
	}
	return value;
}

/** Structural equality that tells Uint8Array, BigInt, -0 and NaN apart as jest's toEqual does. */
export function deepEqual(a: unknown, b: unknown): boolean {
	if (Object.is(a, b)) return true;
	if (typeof a !== typeof b || a === null || b === null || typeof a !== 'object') return false;
	if (a instanceof Uint8Array || b instanceof Uint8Array) {
		return (
			a instanceof Uint8Array &&
			b instanceof Uint8Array &&
			a.length === b.length &&
			a.every((byte, index) => byte === b[index])
		);
	}
	if (Array.isArray(a) !== Array.isArray(b)) return false;
	const keysA = Object.keys(a as object);
	const keysB = Object.keys(b as object);
	if (keysA.length !== keysB.length) return false;
	return keysA.every(
		(key) =>
			Object.prototype.hasOwnProperty.call(b, key) &&
			deepEqual((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]),
	);
}
