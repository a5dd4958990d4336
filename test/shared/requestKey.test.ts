/**
 * The request key (pure library code), against an oracle: JSON.stringify itself, with a replacer
 * that sorts every plain object's keys and marks anything else. Same requests must give the same
 * key and different requests different keys, exactly as JSON tells them apart.
 */
import { requestKey } from '../../nodes/shared/engine/requestKey';
import { randomFraction } from '../sandbox/random';

function oracleKey(prepared: unknown): string | undefined {
	let plain = true;
	const text = JSON.stringify(prepared, (_key, value: unknown) => {
		if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
		const prototype = Object.getPrototypeOf(value) as unknown;
		if (prototype !== Object.prototype && prototype !== null) {
			plain = false;
			return undefined;
		}
		return Object.fromEntries(
			Object.entries(value as object).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
		);
	});
	return plain && text !== undefined ? text : undefined;
}

/** A random JSON-like value: plain objects (keys in random order), arrays, and JSON's odd cases. */
function randomValue(next: () => number, depth: number): unknown {
	const pick = Math.floor(next() * (depth > 2 ? 8 : 11));
	const text = () =>
		['', 'a', 'b', 'é', '"q"', 'line\nbreak', 'x\u2028y', '\u0000', 'Zz', '10', '2'][
			Math.floor(next() * 11)
		];
	switch (pick) {
		case 0:
			return text();
		case 1:
			return [0, -0, 1.5, -3, 1e21, 1e-7, NaN, Infinity, 2 ** 53][Math.floor(next() * 9)];
		case 2:
			return next() < 0.5;
		case 3:
			return null;
		case 4:
			return undefined;
		case 5:
			return () => 1;
		case 6:
			return new Date(Math.floor(next() * 2e12));
		case 7:
			return Symbol('s');
		case 8:
		case 9: {
			const object: Record<string, unknown> = next() < 0.2 ? Object.create(null) : {};
			const count = Math.floor(next() * 5);
			for (let index = 0; index < count; index++)
				object[text() + String(Math.floor(next() * 3))] = randomValue(next, depth + 1);
			return object;
		}
		default:
			return Array.from({ length: Math.floor(next() * 4) }, () => randomValue(next, depth + 1));
	}
}

describe('requestKey', () => {
	it('is the sorted JSON of a request: the same whatever the order of its keys', () => {
		expect(requestKey({ method: 'POST', path: '/v1/', json: { email: 'a@b.co' } })).toBe(
			'{"json":{"email":"a@b.co"},"method":"POST","path":"/v1/"}',
		);
		expect(requestKey({ path: '/v1/', json: { email: 'a@b.co' }, method: 'POST' })).toBe(
			requestKey({ method: 'POST', path: '/v1/', json: { email: 'a@b.co' } }),
		);
		expect(requestKey({ path: '/v1/', qs: { phone: '1', country: 'US' } })).not.toBe(
			requestKey({ path: '/v1/', qs: { phone: '1', country: 'DE' } }),
		);
	});

	it('gives no key to a request that carries bytes in a form object, a map or a bigint', () => {
		expect(requestKey({ path: '/v1/', form: new URLSearchParams({ a: '1' }) })).toBeUndefined();
		expect(requestKey({ path: '/v1/', body: new Map([['a', 1]]) })).toBeUndefined();
		expect(requestKey({ path: '/v1/', size: BigInt(1) })).toBeUndefined();
		expect(requestKey(undefined)).toBeUndefined();
	});

	it('tells 20,000 random values apart exactly as JSON.stringify with sorted keys does', () => {
		const next = randomFraction(17);
		// Each key stands for one oracle key and back: no two requests share a key, no request has two.
		const oracleOf = new Map<string, string>();
		const keyOf = new Map<string, string>();
		let keyed = 0;
		for (let round = 0; round < 20_000; round++) {
			const value = randomValue(next, 0);
			const expected = oracleKey(value);
			const key = requestKey(value);
			if (expected === undefined) {
				expect(key).toBeUndefined();
				continue;
			}
			keyed++;
			expect(key).toBeDefined();
			// The same JSON (JS lists integer-like keys first, so the oracle's text may order them apart).
			expect(JSON.parse(key!)).toEqual(JSON.parse(expected));
			expect(oracleOf.get(key!) ?? expected).toBe(expected);
			expect(keyOf.get(expected) ?? key).toBe(key);
			oracleOf.set(key!, expected);
			keyOf.set(expected, key!);
			// Its keys in another order: the same request.
			expect(requestKey(reordered(value))).toBe(key);
		}
		expect(keyed).toBeGreaterThan(10_000);
		expect(oracleOf.size).toBeGreaterThan(1_000);
	});
});

/** The value with every plain object's keys inserted in reverse order. */
function reordered(value: unknown): unknown {
	if (Array.isArray(value)) return value.map(reordered);
	if (value === null || typeof value !== 'object') return value;
	const prototype = Object.getPrototypeOf(value) as unknown;
	if (prototype !== Object.prototype && prototype !== null) return value;
	const copy: Record<string, unknown> = prototype === null ? Object.create(null) : {};
	for (const name of Object.keys(value).reverse())
		copy[name] = reordered((value as Record<string, unknown>)[name]);
	return copy;
}
