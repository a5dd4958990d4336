import { crc32 } from 'zlib';

import { randomFraction } from '../sandbox/random';

/**
 * DEFLATE streams written bit by bit, not by zlib: the shapes zlib's compressor never makes but a
 * hostile or broken writer can, for gunzip against zlib's decoder. Stored blocks of any length
 * (LEN 0 and 65535 too, a complement that does not match, cut short), fixed blocks, dynamic blocks
 * whose code sets are complete, a single code, incomplete or over-subscribed, 15-bit codes, code
 * lengths written with the repeat codes 16, 17 and 18 across the literal/distance boundary, at the
 * start (16 with nothing to repeat) and past the end; matches of every length (258 too) and
 * distance (32768 too, and farther back than the output), symbols 286 to 287 and distance codes
 * 30 to 31, a missing end-of-block, a last block missing, bytes after the last block.
 *
 * Each stream comes with `intended`: the bytes its symbols stand for, when every symbol it wrote
 * has a code and every match reaches back within the output (else undefined). A decoder that
 * accepts a stream zlib refuses gives exactly these bytes, so a gzip trailer made from them shows
 * it (the CRC-32 matches) where a trailer of other bytes would hide it.
 */

/** Bits in the order DEFLATE packs them: values from the least significant bit, codes from the most. */
class BitWriter {
	private readonly bytes: number[] = [];
	private pending = 0;
	private count = 0;

	put(value: number, bits: number): void {
		for (let bit = 0; bit < bits; bit++) {
			this.pending |= ((value >>> bit) & 1) << this.count;
			if (++this.count === 8) this.flushByte();
		}
	}

	code(code: number, bits: number): void {
		for (let bit = bits - 1; bit >= 0; bit--) this.put((code >>> bit) & 1, 1);
	}

	/** Whole bytes after `align` (a stored block's). */
	aligned(bytes: Uint8Array): void {
		for (const byte of bytes) this.bytes.push(byte);
	}

	align(): void {
		if (this.count > 0) this.put(0, 8 - this.count);
	}

	done(): Buffer {
		this.align();
		return Buffer.from(this.bytes);
	}

	private flushByte(): void {
		this.bytes.push(this.pending);
		this.pending = 0;
		this.count = 0;
	}
}

/** The bytes a stream stands for, in a buffer that grows (a stream stands for up to some 5 MB). */
class OutputBytes {
	private buffer = new Uint8Array(64 * 1024);
	length = 0;

	push(byte: number): void {
		this.room(1);
		this.buffer[this.length++] = byte;
	}

	/** A match: `length` bytes from `distance` back, overlapping as DEFLATE's do. */
	copyBack(distance: number, length: number): void {
		this.room(length);
		for (let from = this.length - distance, left = length; left > 0; left--)
			this.buffer[this.length++] = this.buffer[from++];
	}

	bytes(): Buffer {
		return Buffer.from(this.buffer.subarray(0, this.length));
	}

	private room(count: number): void {
		if (this.length + count <= this.buffer.length) return;
		const grown = new Uint8Array(Math.max(this.buffer.length * 2, this.length + count));
		grown.set(this.buffer.subarray(0, this.length));
		this.buffer = grown;
	}
}

const CODE_LENGTH_ORDER = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15];
const LENGTH_BASE = [
	3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131,
	163, 195, 227, 258,
];
const LENGTH_EXTRA = [
	0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0,
];
const DISTANCE_BASE = [
	1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049,
	3073, 4097, 6145, 8193, 12289, 16385, 24577,
];
const DISTANCE_EXTRA = [
	0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13,
];
const FIXED_LITERAL_LENGTHS: number[] = Array.from({ length: 288 }, (_, symbol) =>
	symbol < 144 ? 8 : symbol < 256 ? 9 : symbol < 280 ? 7 : 8,
);
const FIXED_DISTANCE_LENGTHS = new Array<number>(30).fill(5);

