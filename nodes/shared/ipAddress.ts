/**
 * STAND-IN until branch i8-mmdb's nodes/shared/ipAddress.ts is cherry-picked (same interface):
 * IP address text to bytes and back.
 */
import { isIpv4, isIpv6 } from './validate';

export function parseIpAddress(text: string): Uint8Array | undefined {
	const address = text.trim();
	if (isIpv4(address)) return Uint8Array.from(address.split('.').map(Number));
	if (!isIpv6(address)) return undefined;
	let body = address.replace(/%[\w.]+$/, '');
	const tail = /^(.*:)(\d+\.\d+\.\d+\.\d+)$/.exec(body);
	if (tail) {
		const [a, b, c, d] = tail[2].split('.').map(Number);
		body = `${tail[1]}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
	}
	const [head, rest] = body.includes('::') ? body.split('::') : [body, undefined];
	const groups = (part: string) => (part === '' ? [] : part.split(':').map((group) => parseInt(group, 16)));
	const front = groups(head);
	const back = rest === undefined ? [] : groups(rest);
	const all = [...front, ...new Array<number>(8 - front.length - back.length).fill(0), ...back];
	const bytes = new Uint8Array(16);
	all.forEach((group, index) => {
		bytes[index * 2] = group >> 8;
		bytes[index * 2 + 1] = group & 0xff;
	});
	return bytes;
}

export function formatNetwork(bytes: Uint8Array, prefix: number): string {
	if (bytes.length === 4) return `${bytes.join('.')}/${prefix}`;
	const groups: number[] = [];
	for (let index = 0; index < 16; index += 2) groups.push((bytes[index] << 8) | bytes[index + 1]);
	let bestStart = -1;
	let bestLength = 0;
	for (let index = 0; index < 8; ) {
		if (groups[index] !== 0) {
			index++;
			continue;
		}
		let end = index;
		while (end < 8 && groups[end] === 0) end++;
		if (end - index > bestLength && end - index > 1) {
			bestStart = index;
			bestLength = end - index;
		}
		index = end;
	}
	const hex = groups.map((group) => group.toString(16));
	const text =
		bestStart < 0
			? hex.join(':')
			: `${hex.slice(0, bestStart).join(':')}::${hex.slice(bestStart + bestLength).join(':')}`;
	return `${text}/${prefix}`;
}
