/**
 * A test-only MaxMind DB writer that can write what the sandbox's writer does not: record sizes
 * 24, 28 and 32; IPv4-only trees; the ::ffff:0:0/96 alias of the IPv4 subtree; every data type;
 * pointers of all four size classes (in maps and arrays, to strings, maps and arrays); a data cache
 * container that records point into; an end marker; and metadata the test chooses. Files it writes
 * are read by mmdb-lib too, so the package's reader is compared with it on them.
 */

export type MmdbValue =
	| string
	| number
	| boolean
	| MmdbValue[]
	| { [key: string]: MmdbValue }
	| Typed;

/** A value whose MMDB type is not the default one of its JavaScript type (number is double). */
export class Typed {
	constructor(
		readonly type: 'uint16' | 'uint32' | 'int32' | 'uint64' | 'uint128' | 'float' | 'bytes',
		readonly value: number | bigint | Uint8Array,
	) {}
}

export const uint16 = (value: number) => new Typed('uint16', value);
export const uint32 = (value: number) => new Typed('uint32', value);
export const int32 = (value: number) => new Typed('int32', value);
export const uint64 = (value: bigint) => new Typed('uint64', value);
export const uint128 = (value: bigint) => new Typed('uint128', value);
export const float = (value: number) => new Typed('float', value);
export const bytes = (value: Uint8Array) => new Typed('bytes', value);

export interface TestNetwork {
	/** CIDR; IPv4 networks go under ::/96 in an IPv6 tree. */
	network: string;
	record: MmdbValue;
}

export interface TestWriterOptions {
	recordSize: 24 | 28 | 32;
	ipVersion: 4 | 6;
	/** Point ::ffff:0:0/96 at the IPv4 subtree, as MaxMind's writers do. */
	aliasIpv4?: boolean;
	/** Store repeated strings, maps and arrays once and point to them (default true). */
	pointers?: boolean;
	/**
	 * Put a data cache container (type 12) first in the data section, holding these strings at
	 * offsets that need pointers of every size class (0 to 3); values equal to them point there.
	 */
	dataCache?: string[];
	/** Place the container's last third past 2^24 bytes, so 28- and 32-bit records need their high bits. */
	dataCacheFar?: boolean;
	/** End the data section with an end marker (type 13). */
	endMarker?: boolean;
	/** Metadata entries to add or replace (encoded values), or to drop (undefined). */
	metadata?: Record<string, MmdbValue | undefined>;
}

export const METADATA_MARKER = Uint8Array.from([
	0xab,
	0xcd,
	0xef,
	...Buffer.from('MaxMind.com', 'latin1'),
]);

/** What a written file contains, for tests that want to know they exercised something. */
export interface WrittenFile {
	file: Uint8Array;
	nodeCount: number;
	/** Pointers written, by size class 0..3. */
	pointerSizes: [number, number, number, number];
	/** Where the data section starts in the file. */
	dataStart: number;
	/** Data section offset of each network's record, in the order given. */
	recordOffsets: number[];
}

class ByteSink {
	private chunks: Uint8Array[] = [];

	size = 0;

	push(...values: number[]) {
		this.add(Uint8Array.from(values));
	}

	add(chunk: Uint8Array) {
		this.chunks.push(chunk);
		this.size += chunk.length;
	}

	bytes(): Uint8Array {
		const out = new Uint8Array(this.size);
		let at = 0;
		for (const chunk of this.chunks) {
			out.set(chunk, at);
			at += chunk.length;
		}
		return out;
	}
}

function control(sink: ByteSink, type: number, size: number) {
	let sizeBits: number;
	const extra: number[] = [];
	if (size < 29) sizeBits = size;
	else if (size < 285) {
		sizeBits = 29;
		extra.push(size - 29);
	} else if (size < 65821) {
		sizeBits = 30;
		extra.push((size - 285) >> 8, (size - 285) & 0xff);
	} else {
		sizeBits = 31;
		const rest = size - 65821;
		extra.push((rest >> 16) & 0xff, (rest >> 8) & 0xff, rest & 0xff);
	}
	if (type <= 7) sink.push((type << 5) | sizeBits, ...extra);
	else sink.push(sizeBits, type - 7, ...extra);
}

