/**
 * The network column of a database CSV read straight from its bytes: the CSV index reads one per
 * row (millions), so the common form costs no string, no array and no BigInt. Anything else
 * goes the careful way (`parseCidr` in csvIndex.ts), which gives the same answer for this form.
 */

const DOT = 0x2e;
const SLASH = 0x2f;
const ZERO = 0x30;

/**
 * "a.b.c.d/p" written plainly (no spaces; octets without a leading zero, as parseIpAddress
 * wants; a prefix of 1 to 3 digits up to 32): the network's first address (host bits cleared)
 * times 64 plus the prefix, or -1 when the text is in any other form.
 */
export function plainIpv4Network(bytes: Uint8Array, from: number, to: number): number {
	let position = from;
	let address = 0;
	for (let octet = 0; octet < 4; octet++) {
		if (octet > 0) {
			if (position >= to || bytes[position] !== DOT) return -1;
			position++;
		}
		const first = position;
		let value = 0;
		while (position < to && position - first < 3) {
			const digit = bytes[position] - ZERO;
			if (digit < 0 || digit > 9) break;
			value = value * 10 + digit;
			position++;
		}
		const length = position - first;
		if (length === 0 || value > 255 || (length > 1 && bytes[first] === ZERO)) return -1;
		address = address * 256 + value;
	}
	if (position >= to || bytes[position] !== SLASH) return -1;
	position++;
	const prefixFirst = position;
	let prefix = 0;
	while (position < to) {
		const digit = bytes[position] - ZERO;
		if (digit < 0 || digit > 9) return -1;
		prefix = prefix * 10 + digit;
		position++;
	}
	const prefixLength = position - prefixFirst;
	if (prefixLength === 0 || prefixLength > 3 || prefix > 32) return -1;
	const start = prefix === 0 ? 0 : (address & (0xffffffff << (32 - prefix))) >>> 0;
	return start * 64 + prefix;
}

const ALL_64 = (1n << 64n) - 1n;
/** For each prefix 0..128: the bits kept in the high and the low 64-bit half. */
const KEEP_HIGH = Array.from({ length: 129 }, (_, prefix) => (prefix >= 64 ? ALL_64 : ALL_64 ^ ((1n << BigInt(64 - prefix)) - 1n)));
const KEEP_LOW = Array.from({ length: 129 }, (_, prefix) => (prefix <= 64 ? 0n : ALL_64 ^ ((1n << BigInt(128 - prefix)) - 1n)));

/** An IPv6 network's first address (host bits cleared) as its high and low 64-bit halves. */
export function maskedIpv6Halves(address: Uint8Array, prefix: number): [bigint, bigint] {
	const view = new DataView(address.buffer, address.byteOffset, 16);
	return [view.getBigUint64(0) & KEEP_HIGH[prefix], view.getBigUint64(8) & KEEP_LOW[prefix]];
}
