import { formatNetwork, parseIpAddress } from '../values/ipAddress';

/**
 * A reader of the MaxMind DB file format 2.0 (MMDB), written for this package because n8n Cloud
 * allows community nodes no runtime dependency and no file access: the file arrives as bytes.
 *
 * Layout: a binary search tree (node_count nodes of two records each, 24, 28 or 32 bits a record),
 * 16 zero bytes, the data section, then the marker "\xAB\xCD\xEFMaxMind.com" and the metadata map.
 *
 * Everything is bounded, so a damaged file gives an MmdbError that names the problem, never another
 * exception, a hang or a read outside the data section: every read is checked against the end of its
 * section, a tree walk stops after 32 or 128 bits, a pointer may not point to a pointer (the format
 * forbids it, and it is the only way a chain could loop), maps and arrays nest at most
 * MAX_DEPTH deep and a record decodes to at most MAX_VALUES values (pointers can make a small file
 * expand without end otherwise).
 *
 * Values as mmdb-lib decodes them, so the two readers' records compare equal: strings, numbers for
 * double, float, uint16, uint32 and int32, BigInt for uint64 and uint128 (whatever their size), true
 * or false, plain objects for maps, arrays. Bytes are a copy, as a plain Uint8Array (mmdb-lib gives a
 * Buffer view into the file). Data cache containers (type 12) and end markers (type 13) are parts of
 * a data section that pointers may point into, never values: a record that is one is an error.
 *
 * What no reader can see: damage that leaves a well-formed file (a flipped bit inside a string, or a
 * tree record changed to another valid node or record) gives a different answer, not an error. The
 * download's SHA-256 is the check for that; this reader's guarantee is no crash, no hang, no read
 * outside the data section, and an error that names what is malformed.
 */

export class MmdbError extends Error {
	constructor(message: string) {
		super(`MMDB file: ${message}`);
		this.name = 'MmdbError';
	}
}

export interface MmdbMatch {
	/** The matched network as text: "1.2.3.0/24", "2001:db8::/32". */
	network: string;
	/** The prefix length of `network` (IPv4 addresses: within the 32 bits of IPv4). */
	prefixLength: number;
	/** The decoded data record. */
	record: unknown;
}

const METADATA_MARKER = [
	0xab, 0xcd, 0xef, 0x4d, 0x61, 0x78, 0x4d, 0x69, 0x6e, 0x64, 0x2e, 0x63, 0x6f, 0x6d,
];
/** The format puts the metadata in the last 128 KiB of the file. */
const METADATA_MAX_SIZE = 128 * 1024;
const SEPARATOR = 16;
/** Nesting of maps and arrays (and pointers into them); libmaxminddb stops at 512 too. */
const MAX_DEPTH = 512;
/** Values one record (or the metadata) may decode to: far above any real database's few hundred. */
const MAX_VALUES = 1 << 18;

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

/** Decodes the values of one section (the data section or the metadata), within its bounds. */
class Decoder {
	/** Where the next value starts, after decode(). */
	position = 0;

	private budget = 0;

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

	/** The value at `offset` (absolute), with a fresh budget of values. */
	decodeAt(offset: number): unknown {
		this.budget = MAX_VALUES;
		this.position = offset;
		return this.value(0);
	}

	private fail(problem: string, at: number): MmdbError {
		return new MmdbError(`${problem}, at byte ${at - this.base} of the ${this.section}`);
	}

	/** Checks that `count` bytes from `at` lie within the section (hot paths inline the check, see pastEnd). */
	private need(at: number, count: number, what: string): void {
		if (at + count > this.end) throw this.pastEnd(what, at);
	}

	/** The error for a value that runs past the section; its description is only built on failure. */
	private pastEnd(what: string, at: number): MmdbError {
		return this.fail(`${what} runs past the end of the ${this.section}`, at);
	}

