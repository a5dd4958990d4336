/**
 * CIDR blocks as the MMDB tree sees them: 128 bits, IPv4 blocks placed in ::/96 (the MaxMind
 * convention that readers follow when they look an IPv4 address up in an IPv6 database).
 */
export interface Block {
	/** 16 bytes, big-endian. */
	bytes: Uint8Array;
	/** Prefix length in the 128-bit space. */
	bits: number;
}

export function parseCidr(cidr: string): Block {
	const [address, length] = cidr.split('/');
	const prefix = Number(length);
	if (address.includes(':')) {
		if (!(prefix >= 0 && prefix <= 128)) throw new Error(`Bad prefix in ${cidr}`);
		return { bytes: ipv6Bytes(address), bits: prefix };
	}
	if (!(prefix >= 0 && prefix <= 32)) throw new Error(`Bad prefix in ${cidr}`);
	const bytes = new Uint8Array(16);
	bytes.set(ipv4Bytes(address), 12);
	return { bytes, bits: prefix + 96 };
}

export function ipBytes(address: string): Uint8Array {
	if (address.includes(':')) return ipv6Bytes(address);
	const bytes = new Uint8Array(16);
	bytes.set(ipv4Bytes(address), 12);
	return bytes;
}

function ipv4Bytes(address: string): Uint8Array {
	const parts = address.split('.').map(Number);
	if (parts.length !== 4 || parts.some((part) => !(part >= 0 && part <= 255)))
		throw new Error(`Bad IPv4 ${address}`);
	return Uint8Array.from(parts);
}

function ipv6Bytes(address: string): Uint8Array {
	const [head, tail] = address.includes('::') ? address.split('::') : [address, undefined];
	const groups = (text: string) =>
		text === '' ? [] : text.split(':').map((group) => parseInt(group, 16));
	const front = groups(head);
	const back = tail === undefined ? [] : groups(tail);
	const fill = tail === undefined ? 0 : 8 - front.length - back.length;
	const all = [...front, ...new Array<number>(fill).fill(0), ...back];
	if (all.length !== 8 || all.some((group) => !(group >= 0 && group <= 0xffff)))
		throw new Error(`Bad IPv6 ${address}`);
	const bytes = new Uint8Array(16);
	all.forEach((group, index) => {
		bytes[index * 2] = group >> 8;
		bytes[index * 2 + 1] = group & 0xff;
	});
	return bytes;
}

export const bitAt = (bytes: Uint8Array, index: number) =>
	(bytes[index >> 3] >> (7 - (index & 7))) & 1;
