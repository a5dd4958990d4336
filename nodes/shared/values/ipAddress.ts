/**
 * IP addresses as bytes, and networks as text. Hand-written parsers (no regular expressions, no
 * intermediate arrays): the database lookups parse one address per item, so this is on the hot path.
 */

/**
 * 4 bytes for IPv4 (dotted quad), 16 for IPv6 (all RFC 4291 text forms incl. ::ffff:1.2.3.4);
 * undefined if not an address. A zone suffix (fe80::1%eth0, RFC 4007) is accepted on IPv6 and
 * ignored. IPv4 octets with a leading zero (010.1.1.1) are refused: some tools read them as octal.
 */
export function parseIpAddress(text: string): Uint8Array | undefined {
	if (typeof text !== 'string') return undefined;
	if (text.indexOf(':') === -1) {
		const bytes = new Uint8Array(4);
		return parseDottedQuad(text, 0, text.length, bytes, 0) ? bytes : undefined;
	}
	return parseIpv6(text);
}

/** Whether `text` is a dotted-quad IPv4 address. */
export function isIpv4(text: string): boolean {
	return typeof text === 'string' && parseDottedQuad(text, 0, text.length, new Uint8Array(4), 0);
}

/** Whether `text` is an IPv6 address in any of its written forms (full, compressed, IPv4 tail, zone). */
export function isIpv6(text: string): boolean {
	return typeof text === 'string' && text.indexOf(':') !== -1 && parseIpv6(text) !== undefined;
}

/** Reads the dotted quad in text[start, end) into out[at..at+3]; false if it is not one. */
function parseDottedQuad(
	text: string,
	start: number,
	end: number,
	out: Uint8Array,
	at: number,
): boolean {
	let position = start;
	for (let octet = 0; octet < 4; octet++) {
		if (octet > 0) {
			if (position >= end || text.charCodeAt(position) !== 46 /* . */) return false;
			position++;
		}
		const first = position;
		let value = 0;
		while (position < end) {
			const digit = text.charCodeAt(position) - 48;
			if (digit < 0 || digit > 9) break;
			value = value * 10 + digit;
			position++;
			if (position - first > 3) return false;
		}
		const length = position - first;
		if (length === 0 || value > 255) return false;
		if (length > 1 && text.charCodeAt(first) === 48 /* leading 0 */) return false;
		out[at + octet] = value;
	}
	return position === end;
}

function hexDigit(code: number): number {
	if (code >= 48 && code <= 57) return code - 48;
	if (code >= 97 && code <= 102) return code - 87;
	if (code >= 65 && code <= 70) return code - 55;
	return -1;
}

function parseIpv6(text: string): Uint8Array | undefined {
	let end = text.length;
	const zone = text.indexOf('%');
	if (zone !== -1) {
		if (zone === end - 1) return undefined;
		for (let index = zone + 1; index < end; index++) {
			const code = text.charCodeAt(index);
			// Zone ids as interface names or numbers: letters, digits, '.', '_', '-'.
			const ok =
				(code >= 48 && code <= 57) ||
				(code >= 65 && code <= 90) ||
				(code >= 97 && code <= 122) ||
				code === 46 ||
				code === 95 ||
				code === 45;
			if (!ok) return undefined;
		}
		end = zone;
	}
	const bytes = new Uint8Array(16);
	let group = 0; // groups written so far
	let gap = -1; // group index where '::' stands
	let position = 0;
	if (end >= 2 && text.charCodeAt(0) === 58 && text.charCodeAt(1) === 58) {
		gap = 0;
		position = 2;
		if (position === end) return bytes; // "::"
	} else if (end > 0 && text.charCodeAt(0) === 58) {
		return undefined; // a single leading ':'
	}
	while (position < end) {
		if (group === 8) return undefined;
		const first = position;
		let value = 0;
		while (position < end) {
			const digit = hexDigit(text.charCodeAt(position));
			if (digit < 0) break;
			value = (value << 4) | digit;
			position++;
			if (position - first > 4) return undefined;
		}
		if (position < end && text.charCodeAt(position) === 46 /* '.': an IPv4 tail */) {
			if (group > 6) return undefined;
			if (!parseDottedQuad(text, first, end, bytes, group * 2)) return undefined;
			group += 2;
			position = end;
			break;
		}
		if (position === first) return undefined; // an empty group (':::' or a stray character)
		bytes[group * 2] = value >> 8;
		bytes[group * 2 + 1] = value & 0xff;
		group++;
		if (position === end) break;
		if (text.charCodeAt(position) !== 58) return undefined;
		position++;
		if (position < end && text.charCodeAt(position) === 58) {
			if (gap !== -1) return undefined; // a second '::'
			gap = group;
			position++;
		} else if (position === end) {
			return undefined; // a trailing single ':'
		}
	}
	if (gap === -1) return group === 8 ? bytes : undefined;
	if (group === 8) return undefined; // '::' must stand for at least one group
	// Move the groups after '::' to the end; the gap becomes zeros.
	const tail = (group - gap) * 2;
	const from = gap * 2;
	bytes.copyWithin(16 - tail, from, from + tail);
	bytes.fill(0, from, 16 - tail);
	return bytes;
}

