/**
 * The values of an MMDB's data section and metadata, bounded so that a damaged or hostile file
 * gives an MmdbError naming the problem, never another exception, a hang, a read outside the
 * section or a heap that n8n cannot survive: every read is checked against the section's end, a
 * pointer may not point to a pointer (the format forbids it, and it is the only way a chain could
 * loop), maps and arrays nest at most MAX_DEPTH deep, and a record (or the metadata) decodes to at
 * most DECODED_BYTES of memory. That budget counts what decoding makes, not what the file holds:
 * a pointer's target is counted each time it is decoded, since each time makes a fresh copy (a
 * 216 KB record of 100,000 pointers to one 16 KiB string would otherwise make 1.6 GB of strings).
 */

export class MmdbError extends Error {
	constructor(message: string) {
		super(`MMDB file: ${message}`);
		this.name = 'MmdbError';
	}
}

/** A record, or the metadata, that decodes to more than DECODED_BYTES: refused, not a damaged byte. */
export class MmdbBoundError extends MmdbError {
	constructor(message: string) {
		super(message);
		this.name = 'MmdbBoundError';
	}
}

/** Nesting of maps and arrays (and pointers into them); libmaxminddb stops at 512 too. */
const MAX_DEPTH = 512;

/**
 * What one record, or the metadata, may decode to, in the estimate below: 64 KiB, some ten times
 * the largest record or metadata of every real database measured (GeoLite2-City's largest record,
 * 6,232 bytes; docs/ip-lookups.md has the figures and bench/mmdbRecordSizes.ts makes them). It is
 * also what a lookup's answer may cost: each item of IP Database Lookup carries its record, so a
 * bound of a MiB let 1,000 lookups of a 145 KB file fill a 256 MiB heap with their items.
 */
export const DECODED_BYTES = 64 * 1024;

/**
 * The estimate of a decoded value's memory: VALUE_BYTES for every value (its slot in the array
 * or map that holds it, a number's box, a string's header; a pointer counts as one too), plus a
 * string's or a byte array's length, plus OBJECT_BYTES for the values V8 makes an object of. It
 * is V8's size within a factor of about two either way (test/ipLookup/mmdbEstimate.test.ts).
 */
export const VALUE_BYTES = 16;

/**
 * What V8 makes of a value beyond VALUE_BYTES, where that is more (64-bit Node, 20 to 24): a
 * map's object (56 bytes empty), an array (32), a byte array's Uint8Array and its buffer (184),
 * a uint64's or uint128's BigInt (32). Counted at 16 bytes each, 65,000 empty byte arrays (65 KB
 * of file) fitted the bound of the time (1 MiB) and made 12 MiB of heap, and a lookup of them took 100 ms.
 */
export const OBJECT_BYTES = { map: 48, array: 24, bytes: 176, bigInteger: 24 } as const;

const TYPE_NAMES = [
	'extended',
	'pointer',
	'UTF-8 string',
	'double',
	'bytes',
	'uint16',
	'uint32',
	'map',
	'int32',
	'uint64',
	'uint128',
	'array',
	'data cache container',
	'end marker',
	'boolean',
	'float',
];

const withArticle = (name: string) => (/^[aei]/.test(name) ? `an ${name}` : `a ${name}`);

const utf8 = new TextDecoder('utf-8');

/** Node's Buffer decodes a range straight from its memory (Buffer.toString('utf8', start, end) without the argument checks). */
interface NativeText {
	utf8Slice(start: number, end: number): string;
}

/**
 * Decodes the values of one section (the data section or the metadata), within its bounds, as
 * mmdb-lib decodes them, so the two readers' records compare equal: strings, numbers for double,
 * float, uint16, uint32 and int32, BigInt for uint64 and uint128 (whatever their size), true or
 * false, plain objects for maps, arrays. Bytes are a copy, as a plain Uint8Array (mmdb-lib gives
 * a Buffer view into the file). Data cache containers (type 12) and end markers (type 13) are
 * parts of a data section that pointers may point into, never values: a record that is one is an
 * error.
 */
export class Decoder {
	/** Where the next value starts, after decode(). */
	position = 0;

	/** Estimated bytes the value being decoded may still make (DECODED_BYTES at its start). */
	private bytesLeft = 0;

	/** Where the value being decoded starts, for the error that refuses it. */
	private startedAt = 0;

	private readonly view: DataView;

	/** The file as a Node Buffer (a view, not a copy), whose utf8Slice decodes without a subarray. */
	private readonly native: NativeText | undefined;

	constructor(
		private readonly bytes: Uint8Array,
		/** Pointers count from here. */
		private readonly base: number,
		/** First byte past the section. */
		private readonly end: number,
		private readonly section: string,
	) {
		this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
		const buffer = Buffer.from(
			bytes.buffer,
			bytes.byteOffset,
			bytes.byteLength,
		) as unknown as Partial<NativeText>;
		this.native = typeof buffer.utf8Slice === 'function' ? (buffer as NativeText) : undefined;
	}