/** Canonical codes (RFC 1951 3.2.2) of the given lengths; -1 where a symbol has none. */
function canonicalCodes(lengths: number[]): number[] {
	const perLength = new Array<number>(16).fill(0);
	for (const length of lengths) if (length > 0) perLength[length]++;
	const next = new Array<number>(16).fill(0);
	for (let bits = 1, code = 0; bits <= 15; bits++) {
		code = (code + perLength[bits - 1]) << 1;
		next[bits] = code;
	}
	return lengths.map((length) => (length > 0 ? next[length]++ : -1));
}

type Random = { below(count: number): number; chance(oneIn: number): boolean };

function randomOf(seed: number): Random {
	const next = randomFraction(seed);
	return {
		below: (count) => Math.floor(next() * count),
		chance: (oneIn) => Math.floor(next() * oneIn) === 0,
	};
}

/** The leaf depths of a random full binary tree of `leaves` leaves, none deeper than `maxBits`: a complete code. */
function completeLengths(random: Random, leaves: number, maxBits: number): number[] {
	if (leaves <= 1) return [1];
	const depths = [0];
	let deepest = 0;
	while (depths.length < leaves) {
		// Now and then the deepest leaf, so that 15-bit codes come often; else any leaf that may split.
		let at = random.chance(3) ? deepest : random.below(depths.length);
		for (let tries = 0; depths[at] >= maxBits && tries < depths.length; tries++)
			at = (at + 1) % depths.length;
		if (depths[at] >= maxBits) break;
		depths[at]++;
		depths.push(depths[at]);
		if (depths[at] > depths[deepest]) deepest = at;
	}
	return depths;
}

/** Code lengths for `count` symbols: complete mostly, else a single code, incomplete, over-subscribed, random or none. */
function codeLengths(random: Random, count: number, needed: number[], maxBits: number): number[] {
	const lengths = new Array<number>(count).fill(0);
	const shape = random.below(10);
	if (shape === 0) {
		lengths[needed[0] ?? random.below(count)] = random.chance(4) ? 1 + random.below(maxBits) : 1;
		return lengths;
	}
	if (shape === 1) {
		for (let symbol = 0; symbol < count; symbol++)
			lengths[symbol] = random.chance(3) ? random.below(maxBits + 1) : 0;
		for (const symbol of needed) lengths[symbol] ||= 1 + random.below(maxBits);
		return lengths;
	}
	if (shape === 2) return lengths;
	const symbols = new Set(needed.filter((symbol) => symbol < count));
	const wanted = Math.min(count, 2 + random.below(random.chance(2) ? 20 : count));
	while (symbols.size < wanted) symbols.add(random.below(count));
	const depths = completeLengths(random, symbols.size, maxBits);
	[...symbols].forEach((symbol, at) => (lengths[symbol] = depths[at] ?? 0));
	const coded = lengths.flatMap((length, symbol) => (length > 0 ? [symbol] : []));
	const uncoded = lengths.flatMap((length, symbol) => (length === 0 ? [symbol] : []));
	if (shape === 3 && coded.length > 1) lengths[coded[random.below(coded.length)]] = 0;
	if (shape === 4 && uncoded.length > 0)
		lengths[uncoded[random.below(uncoded.length)]] = 1 + random.below(maxBits);
	return lengths;
}