function bigBytes(value: bigint): number[] {
	const out: number[] = [];
	let rest = value;
	while (rest > 0n) {
		out.unshift(Number(rest & 0xffn));
		rest >>= 8n;
	}
	return out;
}

/** The data section encoder: values appended in order, repeated ones pointed to when asked. */
class DataWriter {
	readonly sink = new ByteSink();

	readonly pointerSizes: [number, number, number, number] = [0, 0, 0, 0];

	private readonly known = new Map<string, number>();

	private pointerCount = 0;

	constructor(private readonly usePointers: boolean) {}

	/** A pointer to `target`; every fourth one in the largest size class, which can hold any offset. */
	pointer(target: number) {
		let sizeClass = target < 2048 ? 0 : target < 526336 ? 1 : 2;
		if (++this.pointerCount % 4 === 0) sizeClass = 3;
		this.pointerSizes[sizeClass]++;
		const s = this.sink;
		if (sizeClass === 0) s.push(0x20 | (target >> 8), target & 0xff);
		else if (sizeClass === 1) {
			const value = target - 2048;
			s.push(0x28 | (value >> 16), (value >> 8) & 0xff, value & 0xff);
		} else if (sizeClass === 2) {
			const value = target - 526336;
			s.push(0x30 | (value >> 24), (value >> 16) & 0xff, (value >> 8) & 0xff, value & 0xff);
		} else
			s.push(
				0x38,
				(target >>> 24) & 0xff,
				(target >> 16) & 0xff,
				(target >> 8) & 0xff,
				target & 0xff,
			);
	}

	/** Marks `value` as stored at `offset`, so that later copies point there. */
	remember(value: MmdbValue, offset: number) {
		this.known.set(keyOf(value), offset);
	}

	write(value: MmdbValue): number {
		const key =
			typeof value === 'string' || (typeof value === 'object' && !(value instanceof Typed))
				? keyOf(value)
				: undefined;
		if (this.usePointers && key !== undefined) {
			const at = this.known.get(key);
			if (at !== undefined) {
				this.pointer(at);
				return at;
			}
		}
		const offset = this.sink.size;
		this.encode(value);
		if (key !== undefined && !this.known.has(key)) this.known.set(key, offset);
		return offset;
	}

	private encode(value: MmdbValue) {
		const s = this.sink;
		if (typeof value === 'string') {
			const text = Buffer.from(value, 'utf8');
			control(s, 2, text.length);
			s.add(text);
		} else if (typeof value === 'number') {
			control(s, 3, 8);
			const out = Buffer.alloc(8);
			out.writeDoubleBE(value);
			s.add(out);
		} else if (typeof value === 'boolean') {
			control(s, 14, value ? 1 : 0);
		} else if (Array.isArray(value)) {
			control(s, 11, value.length);
			for (const element of value) this.write(element);
		} else if (value instanceof Typed) {
			this.encodeTyped(value);
		} else {
			const entries = Object.entries(value);
			control(s, 7, entries.length);
			for (const [name, entry] of entries) {
				this.write(name);
				this.write(entry);
			}
		}
	}

	private encodeTyped({ type, value }: Typed) {
		const s = this.sink;
		switch (type) {
			case 'uint16':
			case 'uint32': {
				const out = bigBytes(BigInt(value as number));
				control(s, type === 'uint16' ? 5 : 6, out.length);
				s.push(...out);
				return;
			}
			case 'int32': {
				const number = value as number;
				if (number < 0) {
					control(s, 8, 4);
					const out = Buffer.alloc(4);
					out.writeInt32BE(number);
					s.add(out);
				} else {
					const out = bigBytes(BigInt(number));
					control(s, 8, out.length);
					s.push(...out);
				}
				return;
			}
			case 'uint64':
			case 'uint128': {
				const out = bigBytes(value as bigint);
				control(s, type === 'uint64' ? 9 : 10, out.length);
				s.push(...out);
				return;
			}
			case 'float': {
				control(s, 15, 4);
				const out = Buffer.alloc(4);
				out.writeFloatBE(value as number);
				s.add(out);
				return;
			}
			case 'bytes': {
				const data = value as Uint8Array;
				control(s, 4, data.length);
				s.add(data);
			}
		}
	}
}

