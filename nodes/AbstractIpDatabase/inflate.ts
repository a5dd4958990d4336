/**
 * gzip (RFC 1952) and DEFLATE (RFC 1951) decoding in plain TypeScript, into one output buffer
 * reused for the whole stream. Why not the web DecompressionStream, the one decompressor n8n
 * Cloud's rules leave a node: it hands out every 16 KiB of output as two fresh buffers, and V8
 * runs a full garbage collection of n8n's whole heap for about every 64 MiB of fresh buffers: a
 * 670 MiB database cost some twenty of them, more time than the decompression itself. Here the
 * output lives in one buffer (the last 32 KiB kept as the window) and is handed out as views.
 *
 * Input is pushed in chunks of any size; `pull` decodes while enough input is buffered that no
 * single step (a block header, a symbol) can run out of it, so the decoder never stops inside a
 * step and needs no state below a block. The gzip trailer's CRC-32 and length are checked, a
 * damaged stream is an InflateError, never a shorter or different output.
 */

export class InflateError extends Error {}

const LENGTH_BASE = new Uint16Array([
	3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131,
	163, 195, 227, 258,
]);
const LENGTH_EXTRA = new Uint8Array([
	0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0,
]);
const DISTANCE_BASE = new Uint16Array([
	1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049,
	3073, 4097, 6145, 8193, 12289, 16385, 24577,
]);
const DISTANCE_EXTRA = new Uint8Array([
	0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13,
]);
/** The order in which a dynamic block states its code-length code's lengths. */
const CODE_LENGTH_ORDER = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15];

const WINDOW = 32 * 1024;
/** Output handed out per view: large, so the steps after (tar, SHA-256, store) run per megabyte. */
const VIEW_BYTES = 1024 * 1024;
/** Room after the flush mark for the longest match (258 bytes). */
const OUTPUT_BYTES = WINDOW + VIEW_BYTES + 512;
/** Input that guarantees a whole block header (at most about 570 bytes), or a symbol (6). */
const HEADER_MARGIN = 1024;
const SYMBOL_MARGIN = 16;
/** A gzip header's optional fields (extra, name, comment) beyond this are not a database's. */
const MAX_GZIP_HEADER = 128 * 1024;

/**
 * What a stream's code set may leave unused: nothing (the code-length code), or, as zlib allows,
 * all but one code of one bit (a block with a single literal/length or distance symbol).
 */
type Completeness = { refusal: string; oneCodeAllowed: boolean };

/**
 * A canonical Huffman code as a lookup table of `1 << bits` entries, indexed by the next `bits`
 * input bits: each entry is `symbol << 4 | code length`, 0 where no code is (a damaged stream).
 * A stream's code set must be complete as zlib requires (`completeness`), so that no stream zlib
 * refuses passes here (an archive this check let through must unpack with gzip and tar); the
 * fixed codes are built without (their distance code leaves 30 and 31 unused by design).
 */
function buildTable(
	lengths: Uint8Array,
	count: number,
	table: Int32Array,
	completeness?: Completeness,
): number {
	const perLength = new Uint16Array(16);
	let bits = 0;
	for (let symbol = 0; symbol < count; symbol++) {
		perLength[lengths[symbol]]++;
		if (lengths[symbol] > bits) bits = lengths[symbol];
	}
	perLength[0] = 0;
	let left = 1;
	for (let length = 1; length <= 15; length++) {
		left = (left << 1) - perLength[length];
		if (left < 0) throw new InflateError('invalid code lengths set');
	}
	if (completeness && left > 0 && bits > 0 && !(completeness.oneCodeAllowed && bits === 1))
		throw new InflateError(completeness.refusal);
	const next = new Uint16Array(16);
	for (let length = 1, code = 0; length <= 15; length++) {
		code = (code + perLength[length - 1]) << 1;
		next[length] = code;
	}
	const size = 1 << bits;
	table.fill(0, 0, size);
	for (let symbol = 0; symbol < count; symbol++) {
		const length = lengths[symbol];
		if (length === 0) continue;
		let code = next[length]++;
		let reversed = 0;
		for (let bit = 0; bit < length; bit++, code >>>= 1) reversed = (reversed << 1) | (code & 1);
		for (let at = reversed; at < size; at += 1 << length) table[at] = (symbol << 4) | length;
	}
	return bits;
}

