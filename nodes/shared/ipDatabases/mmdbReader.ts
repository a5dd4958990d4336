import { formatNetwork, parseIpAddress } from '../values/ipAddress';

import { Decoder, MmdbBoundError, MmdbError } from './mmdbDecoder';

/**
 * A reader of the MaxMind DB file format 2.0 (MMDB), written for this package because n8n Cloud
 * allows community nodes no runtime dependency and no file access: the file arrives as bytes.
 * Layout: a binary search tree (node_count nodes of two records each, 24, 28 or 32 bits a record),
 * 16 zero bytes, the data section, then the marker "\xAB\xCD\xEFMaxMind.com" and the metadata map.
 * A damaged file gives an MmdbError (mmdbDecoder.ts; a tree walk stops after 32 or 128 bits);
 * damage that leaves a well-formed file gives another answer, not an error: the download's SHA-256
 * is the check for that.
 */

export interface MmdbMatch {
	/** The matched network as text: "1.2.3.0/24", "2001:db8::/32". */
	network: string;
	/** The prefix length of `network` (IPv4 addresses: within the 32 bits of IPv4). */
	prefixLength: number;
	/** The decoded data record. */
	record: unknown;
}

/** The marker "\xAB\xCD\xEFMaxMind.com" before the metadata. */
export const METADATA_MARKER = [
	0xab, 0xcd, 0xef, 0x4d, 0x61, 0x78, 0x4d, 0x69, 0x6e, 0x64, 0x2e, 0x63, 0x6f, 0x6d,
];
/** The format puts the metadata in the last 128 KiB of the file. */
const METADATA_MAX_SIZE = 128 * 1024;
const SEPARATOR = 16;
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
	 * than the walk down the tree. Bounded in bytes, not entries (cleared when full: a file's
	 * records may each decode to up to the decoder's bound); callers read records, never change them.
	 */
	private readonly records = new Map<number, unknown>();

	/** The decoder's estimate of what `records` holds. */
	private recordBytes = 0;

	/**
	 * Records refused for decoding to more than the decoder's bound, by offset: a lookup that
	 * meets one again gets its error at once rather than decode up to the bound again to find it.
	 */
	private readonly refused = new Map<number, MmdbError>();

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
		if (record === undefined) record = this.decodeRecord(dataOffset);
		const prefixLength = depth - offset;
		const network =
			offset === 96 ? formatNetwork(address, depth) : formatNetwork(address, prefixLength);
		return { network, prefixLength: offset === 96 ? depth : prefixLength, record };
	}

	/** The record at `dataOffset`, decoded and kept in `records`; a refused one's error, kept in `refused`. */
	private decodeRecord(dataOffset: number): unknown {
		const refused = this.refused.get(dataOffset);
		if (refused) throw refused;
		let record: unknown;
		let failure: unknown;
		try {
			record = this.data.decodeAt(this.dataStart + dataOffset);
		} catch (error) {
			failure = error;
		}
		if (failure !== undefined) {
			if (failure instanceof MmdbBoundError) {
				if (this.refused.size >= REFUSED_RECORDS) this.refused.clear();
				this.refused.set(dataOffset, failure);
			}
			throw failure;
		}
		const bytes = this.data.decodedBytes;
		if (this.recordBytes + bytes > DECODED_RECORD_BYTES) {
			this.records.clear();
			this.recordBytes = 0;
		}
		this.records.set(dataOffset, record);
		this.recordBytes += bytes;
		return record;
	}

	/** lookup() for an address as text; throws MmdbError if it is not an IPv4 or IPv6 address. */
	lookupText(ip: string): MmdbMatch | undefined {
		const address = parseIpAddress(ip);
		if (address === undefined)
			throw new MmdbError(`"${String(ip)}" is not an IPv4 or IPv6 address`);
		return this.lookup(address);
	}
}

/**
 * What a reader's decoded records may hold, in the decoder's estimate: 16 MiB, a few thousand
 * of a city database's records, 256 of the largest the decoder allows.
 */
export const DECODED_RECORD_BYTES = 16 * 1024 * 1024;

/** Refused records a reader remembers (an error each). */
const REFUSED_RECORDS = 1024;

function isIpv4Mapped(address: Uint8Array): boolean {
	for (let index = 0; index < 10; index++) if (address[index] !== 0) return false;
	return address[10] === 0xff && address[11] === 0xff;
}