/**
 * Canonical text of a network: "1.2.3.0/24", "2001:db8::/32" (RFC 5952 for IPv6: lower case, no
 * leading zeros, the longest run of two or more zero groups as '::', the first one on a tie). The
 * bits past the prefix are cleared. IPv4-mapped networks (inside ::ffff:0:0/96) keep their dotted
 * tail, as RFC 5952 section 5 recommends: "::ffff:1.2.3.0/120".
 */
export function formatNetwork(address: Uint8Array, prefixLength: number): string {
	const width = address.length * 8;
	if (
		(address.length !== 4 && address.length !== 16) ||
		!(prefixLength >= 0 && prefixLength <= width)
	) {
		throw new RangeError(
			`formatNetwork: a ${address.length}-byte address with prefix ${prefixLength}`,
		);
	}
	if (address.length === 4) {
		return `${maskedByte(address, 0, prefixLength)}.${maskedByte(address, 1, prefixLength)}.${maskedByte(address, 2, prefixLength)}.${maskedByte(address, 3, prefixLength)}/${prefixLength}`;
	}
	const groups = new Array<number>(8);
	for (let index = 0; index < 8; index++) {
		groups[index] =
			(maskedByte(address, index * 2, prefixLength) << 8) |
			maskedByte(address, index * 2 + 1, prefixLength);
	}
	if (
		groups[0] === 0 &&
		groups[1] === 0 &&
		groups[2] === 0 &&
		groups[3] === 0 &&
		groups[4] === 0 &&
		groups[5] === 0xffff
	) {
		return `::ffff:${groups[6] >> 8}.${groups[6] & 0xff}.${groups[7] >> 8}.${groups[7] & 0xff}/${prefixLength}`;
	}
	let bestStart = -1;
	let bestLength = 1; // a single zero group is not compressed
	for (let index = 0; index < 8; ) {
		if (groups[index] !== 0) {
			index++;
			continue;
		}
		let run = index;
		while (run < 8 && groups[run] === 0) run++;
		if (run - index > bestLength) {
			bestStart = index;
			bestLength = run - index;
		}
		index = run;
	}
	let text = '';
	for (let index = 0; index < 8; index++) {
		if (index === bestStart) {
			text += '::';
			index += bestLength - 1;
			continue;
		}
		if (text !== '' && !text.endsWith(':')) text += ':';
		text += groups[index].toString(16);
	}
	return `${text}/${prefixLength}`;
}

/** Byte `index` of `address` with the bits past `prefixLength` cleared. */
function maskedByte(address: Uint8Array, index: number, prefixLength: number): number {
	const kept = prefixLength - index * 8;
	if (kept >= 8) return address[index];
	if (kept <= 0) return 0;
	return address[index] & (0xff << (8 - kept));
}