const CODE_LENGTH_CODE: Completeness = {
	refusal: 'invalid code lengths set',
	oneCodeAllowed: false,
};
const LITERAL_CODE: Completeness = { refusal: 'invalid literal/lengths set', oneCodeAllowed: true };
const DISTANCE_CODE: Completeness = { refusal: 'invalid distances set', oneCodeAllowed: true };

const FIXED_LITERALS = new Int32Array(1 << 9);
const FIXED_DISTANCES = new Int32Array(1 << 5);
const FIXED_LITERAL_BITS = buildTable(
	Uint8Array.from({ length: 288 }, (_, symbol) =>
		symbol < 144 ? 8 : symbol < 256 ? 9 : symbol < 280 ? 7 : 8,
	),
	288,
	FIXED_LITERALS,
);
const FIXED_DISTANCE_BITS = buildTable(new Uint8Array(30).fill(5), 30, FIXED_DISTANCES);

/** CRC-32 (the gzip trailer's), sixteen bytes a step. */
const CRC_TABLE = new Int32Array(16 * 256);
for (let byte = 0; byte < 256; byte++) {
	let crc = byte;
	for (let bit = 0; bit < 8; bit++) crc = crc & 1 ? 0xedb88320 ^ (crc >>> 1) : crc >>> 1;
	CRC_TABLE[byte] = crc;
}
for (let byte = 0; byte < 256; byte++)
	for (let slice = 1; slice < 16; slice++) {
		const previous = CRC_TABLE[(slice - 1) * 256 + byte];
		CRC_TABLE[slice * 256 + byte] = (previous >>> 8) ^ CRC_TABLE[previous & 255];
	}

/** Whether this machine stores a Uint32 little-endian, as the gzip trailer does (all but s390x). */
const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

/**
 * CRC-32 of `bytes[start .. end)`, continuing `crc`. `words` is a Uint32Array over the same
 * buffer (byte offset 0): on little-endian machines the bytes are read four at a time.
 */
export function crc32(
	crc: number,
	bytes: Uint8Array,
	start: number,
	end: number,
	words?: Uint32Array,
): number {
	const table = CRC_TABLE;
	let value = ~crc;
	let at = start;
	if (words && LITTLE_ENDIAN) {
		for (; at < end && (at & 3) !== 0; at++)
			value = table[(value ^ bytes[at]) & 255] ^ (value >>> 8);
		for (; at + 16 <= end; at += 16) {
			const word = at >>> 2;
			const one = words[word] ^ value;
			const two = words[word + 1];
			const three = words[word + 2];
			const four = words[word + 3];
			value =
				table[3840 + (one & 255)] ^
				table[3584 + ((one >>> 8) & 255)] ^
				table[3328 + ((one >>> 16) & 255)] ^
				table[3072 + (one >>> 24)] ^
				table[2816 + (two & 255)] ^
				table[2560 + ((two >>> 8) & 255)] ^
				table[2304 + ((two >>> 16) & 255)] ^
				table[2048 + (two >>> 24)] ^
				table[1792 + (three & 255)] ^
				table[1536 + ((three >>> 8) & 255)] ^
				table[1280 + ((three >>> 16) & 255)] ^
				table[1024 + (three >>> 24)] ^
				table[768 + (four & 255)] ^
				table[512 + ((four >>> 8) & 255)] ^
				table[256 + ((four >>> 16) & 255)] ^
				table[four >>> 24];
		}
	}
	for (; at < end; at++) value = table[(value ^ bytes[at]) & 255] ^ (value >>> 8);
	return ~value >>> 0;
}

type Mode = 'gzipHeader' | 'blockHeader' | 'stored' | 'huffman' | 'trailer' | 'between';