	private value(depth: number): unknown {
		const bytes = this.bytes;
		let at = this.position;
		if (at >= this.end) throw this.fail(`a value starts past the end of the ${this.section}`, at);
		if (--this.budget < 0)
			throw this.fail(
				`the record expands to more than ${MAX_VALUES} values (a pointer loop or bomb)`,
				at,
			);
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

/** Finds the last metadata marker in the file's last 128 KiB; -1 if none. */
function findMetadataMarker(bytes: Uint8Array): number {
	const last = METADATA_MARKER.length - 1;
	const lowest = Math.max(0, bytes.length - METADATA_MAX_SIZE - METADATA_MARKER.length);
	for (let start = bytes.length - METADATA_MARKER.length; start >= lowest; start--) {
		if (bytes[start + last] !== METADATA_MARKER[last] || bytes[start] !== METADATA_MARKER[0])
			continue;
		let index = 1;
		while (index < last && bytes[start + index] === METADATA_MARKER[index]) index++;
		if (index === last) return start;
	}
	return -1;
}

function unsignedInteger(metadata: Record<string, unknown>, key: string): number {
	const value = metadata[key];
	if (value === undefined) throw new MmdbError(`the metadata has no "${key}"`);
	const number = typeof value === 'bigint' ? Number(value) : value;
	if (typeof number !== 'number' || !Number.isSafeInteger(number) || number < 0) {
		throw new MmdbError(`the metadata's "${key}" is not an unsigned integer`);
	}
	return number;
}

export class MmdbReader {
	/** The decoded metadata map (database_type, ip_version, record_size, node_count, build_epoch ...). */
	readonly metadata: Record<string, unknown>;

	private readonly bytes: Uint8Array;

	private readonly nodeCount: number;

	private readonly recordSize: 24 | 28 | 32;

	private readonly ipVersion: 4 | 6;

	/** Bytes of the search tree; the data section starts 16 bytes after it. */
	private readonly treeSize: number;

	private readonly dataStart: number;

	private readonly dataSize: number;

	/** Where IPv4 addresses start in an IPv6 tree: the node after 96 zero bits (or a record met earlier). */
	private readonly ipv4Start: number;

	private readonly data: Decoder;

	/**
	 * Records decoded lately, by their offset in the data section. Many networks share a record (a
	 * city's, an ASN's), and a log looks the same few up again and again: decoding one costs more
	 * than the walk down the tree. Bounded (cleared when full); callers read records, never change them.
	 */
	private readonly records = new Map<number, unknown>();

	/** Reads and checks the metadata and the bounds of the tree; throws MmdbError. */
	constructor(file: Uint8Array) {
		// Checked by tag, not instanceof: a Buffer made in another realm (a vm context) is bytes too.
		if (Object.prototype.toString.call(file) !== '[object Uint8Array]') {
			throw new MmdbError('expected the file as bytes (a Uint8Array or Buffer)');
		}
		this.bytes = file;
		const marker = findMetadataMarker(file);
		if (marker === -1)
			throw new MmdbError(
				'no metadata marker ("\\xAB\\xCD\\xEFMaxMind.com") in the last 128 KiB: not a MaxMind DB file, or truncated',
			);
		const metadataStart = marker + METADATA_MARKER.length;
		const metadata = new Decoder(file, metadataStart, file.length, 'metadata').decodeAt(
			metadataStart,
		);
		if (
			metadata === null ||
			typeof metadata !== 'object' ||
			Array.isArray(metadata) ||
			metadata instanceof Uint8Array
		) {
			throw new MmdbError('the metadata is not a map');
		}
		this.metadata = metadata as Record<string, unknown>;
		const major = unsignedInteger(this.metadata, 'binary_format_major_version');
		if (major !== 2)
			throw new MmdbError(`binary format major version ${major} (this reader reads version 2)`);
		unsignedInteger(this.metadata, 'binary_format_minor_version');
		unsignedInteger(this.metadata, 'build_epoch');
		if (typeof this.metadata.database_type !== 'string')
			throw new MmdbError('the metadata\'s "database_type" is missing or not a string');
		this.nodeCount = unsignedInteger(this.metadata, 'node_count');
		const recordSize = unsignedInteger(this.metadata, 'record_size');
		if (recordSize !== 24 && recordSize !== 28 && recordSize !== 32) {
			throw new MmdbError(`record size ${recordSize} (the format has 24, 28 and 32)`);
		}
		this.recordSize = recordSize;
		const ipVersion = unsignedInteger(this.metadata, 'ip_version');
		if (ipVersion !== 4 && ipVersion !== 6)
			throw new MmdbError(`IP version ${ipVersion} (must be 4 or 6)`);
		this.ipVersion = ipVersion;
		this.treeSize = (this.nodeCount * recordSize) / 4;
		this.dataStart = this.treeSize + SEPARATOR;
		if (this.dataStart > marker) {
			throw new MmdbError(
				`node_count ${this.nodeCount} at ${recordSize}-bit records needs ${this.dataStart} bytes of search tree and separator, but the metadata starts at byte ${marker}`,
			);
		}
		this.dataSize = marker - this.dataStart;
		this.data = new Decoder(file, this.dataStart, marker, 'data section');
		this.ipv4Start = this.findIpv4Start();
	}

	private findIpv4Start(): number {
		if (this.ipVersion === 4) return 0;
		let node = 0;
		for (let depth = 0; depth < 96 && node < this.nodeCount; depth++) node = this.record(node, 0);
		return node;
	}

	/** One record of a node, for the slow paths (the lookup has its own loop per record size). */
	private record(node: number, side: number): number {
		const bytes = this.bytes;
		if (this.recordSize === 24) {
			const at = node * 6 + side * 3;
			return (bytes[at] << 16) | (bytes[at + 1] << 8) | bytes[at + 2];
		}
		if (this.recordSize === 28) {
			const at = node * 7;
			// The middle byte's high nibble belongs to the left record, its low nibble to the right.
			if (side === 0)
				return (
					((bytes[at + 3] & 0xf0) << 20) | (bytes[at] << 16) | (bytes[at + 1] << 8) | bytes[at + 2]
				);
			return (
				((bytes[at + 3] & 0x0f) << 24) |
				(bytes[at + 4] << 16) |
				(bytes[at + 5] << 8) |
				bytes[at + 6]
			);
		}
		const at = node * 8 + side * 4;
		return bytes[at] * 16777216 + ((bytes[at + 1] << 16) | (bytes[at + 2] << 8) | bytes[at + 3]);
	}

	/**
	 * The network and record that cover `address` (4 or 16 bytes); undefined when the database does
	 * not cover it. IPv4 addresses in an IPv6 tree are looked up under ::/96, and their network is
	 * the IPv4 one ("1.2.3.0/24"), as mmdb-lib reports it. In an IPv4 database, an IPv4-mapped IPv6
	 * address (::ffff:1.2.3.4) is looked up by its IPv4 part, and any other IPv6 address is not covered.
	 */
	lookup(address: Uint8Array): MmdbMatch | undefined {
		let node: number;
		let bits: number;
		let offset: number; // bits of the address before the walk starts
		if (address.length === 4) {
			node = this.ipv4Start;
			bits = 32;
			offset = 0;
		} else if (address.length === 16) {
			if (this.ipVersion === 4) {
				if (!isIpv4Mapped(address)) return undefined;
				node = 0;
				bits = 128;
				offset = 96;
			} else {
				node = 0;
				bits = 128;
				offset = 0;
			}
		} else {
			throw new MmdbError(`an address of ${address.length} bytes (must be 4 or 16)`);
		}
		const nodeCount = this.nodeCount;
		const bytes = this.bytes;
		let depth = offset;
		// One loop per record size: no call and no allocation per bit.
		if (this.recordSize === 24) {
			for (; depth < bits && node < nodeCount; depth++) {
				const at = node * 6 + ((address[depth >> 3] >> (7 - (depth & 7))) & 1) * 3;
				node = (bytes[at] << 16) | (bytes[at + 1] << 8) | bytes[at + 2];
			}
		} else if (this.recordSize === 28) {
			for (; depth < bits && node < nodeCount; depth++) {
				const at = node * 7;
				node =
					((address[depth >> 3] >> (7 - (depth & 7))) & 1) === 0
						? ((bytes[at + 3] & 0xf0) << 20) |
							(bytes[at] << 16) |
							(bytes[at + 1] << 8) |
							bytes[at + 2]
						: ((bytes[at + 3] & 0x0f) << 24) |
							(bytes[at + 4] << 16) |
							(bytes[at + 5] << 8) |
							bytes[at + 6];
			}
		} else {
			for (; depth < bits && node < nodeCount; depth++) {
				const at = node * 8 + ((address[depth >> 3] >> (7 - (depth & 7))) & 1) * 4;
				node =
					bytes[at] * 16777216 + ((bytes[at + 1] << 16) | (bytes[at + 2] << 8) | bytes[at + 3]);
			}
		}
		if (node === nodeCount) return undefined;
		if (node < nodeCount)
			throw new MmdbError(
				`the search tree is deeper than ${this.ipVersion === 4 ? 32 : 128} bits (a loop in the tree?)`,
			);
		const dataOffset = node - nodeCount - SEPARATOR;
		if (dataOffset < 0)
			throw new MmdbError(
				`the search tree points into the 16-byte separator (record value ${node})`,
			);
		if (dataOffset >= this.dataSize) {
			throw new MmdbError(
				`the search tree points to byte ${dataOffset} of a data section of ${this.dataSize} bytes`,
			);
		}
		let record = this.records.get(dataOffset);
		if (record === undefined) {
			record = this.data.decodeAt(this.dataStart + dataOffset);
			if (this.records.size >= DECODED_RECORDS) this.records.clear();
			this.records.set(dataOffset, record);
		}
		const prefixLength = depth - offset;
		const network =
			offset === 96 ? formatNetwork(address, depth) : formatNetwork(address, prefixLength);
		return { network, prefixLength: offset === 96 ? depth : prefixLength, record };
	}

	/** lookup() for an address as text; throws MmdbError if it is not an IPv4 or IPv6 address. */
	lookupText(ip: string): MmdbMatch | undefined {
		const address = parseIpAddress(ip);
		if (address === undefined)
			throw new MmdbError(`"${String(ip)}" is not an IPv4 or IPv6 address`);
		return this.lookup(address);
	}
}

/** Decoded records a reader keeps: a few MB of a city database's records. */
const DECODED_RECORDS = 4096;

function isIpv4Mapped(address: Uint8Array): boolean {
	for (let index = 0; index < 10; index++) if (address[index] !== 0) return false;
	return address[10] === 0xff && address[11] === 0xff;
}
