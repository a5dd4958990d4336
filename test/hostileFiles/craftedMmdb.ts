/**
 * MMDB files built to exhaust a reader's memory, byte by byte (the test writer,
 * ../ipLookup/mmdbTestWriter.ts, compares whole values to find repeats, which a record of 100,000
 * copies would make a 1.6 GB string of). Each is small and well-formed: what it does to a reader
 * comes from pointers, which the format lets any number of values share. IPv4 trees of 24-bit
 * records; the metadata is a real one (database_type "crafted-bomb", read as a foreign file).
 */

/** A value's control byte(s): type (1-15) and size, with the format's extended type and size bytes. */
export function control(type: number, size: number): number[] {
	const extra: number[] = [];
	let sizeBits = size;
	if (size >= 65821) {
		sizeBits = 31;
		const rest = size - 65821;
		extra.push((rest >> 16) & 0xff, (rest >> 8) & 0xff, rest & 0xff);
	} else if (size >= 285) {
		sizeBits = 30;
		extra.push((size - 285) >> 8, (size - 285) & 0xff);
	} else if (size >= 29) {
		sizeBits = 29;
		extra.push(size - 29);
	}
	if (type <= 7) return [(type << 5) | sizeBits, ...extra];
	return [sizeBits, type - 7, ...extra];
}

/** A pointer to `target` (an offset in its section), in the smallest size class that holds it. */
export function pointer(target: number): number[] {
	if (target < 2048) return [0x20 | (target >> 8), target & 0xff];
	if (target < 526336) {
		const value = target - 2048;
		return [0x28 | (value >> 16), (value >> 8) & 0xff, value & 0xff];
	}
	throw new Error('pointers past 526,336 are not needed here');
}

export const text = (value: string) => {
	const bytes = [...Buffer.from(value, 'utf8')];
	return [...control(2, bytes.length), ...bytes];
};
export const uint16 = (value: number) =>
	value < 256 ? [0xa1, value] : [0xa2, (value >> 8) & 0xff, value & 0xff];
const uint32 = (value: number) => [
	0xc4,
	(value >>> 24) & 0xff,
	(value >> 16) & 0xff,
	(value >> 8) & 0xff,
	value & 0xff,
];
const uint64 = (value: number) => [
	0x04,
	0x02,
	...Buffer.from(value.toString(16).padStart(8, '0'), 'hex'),
];

const MARKER = [0xab, 0xcd, 0xef, ...Buffer.from('MaxMind.com', 'latin1')];

/** A map of these entries, each key's and value's bytes as given. */
function map(entries: Array<[string, number[]]>): number[] {
	const out = control(7, entries.length);
	for (const [key, value] of entries) out.push(...text(key), ...value);
	return out;
}

/** The metadata every file here has, then `more` entries (raw values), in this order. */
function metadata(nodeCount: number, more: Array<[string, number[]]> = []): number[] {
	return map([
		['binary_format_major_version', uint16(2)],
		['binary_format_minor_version', uint16(0)],
		['build_epoch', uint64(1767571200)],
		['database_type', text('crafted-bomb')],
		['ip_version', uint16(4)],
		['node_count', uint32(nodeCount)],
		['record_size', uint16(24)],
		...more,
	]);
}

/** Tree, the 16-byte separator, data section, marker, metadata. `records[node]` is [left, right]. */
function mmdb(records: Array<[number, number]>, data: number[], meta: number[]): Buffer {
	const tree = Buffer.alloc(records.length * 6);
	records.forEach(([left, right], node) => {
		tree.writeUIntBE(left, node * 6, 3);
		tree.writeUIntBE(right, node * 6 + 3, 3);
	});
	return Buffer.concat([
		tree,
		Buffer.alloc(16),
		Buffer.from(data),
		Buffer.from(MARKER),
		Buffer.from(meta),
	]);
}

/** The tree value of a pointer to data offset `offset` in a tree of `nodeCount` nodes. */
const toData = (nodeCount: number, offset: number) => nodeCount + 16 + offset;

/** A file whose one record (for 0.0.0.0/1) is the value at `recordAt` of the data section `data`. */
export const oneRecordFile = (data: number[], recordAt: number): Buffer =>
	mmdb([[toData(1, recordAt), 1]], data, metadata(1));

/**
 * One record (for 0.0.0.0/1) that is an array of `copies` pointers to one string of `stringBytes`:
 * 100,000 pointers to 16 KiB, 216 KB of file, decode to 1.6 GB of strings.
 */
