import { randomIpv4, randomIpv6 } from './addresses';
import { random32 } from '../random';

/**
 * The client addresses of a web server's access log, for the lookup node's file input in tests
 * and benches: a pool of distinct addresses (IPv4 and IPv6, some covered by the database, some
 * not, some private), drawn so that a few addresses make most of the lines, as in a real log.
 */

/** `distinct` addresses: `covered` ones first (cycled), then random IPv4 and IPv6, a private one in twenty. */
export function addressPool(distinct: number, covered: readonly string[], seed: number): string[] {
	const next = random32(seed);
	const pool: string[] = [];
	for (let index = 0; index < distinct; index++) {
		if (index % 20 === 19) pool.push(`10.${index & 255}.${(index >> 8) & 255}.7`);
		else if (index % 3 === 0 && covered.length > 0)
			pool.push(covered[(index / 3) % covered.length]);
		else if (index % 3 === 1) pool.push(randomIpv4(next));
		else pool.push(randomIpv6(next, index));
	}
	return pool;
}

/** `count` lines' addresses from `pool`, heavy-headed: the first tenth of the pool makes about half the lines. */
export function* logAddresses(
	count: number,
	pool: readonly string[],
	seed: number,
): Generator<string> {
	const next = random32(seed);
	for (let line = 0; line < count; line++) {
		const u = next() / 0x1_0000_0000;
		yield pool[Math.floor(pool.length * u * u * u)];
	}
}
