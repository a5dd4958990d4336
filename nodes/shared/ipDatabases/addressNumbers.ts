/** IPv4 and IPv6 addresses as numbers, and the host bits of a block: the CSV index's arithmetic. */

export const v4Number = (bytes: Uint8Array) =>
	((bytes[0] << 24) | (bytes[1] << 16) | (bytes[2] << 8) | bytes[3]) >>> 0;

export function v6BigInt(bytes: Uint8Array): bigint {
	let value = 0n;
	for (const byte of bytes) value = (value << 8n) | BigInt(byte);
	return value;
}

export const ALL_128 = (1n << 128n) - 1n;
export const ALL_64 = (1n << 64n) - 1n;
/** The host bits of a block of each prefix, for 32- and 128-bit addresses (tables: the IPv6 sweep asks once per step). */
const hostMasks = (width: number) =>
	Array.from({ length: width + 1 }, (_, prefix) => (1n << BigInt(width - prefix)) - 1n);
const HOST_32 = hostMasks(32);
const HOST_128 = hostMasks(128);
export const hostMask = (prefix: number, width: 32 | 128) =>
	(width === 128 ? HOST_128 : HOST_32)[prefix];

export function bytesOf(value: bigint, length: number): Uint8Array {
	const bytes = new Uint8Array(length);
	let rest = value;
	for (let index = length - 1; index >= 0; index--) {
		bytes[index] = Number(rest & 0xffn);
		rest >>= 8n;
	}
	return bytes;
}