export function recordPointerBomb(copies = 100_000, stringBytes = 16 * 1024): Buffer {
	const data = text('x'.repeat(stringBytes));
	const recordAt = data.length;
	data.push(...control(11, copies));
	const toString = pointer(0);
	for (let index = 0; index < copies; index++) data.push(...toString);
	return oneRecordFile(data, recordAt);
}

/**
 * The same in the metadata, read when the file is opened: a 16 KiB string, then 50,000 pointers
 * to it under "languages", 116 KB of metadata (the format keeps it in the last 128 KiB) that
 * decode to 800 MB.
 */
export function metadataPointerBomb(copies = 50_000, stringBytes = 16 * 1024): Buffer {
	// The string is the first entry's value: the map's control byte, then the key "a" (2 bytes).
	const filler: Array<[string, number[]]> = [['a', text('x'.repeat(stringBytes))]];
	const list = control(11, copies);
	const toString = pointer(3);
	for (let index = 0; index < copies; index++) list.push(...toString);
	const meta = map([...filler, ...mapEntries(metadata(1)), ['languages', list]]);
	// No record: both halves of the one node say "not found".
	return mmdb([[1, 1]], [], meta);
}

/** The entries of a map `map()` wrote, back as [key, value bytes] (the metadata's plain entries). */
function mapEntries(bytes: number[]): Array<[string, number[]]> {
	const entries: Array<[string, number[]]> = [];
	const count = bytes[0] & 31;
	let at = 1;
	const valueLength = (from: number) => {
		const type = bytes[from] >> 5;
		if (type === 0) return 2 + (bytes[from] & 31); // extended: uint64 here
		return 1 + (bytes[from] & 31);
	};
	for (let index = 0; index < count; index++) {
		const keyLength = 1 + (bytes[at] & 31);
		const key = Buffer.from(bytes.slice(at + 1, at + keyLength)).toString('utf8');
		at += keyLength;
		const length = valueLength(at);
		entries.push([key, bytes.slice(at, at + length)]);
		at += length;
	}
	return entries;
}

/** Where record `index` of a tree of 2^depth records is found: its index as the address's first bits. */
export function addressOfRecord(index: number, depth = 12): string {
	const value = index * 2 ** (32 - depth);
	return [24, 16, 8, 0].map((shift) => Math.floor(value / 2 ** shift) % 256).join('.');
}

/**
 * 4,096 networks (the first 12 bits of the address), each with a record of its own (at its own
 * offset, so a reader decodes and keeps each apart) that points to one shared array of `elements`
 * values (one-byte numbers unless `element` makes others). With 131,070 elements (the most a
 * reader counting 2^18 values let through) each record decodes to about 1 MB: a reader keeping
 * 4,096 decoded records holds 4 GB.
 */
export function sharedArrayRecords(
	elements = 131_070,
	depth = 12,
	element: (index: number) => number[] = (index) => uint16(index & 0xff),
): Buffer {
	const data = control(11, elements);
	for (let index = 0; index < elements; index++) data.push(...element(index));
	return sharedValueRecords(data, depth);
}

/**
 * 2^depth networks (the address's first `depth` bits), each with a record of its own, `{ n, a }`,
 * whose `a` points to one shared value (`shared`, its bytes, at the data section's start).
 */
export function sharedValueRecords(shared: number[], depth = 12): Buffer {
	const data = [...shared];
	const leaves = 2 ** depth;
	const recordAt: number[] = [];
	for (let index = 0; index < leaves; index++) {
		recordAt.push(data.length);
		data.push(
			...map([
				['n', uint16(index)],
				['a', pointer(0)],
			]),
		);
	}
	// A complete tree, nodes numbered breadth first: node k's children are 2k+1 and 2k+2; the
	// last level's records point to the data.
	const nodeCount = leaves - 1;
	const firstLeafNode = leaves / 2 - 1;
	const records: Array<[number, number]> = [];
	for (let node = 0; node < nodeCount; node++) {
		if (node < firstLeafNode) records.push([2 * node + 1, 2 * node + 2]);
		else {
			const leaf = (node - firstLeafNode) * 2;
			records.push([toData(nodeCount, recordAt[leaf]), toData(nodeCount, recordAt[leaf + 1])]);
		}
	}
	return mmdb(records, data, metadata(nodeCount));
}