export class GzipInflater {
	private input = new Uint8Array(64 * 1024 + 64);
	/** Unread input: `input[at .. end)`; the bit buffer holds up to 4 bytes read before `at`. */
	private at = 0;
	private end = 0;
	private bits = 0;
	private bitCount = 0;
	private final = false;

	private readonly output = new Uint8Array(OUTPUT_BYTES);
	private readonly outputWords = new Uint32Array(this.output.buffer);
	/** Decoded up to here; handed out from `handedFrom`; CRC taken up to `crcAt`. */
	private written = 0;
	private handedFrom = 0;
	private crcAt = 0;
	/** Where this gzip member's output starts in `output`: no match reaches before it. */
	private memberStart = 0;
	/** The last view handed out: the window slides when the next pull begins. */
	private slidePending = false;

	private mode: Mode = 'gzipHeader';
	private lastBlock = false;
	private storedLeft = 0;
	private crc = 0;
	private size = 0;
	private readonly literals = new Int32Array(1 << 15);
	private readonly distances = new Int32Array(1 << 15);
	private literalTable = FIXED_LITERALS;
	private distanceTable = FIXED_DISTANCES;
	private literalBits = FIXED_LITERAL_BITS;
	private distanceBits = FIXED_DISTANCE_BITS;
	private readonly lengths = new Uint8Array(320);
	private readonly codeLengthTable = new Int32Array(1 << 7);

	/** Compressed bytes taken in so far. */
	fed = 0;

	/**
	 * `checkCrc` false skips the trailer's CRC-32 (its length is still checked): for a caller
	 * that checks every byte it keeps by a stronger sum of its own, at a second a 670 MiB file.
	 */
	constructor(private readonly checkCrc = true) {}

	/** Adds compressed bytes (copied: the chunk may be reused by its owner). */
	push(chunk: Uint8Array): void {
		if (this.final) throw new InflateError('input after its end');
		this.fed += chunk.length;
		// Keep the 4 bytes before `at` the bit buffer came from: a stored block reads them again.
		const keep = Math.max(0, this.at - 4);
		const pending = this.end - keep;
		if (pending + chunk.length + 64 > this.input.length) {
			const grown = new Uint8Array(Math.max(this.input.length * 2, pending + chunk.length + 64));
			grown.set(this.input.subarray(keep, this.end));
			this.input = grown;
		} else this.input.copyWithin(0, keep, this.end);
		this.at -= keep;
		this.end = pending;
		this.input.set(chunk, this.end);
		this.end += chunk.length;
	}

	/** No more input: what is left is decoded to the end, and a stream cut short is an error. */
	finish(): void {
		this.final = true;
		// Zeros after the end let a step read ahead; `checkNotPastEnd` tells a real overrun.
		this.input.fill(0, this.end, Math.min(this.input.length, this.end + 64));
	}

	/**
	 * The next piece of output, or undefined when more input is needed (or, after `finish`, when
	 * the stream is complete). A view into the reused buffer: valid until the next call.
	 */
	pull(): Uint8Array | undefined {
		if (this.slidePending) this.slide();
		for (;;) {
			if (this.written >= WINDOW + VIEW_BYTES) return this.handOut();
			if (!this.step()) {
				if (!this.final) return undefined;
				if (this.mode !== 'between' || this.at < this.end)
					throw new InflateError('unexpected end of file');
				return this.written > this.handedFrom ? this.handOut() : undefined;
			}
		}
	}

	private handOut(): Uint8Array {
		this.takeCrc();
		this.slidePending = true;
		return this.output.subarray(this.handedFrom, this.written);
	}

	/** Keeps the last 32 KiB as the window at the buffer's start. */
	private slide(): void {
		this.slidePending = false;
		const shift = Math.max(0, this.written - WINDOW);
		if (shift === 0) {
			this.handedFrom = this.written;
			return;
		}
		this.output.copyWithin(0, shift, this.written);
		this.written -= shift;
		this.handedFrom = this.written;
		this.crcAt = this.written;
		this.memberStart = Math.max(0, this.memberStart - shift);
	}