	/** The value at `offset` (absolute), decoding to at most DECODED_BYTES (else an MmdbBoundError). */
	decodeAt(offset: number): unknown {
		this.bytesLeft = DECODED_BYTES;
		this.startedAt = offset;
		this.position = offset;
		return this.value(0);
	}

	/** The estimated bytes the last decodeAt made (what a cache of its value holds). */
	get decodedBytes(): number {
		return DECODED_BYTES - this.bytesLeft;
	}

	private fail(problem: string, at: number): MmdbError {
		return new MmdbError(`${problem}, at byte ${at - this.base} of the ${this.section}`);
	}

	/** Checks that `count` bytes from `at` lie within the section (hot paths inline the check, see pastEnd). */
	private need(at: number, count: number, what: string): void {
		if (at + count > this.end) throw this.pastEnd(what, at);
	}

	/** The value being decoded makes more than DECODED_BYTES: refused where it starts. */
	private overBound(): MmdbBoundError {
		const what =
			this.section === 'metadata'
				? 'the metadata'
				: `the record at byte ${(this.startedAt - this.base).toLocaleString('en-US')} of the ${this.section}`;
		return new MmdbBoundError(
			`${what} decodes to more than ${DECODED_BYTES / 1024} KiB (${DECODED_BYTES.toLocaleString('en-US')} bytes, the bound; a real database's largest record makes about 6 KB), pointers counted each time they are followed: refused as a pointer bomb or a damaged file`,
		);
	}

	/** The error for a value that runs past the section; its description is only built on failure. */
	private pastEnd(what: string, at: number): MmdbError {
		return this.fail(`${what} runs past the end of the ${this.section}`, at);
	}

	private value(depth: number): unknown {
		const bytes = this.bytes;
		let at = this.position;
		if (at >= this.end) throw this.fail(`a value starts past the end of the ${this.section}`, at);
		if ((this.bytesLeft -= VALUE_BYTES) < 0) throw this.overBound();
		const control = bytes[at++];
		let type = control >> 5;
		if (type === 1) return this.pointer(control, at, depth);
		if (type === 0) {
			this.need(at, 1, 'an extended type byte');
			type = 7 + bytes[at++];
			if (type < 8 || type > 15)
				throw this.fail(`extended type ${type} is not a MaxMind DB type`, at - 2);
		}
		let size = control & 31;
		if (size >= 29) {
			if (size === 29) {
				this.need(at, 1, 'a size byte');
				size = 29 + bytes[at++];
			} else if (size === 30) {
				this.need(at, 2, 'the size bytes');
				size = 285 + ((bytes[at] << 8) | bytes[at + 1]);
				at += 2;
			} else {
				this.need(at, 3, 'the size bytes');
				size = 65821 + ((bytes[at] << 16) | (bytes[at + 1] << 8) | bytes[at + 2]);
				at += 3;
			}
		}
		switch (type) {
			case 2: {
				if (at + size > this.end) throw this.pastEnd(`a string of ${size} bytes`, at);
				if ((this.bytesLeft -= size) < 0) throw this.overBound();
				this.position = at + size;
				return this.string(at, size);
			}
			case 7:
				return this.map(at, size, depth);
			case 6:
			case 5: {
				if (size > (type === 5 ? 2 : 4))
					throw this.fail(`${withArticle(TYPE_NAMES[type])} of ${size} bytes`, at);
				if (at + size > this.end) throw this.pastEnd(`${withArticle(TYPE_NAMES[type])}`, at);
				let number = 0;
				for (let index = 0; index < size; index++) number = number * 256 + bytes[at + index];
				this.position = at + size;
				return number;
			}
			case 3:
			case 15: {
				const width = type === 3 ? 8 : 4;
				if (size !== width)
					throw this.fail(
						`${withArticle(TYPE_NAMES[type])} of ${size} bytes (must be ${width})`,
						at,
					);
				if (at + size > this.end) throw this.pastEnd(`${withArticle(TYPE_NAMES[type])}`, at);
				this.position = at + size;
				return type === 3 ? this.view.getFloat64(at) : this.view.getFloat32(at);
			}
			case 11: {
				if (depth >= MAX_DEPTH)
					throw this.fail(`maps and arrays nest deeper than ${MAX_DEPTH}`, at);
				// Every element takes at least one byte: a size past the end is refused before allocating.
				if (at + size > this.end) throw this.pastEnd(`an array of ${size} elements`, at);
				// Every element costs VALUE_BYTES at least: refused before the array is allocated.
				if ((this.bytesLeft -= OBJECT_BYTES.array) < 0 || size * VALUE_BYTES > this.bytesLeft)
					throw this.overBound();
				const list = new Array<unknown>(size);
				this.position = at;
				for (let index = 0; index < size; index++) list[index] = this.value(depth + 1);
				return list;
			}
			case 14: {
				if (size > 1) throw this.fail(`a boolean of size ${size} (must be 0 or 1)`, at);
				this.position = at;
				return size === 1;
			}
			case 4: {
				if (at + size > this.end) throw this.pastEnd(`${size} bytes`, at);
				if ((this.bytesLeft -= size + OBJECT_BYTES.bytes) < 0) throw this.overBound();
				const copy = new Uint8Array(size);
				copy.set(bytes.subarray(at, at + size));
				this.position = at + size;
				return copy;
			}
			case 8: {
				if (size > 4) throw this.fail(`an int32 of ${size} bytes`, at);
				this.need(at, size, 'an int32');
				this.position = at + size;
				if (size === 4) return this.view.getInt32(at);
				// Shorter int32s are read as unsigned, as libmaxminddb and mmdb-lib do.
				let number = 0;
				for (let index = 0; index < size; index++) number = number * 256 + bytes[at + index];
				return number;
			}
			case 9:
			case 10: {
				if (size > (type === 9 ? 8 : 16))
					throw this.fail(`${withArticle(TYPE_NAMES[type])} of ${size} bytes`, at);
				if (at + size > this.end) throw this.pastEnd(`${withArticle(TYPE_NAMES[type])}`, at);
				if ((this.bytesLeft -= OBJECT_BYTES.bigInteger) < 0) throw this.overBound();
				let number = 0n;
				for (let index = 0; index < size; index++)
					number = (number << 8n) | BigInt(bytes[at + index]);
				this.position = at + size;
				return number;
			}
			default:
				// 12 and 13: parts of the section's layout, not values.
				throw this.fail(
					`${withArticle(TYPE_NAMES[type])} (type ${type}) where a value must be`,
					this.position,
				);
		}
	}

