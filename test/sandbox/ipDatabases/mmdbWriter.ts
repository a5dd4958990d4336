import { bitAt, parseCidr } from './network';

/**
 * A small MaxMind DB (MMDB 2.0) writer: a binary search tree over IPv4 and IPv6 networks, a data
 * section of flat string maps, and the metadata section after the `\xAB\xCD\xEFMaxMind.com`
 * marker. Enough for the sandbox's databases to be real files that any MMDB reader opens.
 */

export interface MmdbNetwork {
	network: string;
	record: Record<string, string>;
}

export interface MmdbMetadata {
	databaseType: string;
	description: string;
	buildEpoch: number;
}

export const METADATA_MARKER = Buffer.from('abcdef4d61784d696e642e636f6d', 'hex');

type Child = null | { node: TreeNode } | { data: number };
interface TreeNode {
	children: [Child, Child];
}

export function writeMmdb(networks: MmdbNetwork[], metadata: MmdbMetadata): Buffer {
	const data = new DataSection();
	const root: TreeNode = { children: [null, null] };
	// Wider networks first, so a nested, more specific one splits the wider one's leaf.
	const blocks = networks
		.map(({ network, record }) => ({ block: parseCidr(network), offset: data.add(record) }))
		.sort((a, b) => a.block.bits - b.block.bits);
	for (const { block, offset } of blocks) insert(root, block.bytes, block.bits, { data: offset });
	aliasIpv4(root);

	const nodes = numberNodes(root);
	const nodeCount = nodes.length;
	const dataBytes = data.bytes();
	const largest = nodeCount + 16 + dataBytes.length;
	const recordSize = largest < 2 ** 24 ? 24 : 32;
	const tree = Buffer.alloc((nodeCount * recordSize * 2) / 8);
	const index = new Map(nodes.map((node, position) => [node, position]));
	const valueOf = (child: Child) => {
		if (child === null) return nodeCount;
		if ('node' in child) return index.get(child.node)!;
		return nodeCount + 16 + child.data;
	};
	nodes.forEach((node, position) => {
		const [left, right] = node.children.map(valueOf);
		if (recordSize === 24) {
			tree.writeUIntBE(left, position * 6, 3);
			tree.writeUIntBE(right, position * 6 + 3, 3);
		} else {
			tree.writeUInt32BE(left, position * 8);
			tree.writeUInt32BE(right, position * 8 + 4);
		}
	});

	const meta = encodeMap([
		['binary_format_major_version', uint(5, 2)],
		['binary_format_minor_version', uint(5, 0)],
		['build_epoch', uint(9, metadata.buildEpoch)],
		['database_type', encodeString(metadata.databaseType)],
		['description', encodeMap([['en', encodeString(metadata.description)]])],
		['ip_version', uint(5, 6)],
		['languages', Buffer.concat([control(11, 1), encodeString('en')])],
		['node_count', uint(6, nodeCount)],
		['record_size', uint(5, recordSize)],
	]);
	return Buffer.concat([tree, Buffer.alloc(16), dataBytes, METADATA_MARKER, meta]);
}

function insert(root: TreeNode, bytes: Uint8Array, bits: number, leaf: Child) {
	let node = root;
	for (let depth = 0; depth < bits - 1; depth++) {
		const bit = bitAt(bytes, depth);
		const child = node.children[bit];
		if (child !== null && 'node' in child) {
			node = child.node;
			continue;
		}
		// An empty branch, or a wider network's leaf that this one splits (both halves keep it).
		const next: TreeNode = { children: [child, child] };
		node.children[bit] = { node: next };
		node = next;
	}
	node.children[bitAt(bytes, bits - 1)] = leaf;
}