	private takeCrc(): void {
		if (this.crcAt < this.written) {
			if (this.checkCrc)
				this.crc = crc32(this.crc, this.output, this.crcAt, this.written, this.outputWords);
			this.size = (this.size + this.written - this.crcAt) >>> 0;
			this.crcAt = this.written;
		}
	}

	/** One step of the stream; false when it needs more input (or is complete). */
	private step(): boolean {
		switch (this.mode) {
			case 'gzipHeader':
				return this.gzipHeader();
			case 'blockHeader':
				return this.blockHeader();
			case 'stored':
				return this.stored();
			case 'huffman':
				return this.huffman();
			case 'trailer':
				return this.trailer();
			case 'between':
				if (this.at >= this.end) return false;
				// Another gzip member follows (gzip allows them joined); anything else is damage.
				this.mode = 'gzipHeader';
				this.memberStart = this.written;
				this.takeCrc();
				this.crc = 0;
				this.size = 0;
				return true;
		}
	}

	private gzipHeader(): boolean {
		const input = this.input;
		// The fixed part, then each optional field, read once all of it is buffered.
		if (this.end - this.at < 10) return false;
		const at = this.at;
		if (input[at] !== 0x1f || input[at + 1] !== 0x8b)
			throw new InflateError('incorrect header check');
		if (input[at + 2] !== 8) throw new InflateError('unknown compression method');
		const flags = input[at + 3];
		if (flags & 0xe0) throw new InflateError('unknown header flags set');
		let cursor = at + 10;
		if (flags & 4) {
			if (this.end - cursor < 2) return this.longHeader(cursor);
			cursor += 2 + (input[cursor] | (input[cursor + 1] << 8));
			if (cursor > this.end) return this.longHeader(cursor);
		}
		for (const flag of [8, 16]) {
			if (!(flags & flag)) continue;
			const zero = input.indexOf(0, cursor);
			if (zero < 0 || zero >= this.end) return this.longHeader(this.end);
			cursor = zero + 1;
		}
		if (flags & 2) {
			// FHCRC: the low 16 bits of the header's CRC-32. zlib checks it: so does this, else an
			// archive gzip refuses would pass the check.
			cursor += 2;
			if (cursor > this.end) return this.longHeader(cursor);
			const stated = input[cursor - 2] | (input[cursor - 1] << 8);
			if ((crc32(0, input, at, cursor - 2) & 0xffff) !== stated)
				throw new InflateError('header crc mismatch');
		}
		if (cursor > this.end) return this.longHeader(cursor);
		this.at = cursor;
		this.bits = 0;
		this.bitCount = 0;
		this.mode = 'blockHeader';
		return true;
	}

	/** A header not yet whole: wait for input, up to a bound. */
	private longHeader(reached: number): boolean {
		if (reached - this.at > MAX_GZIP_HEADER) throw new InflateError('gzip header too long');
		return false;
	}

	private need(count: number): void {
		while (this.bitCount < count) {
			this.bits |= this.input[this.at++] << this.bitCount;
			this.bitCount += 8;
		}
	}

	private take(count: number): number {
		this.need(count);
		const value = this.bits & ((1 << count) - 1);
		this.bits >>>= count;
		this.bitCount -= count;
		return value;
	}

	/** Bytes consumed beyond the input's end can only be the zeros `finish` put there. */
	private checkNotPastEnd(): void {
		if (this.at - (this.bitCount >>> 3) > this.end)
			throw new InflateError('unexpected end of file');
	}

