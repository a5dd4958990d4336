/**
 * The network column of a database CSV read straight from its bytes: the CSV index reads one per
 * row (millions), so the common form costs no string, no array and no BigInt. Anything else
 * goes the careful way (`parseCidr` in csvIndexBuilder.ts), which gives the same answer for this form.
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

/**
 * Scratch bytes seen as two 64-bit numbers: an address's bytes, masked byte by byte and written
 * in the machine's order, are read back as its halves with no BigInt arithmetic (a DataView's
 * getBigUint64 was most of an IPv6 row's cost).
 */
const scratch = new Uint8Array(16);
const scratchHalves = new BigUint64Array(scratch.buffer);
const littleEndian = new Uint8Array(Uint16Array.of(1).buffer)[0] === 1;

/** An IPv6 network's first address (host bits cleared) as its high and low 64-bit halves. */
export function maskedIpv6Halves(address: Uint8Array, prefix: number): [bigint, bigint] {
	for (let index = 0; index < 16; index++) {
		const bits = prefix - index * 8;
		const byte =
			bits >= 8 ? address[index] : bits <= 0 ? 0 : address[index] & (0xff << (8 - bits)) & 0xff;
		// Each half's bytes, most significant first in the address, go where the machine reads them.
		scratch[littleEndian ? (index < 8 ? 7 - index : 23 - index) : index] = byte;
	}
	return [scratchHalves[0], scratchHalves[1]];
}
