import type { Reader, Response } from 'mmdb-lib';

/**
 * Random IP addresses for comparing the package's MMDB reader with mmdb-lib, in the tests and the
 * reader benchmark alike: uniform IPv4, IPv6 weighted towards allocated space, and addresses near
 * covered networks. Seeded by the caller's generator (../random), so every run sees the same ones.
 */

export function randomIpv4(next: () => number): string {
	const value = next();
	return `${value >>> 24}.${(value >>> 16) & 255}.${(value >>> 8) & 255}.${value & 255}`;
}

/** RIR blocks where most IPv6 allocations (and so hits) are: 2001::/16, and 2400, 2600, 2800, 2a00, 2c00 ::/12. */
const ALLOCATED_IPV6 = [0x2001, 0x2400, 0x2600, 0x2800, 0x2a00, 0x2c00];

/** A third anywhere in the 128-bit space, a third in 2000::/4, a third in the RIRs' blocks. */
export function randomIpv6(next: () => number, index: number): string {
	const groups: number[] = [];
	for (let group = 0; group < 8; group += 2) {
		const value = next();
		groups.push(value >>> 16, value & 0xffff);
	}
	if (index % 3 === 1) groups[0] = 0x2000 | (groups[0] & 0x0fff);
	if (index % 3 === 2) {
		const block = ALLOCATED_IPV6[groups[0] % ALLOCATED_IPV6.length];
		groups[0] = block === 0x2001 ? block : block | (groups[0] & 0x000f);
	}
	return groups.map((group) => group.toString(16)).join(':');
}

/** Address bytes as text mmdb-lib parses: dotted quad, or eight full hex groups. */
export function addressText(bytes: Uint8Array): string {
	if (bytes.length === 4) return bytes.join('.');
	const groups: string[] = [];
	for (let index = 0; index < 16; index += 2)
		groups.push(((bytes[index] << 8) | bytes[index + 1]).toString(16));
	return groups.join(':');
}

/**
 * Addresses near the networks that `seeds` hit in mmdb-lib: a hit's first (prefix - 0..8) bits
 * kept, the rest random. Sparse IPv6 space gets few hits from uniform addresses; these land in
 * covered networks, their neighbours and the gaps between them.
 */
export function* aroundHits(
	theirs: Reader<Response>,
	seeds: string[],
	count: number,
	next: () => number,
	parse: (text: string) => Uint8Array | undefined,
): Generator<string> {
	const hits: Array<[Uint8Array, number]> = [];
	for (const ip of seeds) {
		const [record, prefix] = theirs.getWithPrefixLength(ip);
		if (record !== null) hits.push([parse(ip)!, prefix]);
	}
	if (hits.length === 0) throw new Error('No seed address is covered');
	for (let index = 0; index < count; index++) {
		const [address, prefix] = hits[next() % hits.length];
		const kept = Math.max(0, prefix - (next() % 9));
		const out = Uint8Array.from(address);
		for (let byte = kept >> 3; byte < out.length; byte++) {
			// The bits of this byte past `kept` come from the random number.
			const keep = Math.max(0, Math.min(8, kept - byte * 8));
			const mask = (0xff << (8 - keep)) & 0xff;
			out[byte] = (out[byte] & mask) | (next() & ~mask & 0xff);
		}
		yield addressText(out);
	}
}