	private blockHeader(): boolean {
		if (!this.final && this.end - this.at < HEADER_MARGIN) return false;
		this.lastBlock = this.take(1) === 1;
		const type = this.take(2);
		if (type === 0) {
			// Stored: to a byte boundary, then LEN and its complement; the bit buffer's bytes go back.
			this.take(this.bitCount & 7);
			this.at -= this.bitCount >>> 3;
			this.bits = 0;
			this.bitCount = 0;
			const input = this.input;
			const length = input[this.at] | (input[this.at + 1] << 8);
			const complement = input[this.at + 2] | (input[this.at + 3] << 8);
			this.at += 4;
			this.checkNotPastEnd();
			if (length !== (~complement & 0xffff)) throw new InflateError('invalid stored block lengths');
			this.storedLeft = length;
			this.mode = 'stored';
		} else if (type === 1) {
			this.literalTable = FIXED_LITERALS;
			this.literalBits = FIXED_LITERAL_BITS;
			this.distanceTable = FIXED_DISTANCES;
			this.distanceBits = FIXED_DISTANCE_BITS;
			this.mode = 'huffman';
		} else if (type === 2) {
			this.dynamicTables();
			this.mode = 'huffman';
		} else throw new InflateError('invalid block type');
		this.checkNotPastEnd();
		return true;
	}

	private dynamicTables(): void {
		const literalCount = this.take(5) + 257;
		const distanceCount = this.take(5) + 1;
		const codeLengthCount = this.take(4) + 4;
		if (literalCount > 286 || distanceCount > 30)
			throw new InflateError('too many length or distance symbols');
		const lengths = this.lengths;
		lengths.fill(0, 0, 19);
		for (let index = 0; index < codeLengthCount; index++)
			lengths[CODE_LENGTH_ORDER[index]] = this.take(3);
		const codeLengthBits = buildTable(lengths, 19, this.codeLengthTable, CODE_LENGTH_CODE);
		const total = literalCount + distanceCount;
		lengths.fill(0, 0, total);
		for (let index = 0; index < total; ) {
			this.need(codeLengthBits);
			const entry = this.codeLengthTable[this.bits & ((1 << codeLengthBits) - 1)];
			const length = entry & 15;
			if (length === 0) throw new InflateError('invalid code lengths set');
			this.bits >>>= length;
			this.bitCount -= length;
			const symbol = entry >>> 4;
			if (symbol < 16) {
				lengths[index++] = symbol;
				continue;
			}
			let repeat: number;
			let value = 0;
			if (symbol === 16) {
				if (index === 0) throw new InflateError('invalid bit length repeat');
				value = lengths[index - 1];
				repeat = 3 + this.take(2);
			} else if (symbol === 17) repeat = 3 + this.take(3);
			else repeat = 11 + this.take(7);
			if (index + repeat > total) throw new InflateError('invalid bit length repeat');
			lengths.fill(value, index, index + repeat);
			index += repeat;
		}
		if (lengths[256] === 0) throw new InflateError('invalid code -- missing end-of-block');
		this.literalBits = buildTable(
			lengths.subarray(0, literalCount),
			literalCount,
			this.literals,
			LITERAL_CODE,
		);
		this.distanceBits = buildTable(
			lengths.subarray(literalCount, total),
			distanceCount,
			this.distances,
			DISTANCE_CODE,
		);
		this.literalTable = this.literals;
		this.distanceTable = this.distances;
	}

	private stored(): boolean {
		const count = Math.min(
			this.storedLeft,
			this.end - this.at,
			WINDOW + VIEW_BYTES + 258 - this.written,
		);
		if (count === 0 && this.storedLeft > 0) return false;
		this.output.set(this.input.subarray(this.at, this.at + count), this.written);
		this.written += count;
		this.at += count;
		this.storedLeft -= count;
		if (this.storedLeft === 0) this.mode = this.lastBlock ? 'trailer' : 'blockHeader';
		return true;
	}