function keyOf(value: MmdbValue): string {
	return (
		JSON.stringify(value, (_key, entry: unknown) => {
			if (entry instanceof Typed)
				return {
					typed: entry.type,
					value: entry.value instanceof Uint8Array ? [...entry.value] : String(entry.value),
				};
			return entry;
		}) + (typeof value === 'string' ? ':s' : ':v')
	);
}

/** Parses CIDR into the tree's bits: 32 for an IPv4 tree, 128 (IPv4 under ::/96) for IPv6. */
function blockOf(cidr: string, ipVersion: 4 | 6): { bits: number[] } {
	const [address, length] = cidr.split('/');
	const prefix = Number(length);
	const out: number[] = [];
	if (address.includes(':')) {
		if (ipVersion === 4) throw new Error(`IPv6 network ${cidr} in an IPv4 tree`);
		const [head, tail] = address.includes('::') ? address.split('::') : [address, undefined];
		const groups = (text: string) =>
			text === '' ? [] : text.split(':').map((group) => parseInt(group, 16));
		const front = groups(head);
		const back = tail === undefined ? [] : groups(tail);
		const all = [...front, ...new Array<number>(8 - front.length - back.length).fill(0), ...back];
		for (const group of all) for (let bit = 15; bit >= 0; bit--) out.push((group >> bit) & 1);
	} else {
		if (ipVersion === 6) out.push(...new Array<number>(96).fill(0));
		for (const octet of address.split('.').map(Number))
			for (let bit = 7; bit >= 0; bit--) out.push((octet >> bit) & 1);
	}
	return { bits: out.slice(0, (ipVersion === 6 && !address.includes(':') ? 96 : 0) + prefix) };
}

type Child = null | { node: TreeNode } | { data: number };
interface TreeNode {
	children: [Child, Child];
}

function insert(root: TreeNode, bits: number[], data: number) {
	let node = root;
	for (let depth = 0; depth < bits.length - 1; depth++) {
		const child = node.children[bits[depth]];
		if (child !== null && 'node' in child) {
			node = child.node;
			continue;
		}
		// An empty branch, or a wider network's record that this one splits (both halves keep it).
		const next: TreeNode = { children: [child, child] };
		node.children[bits[depth]] = { node: next };
		node = next;
	}
	node.children[bits[bits.length - 1]] = { data };
}