/** A stream of 1 to 4 blocks from `seed`, and the bytes it stands for (see the module's note). */
export function deflateStream(seed: number): { raw: Buffer; intended?: Buffer } {
	const random = randomOf(seed);
	const bits = new BitWriter();
	const out = new OutputBytes();
	let sound = true;
	const blocks = 1 + random.below(4);
	for (let block = 0; block < blocks; block++) {
		const last = block === blocks - 1 ? !random.chance(20) : random.chance(15);
		bits.put(last ? 1 : 0, 1);
		const type = random.chance(30) ? 3 : [0, 1, 2, 2, 2][random.below(5)];
		bits.put(type, 2);
		if (type === 3) break;
		if (type === 0) {
			bits.align();
			const length = [0, 1, 2, 100, 65535, random.below(65536), random.below(300)][random.below(7)];
			bits.put(length, 16);
			bits.put(random.chance(15) ? (~length + 1) & 0xffff : ~length & 0xffff, 16);
			const sent = random.chance(15) ? random.below(length + 1) : length;
			// Any bytes do: a counter from a random start (cheaper than a random number each).
			const start = random.below(256);
			const stored = Uint8Array.from({ length: sent }, (_, at) => (start + at * 7) & 255);
			bits.aligned(stored);
			for (const byte of stored) out.push(byte);
			continue;
		}
		let literalLengths = FIXED_LITERAL_LENGTHS;
		let distanceLengths = FIXED_DISTANCE_LENGTHS;
		if (type === 2) {
			const literalCount = 257 + (random.chance(20) ? random.below(32) : random.below(30));
			const distanceCount = 1 + (random.chance(20) ? random.below(32) : random.below(30));
			literalLengths = codeLengths(random, literalCount, random.chance(10) ? [] : [256], 15);
			distanceLengths = codeLengths(random, distanceCount, [], 15);
			writeCodeLengths(random, bits, [...literalLengths, ...distanceLengths], literalCount);
		}
		const literalCodes = canonicalCodes(literalLengths);
		const distanceCodes = canonicalCodes(distanceLengths);
		const emit = (lengths: number[], codes: number[], symbol: number) => {
			if (symbol < lengths.length && lengths[symbol] > 0) bits.code(codes[symbol], lengths[symbol]);
			else {
				sound = false;
				bits.put(random.below(1 << 15), random.below(16));
			}
		};
		const symbols = [0, 1, 5, 50, 500, 2000][random.below(6)];
		for (let index = 0; index < symbols; index++) {
			if (out.length === 0 || !random.chance(3)) {
				const literal = random.below(256);
				emit(literalLengths, literalCodes, literal);
				out.push(literal);
				continue;
			}
			const lengthIndex = random.below(random.chance(30) ? 31 : 29);
			emit(literalLengths, literalCodes, 257 + lengthIndex);
			if (lengthIndex >= 29) {
				sound = false;
				continue;
			}
			const lengthExtra = random.below(1 << LENGTH_EXTRA[lengthIndex]);
			bits.put(lengthExtra, LENGTH_EXTRA[lengthIndex]);
			let distanceIndex = random.below(random.chance(30) ? 32 : 30);
			// Half the time a code whose base lies within the output (the bases rise).
			let reachable = 0;
			while (reachable < 30 && DISTANCE_BASE[reachable] <= Math.min(out.length, 32768)) reachable++;
			if (random.chance(2) && reachable > 0) distanceIndex = random.below(reachable);
			emit(distanceLengths, distanceCodes, distanceIndex);
			if (distanceIndex >= 30) {
				sound = false;
				continue;
			}
			const distanceExtra = random.below(1 << DISTANCE_EXTRA[distanceIndex]);
			bits.put(distanceExtra, DISTANCE_EXTRA[distanceIndex]);
			const distance = DISTANCE_BASE[distanceIndex] + distanceExtra;
			const length = LENGTH_BASE[lengthIndex] + lengthExtra;
			if (distance > out.length) {
				// Farther back than the output: the stream stands for no bytes.
				sound = false;
				continue;
			}
			out.copyBack(distance, length);
		}
		emit(literalLengths, literalCodes, 256);
		if (random.chance(40)) break;
	}
	if (random.chance(30))
		for (let left = random.below(20); left > 0; left--) bits.put(random.below(256), 8);
	return { raw: bits.done(), intended: sound ? out.bytes() : undefined };
}