	/** Literals and matches until the block's end, the output's flush mark, or the input's margin. */
	private huffman(): boolean {
		const input = this.input;
		const output = this.output;
		const literals = this.literalTable;
		const distances = this.distanceTable;
		const literalMask = (1 << this.literalBits) - 1;
		const distanceMask = (1 << this.distanceBits) - 1;
		const inputLimit = this.final ? this.end + 8 : this.end - SYMBOL_MARGIN;
		const outputLimit = WINDOW + VIEW_BYTES;
		const memberStart = this.memberStart;
		let bits = this.bits;
		let bitCount = this.bitCount;
		let at = this.at;
		let written = this.written;
		let blockEnded = false;
		try {
			while (written < outputLimit) {
				if (at >= inputLimit) {
					if (!this.final) break;
					throw new InflateError('unexpected end of file');
				}
				while (bitCount < 24) {
					bits |= input[at++] << bitCount;
					bitCount += 8;
				}
				const entry = literals[bits & literalMask];
				const length = entry & 15;
				if (length === 0) throw new InflateError('invalid literal/length code');
				bits >>>= length;
				bitCount -= length;
				const symbol = entry >>> 4;
				if (symbol < 256) {
					output[written++] = symbol;
					// Literals come in runs: the next one's code is often in the bits already read.
					// Bits above bitCount are zeros, so an entry found is the next code's only when
					// its length fits in them.
					const next = literals[bits & literalMask];
					const nextLength = next & 15;
					if (nextLength !== 0 && nextLength <= bitCount && next >>> 4 < 256) {
						bits >>>= nextLength;
						bitCount -= nextLength;
						output[written++] = next >>> 4;
					}
					continue;
				}
				if (symbol === 256) {
					blockEnded = true;
					break;
				}
				const lengthIndex = symbol - 257;
				if (lengthIndex >= 29) throw new InflateError('invalid literal/length code');
				let matchLength = LENGTH_BASE[lengthIndex];
				const lengthExtra = LENGTH_EXTRA[lengthIndex];
				if (lengthExtra > 0) {
					matchLength += bits & ((1 << lengthExtra) - 1);
					bits >>>= lengthExtra;
					bitCount -= lengthExtra;
				}
				while (bitCount < 24) {
					bits |= input[at++] << bitCount;
					bitCount += 8;
				}
				const distanceEntry = distances[bits & distanceMask];
				const distanceLength = distanceEntry & 15;
				if (distanceLength === 0) throw new InflateError('invalid distance code');
				bits >>>= distanceLength;
				bitCount -= distanceLength;
				const distanceSymbol = distanceEntry >>> 4;
				if (distanceSymbol >= 30) throw new InflateError('invalid distance code');
				let distance = DISTANCE_BASE[distanceSymbol];
				const distanceExtra = DISTANCE_EXTRA[distanceSymbol];
				if (distanceExtra > 0) {
					if (bitCount < distanceExtra) {
						bits |= input[at++] << bitCount;
						bitCount += 8;
					}
					distance += bits & ((1 << distanceExtra) - 1);
					bits >>>= distanceExtra;
					bitCount -= distanceExtra;
				}
				let from = written - distance;
				if (from < memberStart) throw new InflateError('invalid distance too far back');
				if (distance >= matchLength && matchLength > 32) {
					output.copyWithin(written, from, from + matchLength);
					written += matchLength;
				} else {
					const stop = written + matchLength;
					while (written < stop) output[written++] = output[from++];
				}
			}
		} finally {
			this.bits = bits;
			this.bitCount = bitCount;
			this.at = at;
			this.written = written;
		}
		if (blockEnded) this.mode = this.lastBlock ? 'trailer' : 'blockHeader';
		this.checkNotPastEnd();
		return blockEnded || written >= outputLimit;
	}

	private trailer(): boolean {
		// To a byte boundary; the bit buffer's whole bytes go back to the input.
		this.take(this.bitCount & 7);
		this.at -= this.bitCount >>> 3;
		this.bits = 0;
		this.bitCount = 0;
		if (this.end - this.at < 8) return false;
		const input = this.input;
		const read32 = (at: number) =>
			(input[at] | (input[at + 1] << 8) | (input[at + 2] << 16) | (input[at + 3] << 24)) >>> 0;
		this.takeCrc();
		if (this.checkCrc && read32(this.at) !== this.crc)
			throw new InflateError('incorrect data check');
		if (read32(this.at + 4) !== this.size) throw new InflateError('incorrect length check');
		this.at += 8;
		this.mode = 'between';
		return true;
	}
}