export function writeTestMmdb(networks: TestNetwork[], options: TestWriterOptions): WrittenFile {
	const data = new DataWriter(options.pointers ?? true);
	if (options.dataCache)
		writeDataCache(data, options.dataCache, options.dataCacheFar ? 16_800_000 : 530_000);
	const recordOffsets = networks.map(({ record }) => data.write(record));
	if (options.endMarker) control(data.sink, 13, 0);

	const root: TreeNode = { children: [null, null] };
	const blocks = networks
		.map(({ network }, index) => ({
			...blockOf(network, options.ipVersion),
			offset: recordOffsets[index],
		}))
		.sort((a, b) => a.bits.length - b.bits.length);
	for (const { bits, offset } of blocks) insert(root, bits, offset);
	if (options.aliasIpv4 && options.ipVersion === 6) alias(root);

	// Breadth-first numbering; the alias makes a shared node, numbered once.
	const order: TreeNode[] = [root];
	const index = new Map<TreeNode, number>([[root, 0]]);
	for (let position = 0; position < order.length; position++) {
		for (const child of order[position].children) {
			if (child !== null && 'node' in child && !index.has(child.node)) {
				index.set(child.node, order.length);
				order.push(child.node);
			}
		}
	}
	const nodeCount = order.length;
	const valueOf = (child: Child) =>
		child === null
			? nodeCount
			: 'node' in child
				? index.get(child.node)!
				: nodeCount + 16 + child.data;
	const nodeBytes = options.recordSize / 4;
	const tree = new Uint8Array(nodeCount * nodeBytes);
	order.forEach((node, position) => {
		const [left, right] = node.children.map(valueOf);
		const at = position * nodeBytes;
		if (options.recordSize === 24) {
			tree.set(
				[
					left >> 16,
					(left >> 8) & 0xff,
					left & 0xff,
					right >> 16,
					(right >> 8) & 0xff,
					right & 0xff,
				],
				at,
			);
		} else if (options.recordSize === 28) {
			tree.set(
				[
					(left >> 16) & 0xff,
					(left >> 8) & 0xff,
					left & 0xff,
					((left >> 24) << 4) | (right >> 24),
					(right >> 16) & 0xff,
					(right >> 8) & 0xff,
					right & 0xff,
				],
				at,
			);
		} else {
			const view = new DataView(tree.buffer);
			view.setUint32(at, left);
			view.setUint32(at + 4, right);
		}
	});

	const metadata: Record<string, MmdbValue | undefined> = {
		binary_format_major_version: uint16(2),
		binary_format_minor_version: uint16(0),
		build_epoch: uint64(1767571200n),
		database_type: 'test-mmdb',
		description: { en: 'A test database' },
		ip_version: uint16(options.ipVersion),
		languages: ['en'],
		node_count: uint32(nodeCount),
		record_size: uint16(options.recordSize),
		...options.metadata,
	};
	const meta = new DataWriter(false);
	meta.write(
		Object.fromEntries(
			Object.entries(metadata).filter(([, value]) => value !== undefined),
		) as Record<string, MmdbValue>,
	);

	const dataBytes = data.sink.bytes();
	const file = new ByteSink();
	file.add(tree);
	file.add(new Uint8Array(16));
	file.add(dataBytes);
	file.add(METADATA_MARKER);
	file.add(meta.sink.bytes());
	return {
		file: file.bytes(),
		nodeCount,
		pointerSizes: data.pointerSizes,
		dataStart: tree.length + 16,
		recordOffsets,
	};
}

/** ::ffff:0:0/96 (80 zero bits, 16 one bits) leads to the node under ::/96. */
function alias(root: TreeNode) {
	let node = root;
	for (let depth = 0; depth < 96; depth++) {
		const child = node.children[0];
		if (child === null || !('node' in child)) throw new Error('No IPv4 subtree to alias');
		if (depth === 95) break;
		node = child.node;
	}
	const ipv4 = node.children[0] as { node: TreeNode };
	let at = root;
	for (let depth = 0; depth < 95; depth++) {
		const bit = depth < 80 ? 0 : 1;
		const child = at.children[bit];
		if (child !== null && 'node' in child) {
			at = child.node;
			continue;
		}
		const next: TreeNode = { children: [null, null] };
		at.children[bit] = { node: next };
		at = next;
	}
	at.children[1] = ipv4;
}

/**
 * A data cache container (extended type 12) holding the given strings spread over offsets below
 * 2048, up to 526336 and past it, so pointers to them take size classes 0, 1 and 2 (and 3).
 */
function writeDataCache(data: DataWriter, strings: string[], farOffset: number) {
	const s = data.sink;
	const third = Math.ceil(strings.length / 3);
	const parts = [
		strings.slice(0, third),
		strings.slice(third, 2 * third),
		strings.slice(2 * third),
	];
	const body = new ByteSink();
	const placed: Array<[string, number]> = [];
	const headerSize = 5; // control, extended type, three size bytes
	const offsets = [0, 2100, farOffset];
	parts.forEach((part, index) => {
		const padding = offsets[index] - (headerSize + body.size);
		if (padding > 0) body.add(new Uint8Array(padding));
		for (const text of part) {
			placed.push([text, headerSize + body.size]);
			const bytesOf = Buffer.from(text, 'utf8');
			control(body, 2, bytesOf.length);
			body.add(bytesOf);
		}
	});
	const start = s.size;
	// Size class 31 always, so the header is the five bytes counted above.
	const rest = body.size - 65821;
	if (rest < 0) throw new Error('data cache too small for its fixed header');
	s.push(31, 12 - 7, (rest >> 16) & 0xff, (rest >> 8) & 0xff, rest & 0xff);
	s.add(body.bytes());
	for (const [text, offset] of placed) data.remember(text, start + offset);
}