	/** Pointer: 001SSVVV; SS is the size class, the value counts from the section's start. */
	private pointer(control: number, at: number, depth: number): unknown {
		const sizeClass = (control >> 3) & 3;
		this.need(at, sizeClass + 1, 'a pointer');
		const bytes = this.bytes;
		let target: number;
		if (sizeClass === 0) target = ((control & 7) << 8) | bytes[at];
		else if (sizeClass === 1)
			target = 2048 + (((control & 7) << 16) | (bytes[at] << 8) | bytes[at + 1]);
		else if (sizeClass === 2)
			target =
				526336 +
				((control & 7) * 16777216 + ((bytes[at] << 16) | (bytes[at + 1] << 8) | bytes[at + 2]));
		else
			target =
				bytes[at] * 16777216 + ((bytes[at + 1] << 16) | (bytes[at + 2] << 8) | bytes[at + 3]);
		const next = at + sizeClass + 1;
		const absolute = this.base + target;
		if (absolute >= this.end)
			throw this.fail(`a pointer to ${target}, past the end of the ${this.section}`, at - 1);
		if (bytes[absolute] >> 5 === 1)
			throw this.fail('a pointer to a pointer (not allowed by the format)', at - 1);
		if (depth >= MAX_DEPTH)
			throw this.fail(`pointers and containers nest deeper than ${MAX_DEPTH}`, at - 1);
		this.position = absolute;
		const value = this.value(depth + 1);
		this.position = next;
		return value;
	}

	private map(at: number, size: number, depth: number): Record<string, unknown> {
		if (depth >= MAX_DEPTH) throw this.fail(`maps and arrays nest deeper than ${MAX_DEPTH}`, at);
		// A key and a value take at least a byte each: a size past the end is refused before reading.
		if (at + size * 2 > this.end) throw this.pastEnd(`a map of ${size} entries`, at);
		if ((this.bytesLeft -= OBJECT_BYTES.map) < 0 || size * 2 * VALUE_BYTES > this.bytesLeft)
			throw this.overBound();
		const map: Record<string, unknown> = {};
		this.position = at;
		for (let index = 0; index < size; index++) {
			const keyAt = this.position;
			const key = this.value(depth + 1);
			if (typeof key !== 'string') throw this.fail('a map key that is not a string', keyAt);
			const value = this.value(depth + 1);
			// A key "__proto__" is data like any other, not the object's prototype.
			if (key === '__proto__')
				Object.defineProperty(map, key, {
					value,
					enumerable: true,
					writable: true,
					configurable: true,
				});
			else map[key] = value;
		}
		return map;
	}

	/** UTF-8 text: Node's native decoder on the file's own memory, TextDecoder where there is none. */
	private string(at: number, size: number): string {
		if (this.native !== undefined) return this.native.utf8Slice(at, at + size);
		return utf8.decode(this.bytes.subarray(at, at + size));
	}
}