/** A dynamic block's header after its first 3 bits: counts, the code-length code, the run-length coded lengths. */
function writeCodeLengths(
	random: Random,
	bits: BitWriter,
	lengths: number[],
	literalCount: number,
): void {
	const runs: Array<[symbol: number, extraBits: number, extra: number]> = [];
	if (random.chance(40)) runs.push([16, 2, random.below(4)]);
	for (let at = 0; at < lengths.length; ) {
		const value = lengths[at];
		let run = 1;
		while (at + run < lengths.length && lengths[at + run] === value) run++;
		if (random.chance(60)) run += random.below(10);
		let step: [number, number, number] = [value, 0, 0];
		let covered = 1;
		if (value === 0 && run >= 11 && !random.chance(4)) {
			covered = Math.min(run, 138);
			step = [18, 7, covered - 11];
		} else if (value === 0 && run >= 3 && !random.chance(4)) {
			covered = Math.min(run, 10);
			step = [17, 3, covered - 3];
		} else if (at > 0 && lengths[at - 1] === value && run >= 3 && !random.chance(3)) {
			covered = Math.min(run, 6);
			step = [16, 2, covered - 3];
		}
		runs.push(step);
		at += covered;
	}
	const used = [...new Set(runs.map(([symbol]) => symbol))];
	const codeLengthLengths = codeLengths(random, 19, used, 7);
	let stated = 19;
	while (stated > 4 && codeLengthLengths[CODE_LENGTH_ORDER[stated - 1]] === 0) stated--;
	if (random.chance(20)) stated = 4 + random.below(16);
	bits.put(literalCount - 257, 5);
	bits.put(lengths.length - literalCount - 1, 5);
	bits.put(stated - 4, 4);
	for (let index = 0; index < stated; index++)
		bits.put(codeLengthLengths[CODE_LENGTH_ORDER[index]], 3);
	const codes = canonicalCodes(codeLengthLengths);
	for (const [symbol, extraBits, extra] of runs) {
		if (codeLengthLengths[symbol] > 0) bits.code(codes[symbol], codeLengthLengths[symbol]);
		else bits.put(random.below(128), random.below(8));
		bits.put(extra, extraBits);
	}
}

/**
 * `data` as one dynamic block of literals whose code is incomplete: bytes 0 to 253 take 8 bits,
 * 254, 255 and the end of block 9 (a 9-bit code is left unused), one distance code of 1 bit.
 * Every symbol has a code, so a decoder that does not check the set decodes `data`; zlib refuses
 * the stream ("invalid literal/lengths set").
 */
export function literalsWithIncompleteCode(data: Uint8Array): Buffer {
	const bits = new BitWriter();
	bits.put(1, 1);
	bits.put(2, 2);
	bits.put(0, 5); // 257 literal/length codes
	bits.put(0, 5); // 1 distance code
	const codeLengthLengths = new Array<number>(19).fill(0);
	codeLengthLengths[8] = 1;
	codeLengthLengths[9] = 2;
	codeLengthLengths[1] = 2;
	const stated = CODE_LENGTH_ORDER.indexOf(1) + 1;
	bits.put(stated - 4, 4);
	for (let index = 0; index < stated; index++)
		bits.put(codeLengthLengths[CODE_LENGTH_ORDER[index]], 3);
	const codeLengthCodes = canonicalCodes(codeLengthLengths);
	const literalLengths = Array.from({ length: 257 }, (_, symbol) => (symbol < 254 ? 8 : 9));
	for (const length of [...literalLengths, 1])
		bits.code(codeLengthCodes[length], codeLengthLengths[length]);
	const literalCodes = canonicalCodes(literalLengths);
	for (const byte of data) bits.code(literalCodes[byte], literalLengths[byte]);
	bits.code(literalCodes[256], literalLengths[256]);
	return bits.done();
}

/** `raw` in a gzip member whose trailer states `data`'s CRC-32 and length. */
export function gzipMember(raw: Uint8Array, data: Uint8Array, header?: Buffer): Buffer {
	const trailer = Buffer.alloc(8);
	trailer.writeUInt32LE(crc32(data), 0);
	trailer.writeUInt32LE(data.length >>> 0, 4);
	return Buffer.concat([header ?? Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3]), raw, trailer]);
}