/**
 * The IPv6 ranges that embed an IPv4 address, pointed at the IPv4 tree (::/96), as MaxMind's
 * writers do (MaxMind::DB::Writer's alias_ipv6_to_ipv4, mmdbwriter's IPv4 aliases):
 * ::ffff:0:0/96 (IPv4-mapped: the address's last 32 bits are walked), 2002::/16 (6to4: bits
 * 16-47) and 2001::/32 (Teredo: bits 32-63, the Teredo server's address). A reader then reports
 * the IPv6 network, e.g. 2002:808:800::/40 for 8.8.8.0/24. The alias replaces whatever the build
 * has in those ranges.
 */
export const IPV4_ALIASES = ['::ffff:0:0/96', '2002::/16', '2001::/32'];

function aliasIpv4(root: TreeNode) {
	let ipv4: Child = { node: root };
	for (let depth = 0; depth < 96 && ipv4 !== null && 'node' in ipv4; depth++)
		ipv4 = ipv4.node.children[0];
	if (ipv4 === null) return;
	for (const alias of IPV4_ALIASES) {
		const block = parseCidr(alias);
		insert(root, block.bytes, block.bits, ipv4);
	}
}

/** Nodes in breadth-first order: the root is node 0. */
function numberNodes(root: TreeNode): TreeNode[] {
	const order: TreeNode[] = [root];
	// The IPv4 tree is reached from ::/96 and from the aliases: numbered once.
	const seen = new Set<TreeNode>(order);
	for (let position = 0; position < order.length; position++) {
		for (const child of order[position].children) {
			if (child === null || !('node' in child) || seen.has(child.node)) continue;
			seen.add(child.node);
			order.push(child.node);
		}
	}
	return order;
}

/** The data section, each distinct record stored once. */
class DataSection {
	private readonly chunks: Buffer[] = [];

	private readonly offsets = new Map<string, number>();

	private size = 0;

	add(record: Record<string, string>): number {
		const entries = Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
		const key = JSON.stringify(entries);
		const known = this.offsets.get(key);
		if (known !== undefined) return known;
		const encoded = encodeMap(entries.map(([name, value]) => [name, encodeString(value)]));
		const offset = this.size;
		this.chunks.push(encoded);
		this.size += encoded.length;
		this.offsets.set(key, offset);
		return offset;
	}

	bytes(): Buffer {
		return Buffer.concat(this.chunks);
	}
}

/** A control byte (with the extended type byte for types above 7) and the payload size. */
function control(type: number, size: number): Buffer {
	const head: number[] = [];
	let sizeBits: number;
	let extra: number[] = [];
	if (size < 29) sizeBits = size;
	else if (size < 29 + 256) {
		sizeBits = 29;
		extra = [size - 29];
	} else if (size < 285 + 65536) {
		sizeBits = 30;
		extra = [(size - 285) >> 8, (size - 285) & 0xff];
	} else {
		sizeBits = 31;
		const rest = size - 65821;
		extra = [(rest >> 16) & 0xff, (rest >> 8) & 0xff, rest & 0xff];
	}
	if (type <= 7) head.push((type << 5) | sizeBits);
	else head.push(sizeBits, type - 7);
	return Buffer.from([...head, ...extra]);
}

function encodeString(text: string): Buffer {
	const bytes = Buffer.from(text, 'utf8');
	return Buffer.concat([control(2, bytes.length), bytes]);
}

/** An unsigned integer of type 5 (uint16), 6 (uint32) or 9 (uint64), in as few bytes as it needs. */
function uint(type: 5 | 6 | 9, value: number): Buffer {
	const bytes: number[] = [];
	let rest = BigInt(value);
	while (rest > 0n) {
		bytes.unshift(Number(rest & 0xffn));
		rest >>= 8n;
	}
	return Buffer.concat([control(type, bytes.length), Buffer.from(bytes)]);
}

function encodeMap(entries: Array<[string, Buffer]>): Buffer {
	return Buffer.concat([
		control(7, entries.length),
		...entries.flatMap(([key, value]) => [encodeString(key), value]),
	]);
}
