import { control } from '../hostileFiles/craftedMmdb';

/**
 * MMDB records of many values of one kind each, as the data section holds them: what the
 * decoder's estimate is checked against (mmdbEstimate.test.ts) and timed on
 * (bench/mmdbRecordSizes.ts), each filled to the decoder's bound by `atTheBound`.
 */

const arrayOf = (count: number, element: (index: number) => number[]) => {
	const bytes = control(11, count);
	for (let index = 0; index < count; index++) bytes.push(...element(index));
	return bytes;
};
const text = (value: string) => {
	const bytes = [...Buffer.from(value, 'utf8')];
	return [...control(2, bytes.length), ...bytes];
};

/** Records of `count` values of one kind each. */
export const VALUE_KINDS: Record<string, (count: number) => number[]> = {
	'empty maps': (count) => arrayOf(count, () => control(7, 0)),
	'empty arrays': (count) => arrayOf(count, () => control(11, 0)),
	'empty byte arrays': (count) => arrayOf(count, () => control(4, 0)),
	uint128s: (count) =>
		arrayOf(count, (index) => [
			...control(10, 16),
			...new Array<number>(15).fill(0xff),
			index & 0xff,
		]),
	uint64s: (count) => arrayOf(count, (index) => [...control(9, 1), index & 0xff]),
	'small numbers': (count) => arrayOf(count, (index) => [...control(6, 1), index & 0xff]),
	doubles: (count) =>
		arrayOf(count, (index) => [...control(3, 8), 0x3f, 0xf0, 0, 0, 0, 0, 0, index & 0xff]),
	booleans: (count) => arrayOf(count, (index) => control(14, index & 1)),
	'short strings': (count) => arrayOf(count, (index) => text(`s${index}`)),
	'two-byte strings': (count) => arrayOf(count, (index) => text(`Ā${index}`)),
	'maps of one entry': (count) =>
		arrayOf(count, (index) => [...control(7, 1), ...text('k'), ...control(6, 1), index & 0xff]),
	'a map of many keys': (count) => {
		const bytes = control(7, count);
		for (let index = 0; index < count; index++) bytes.push(...text(`k${index}`), ...control(6, 0));
		return bytes;
	},
};

/** The decoder module of a build (dist/nodes/shared/ipDatabases/mmdbDecoder.js), as required at run time. */
export interface Decoding {
	Decoder: new (
		bytes: Uint8Array,
		base: number,
		end: number,
		section: string,
	) => { decodeAt(offset: number): unknown; decodedBytes: number };
	DECODED_BYTES: number;
	VALUE_BYTES: number;
}

/** The record of `kind` with as many values as the decoder's bound lets through (a binary search). */
export function atTheBound(
	kind: (count: number) => number[],
	{ Decoder, DECODED_BYTES, VALUE_BYTES }: Decoding,
): { bytes: Uint8Array; count: number } {
	const fits = (count: number) => {
		const bytes = Uint8Array.from(kind(count));
		try {
			new Decoder(bytes, 0, bytes.length, 'data section').decodeAt(0);
			return true;
		} catch {
			return false;
		}
	};
	let low = 1;
	let high = Math.ceil(DECODED_BYTES / VALUE_BYTES);
	while (low < high) {
		const middle = Math.ceil((low + high) / 2);
		if (fits(middle)) low = middle;
		else high = middle - 1;
	}
	return { bytes: Uint8Array.from(kind(low)), count: low };
}
