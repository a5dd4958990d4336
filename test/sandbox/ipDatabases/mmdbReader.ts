import { bitAt, ipBytes } from './network';
import { METADATA_MARKER } from './mmdbWriter';

/**
 * A minimal MMDB reader for the tests: finds the metadata, walks the search tree for an address
 * and decodes the record, the way any MaxMind DB reader does (pointers, maps, strings, integers,
 * arrays, booleans). It proves a downloaded file is a working database, not just bytes.
 */
export interface MmdbFile {
	metadata: Record<string, unknown>;
	lookup(address: string): Record<string, unknown> | undefined;
}

export function openMmdb(file: Buffer): MmdbFile {
	const markerAt = file.lastIndexOf(METADATA_MARKER);
	if (markerAt < 0) throw new Error('No MaxMind metadata marker');
	const metadata = decode(
		file,
		markerAt + METADATA_MARKER.length,
		markerAt + METADATA_MARKER.length,
	).value as Record<string, unknown>;
	const nodeCount = Number(metadata.node_count);
	const recordSize = Number(metadata.record_size);
	const nodeBytes = (recordSize * 2) / 8;
	const dataStart = nodeCount * nodeBytes + 16;
	const record = (node: number, side: number) => {
		const at = node * nodeBytes;
		if (recordSize === 24) return file.readUIntBE(at + side * 3, 3);
		if (recordSize === 32) return file.readUInt32BE(at + side * 4);
		// 28 bits: the middle byte's nibbles belong to the left (high) and right (low) records.
		const middle = file[at + 3];
		return side === 0
			? ((middle & 0xf0) << 20) | file.readUIntBE(at, 3)
			: ((middle & 0x0f) << 24) | file.readUIntBE(at + 4, 3);
	};
	return {
		metadata,
		lookup(address) {
			const bytes = ipBytes(address);
			let node = 0;
			for (let depth = 0; depth < 128 && node < nodeCount; depth++)
				node = record(node, bitAt(bytes, depth));
			if (node === nodeCount) return undefined;
			if (node < nodeCount) throw new Error('Tree deeper than 128 bits');
			const offset = node - nodeCount - 16;
			return decode(file, dataStart + offset, dataStart).value as Record<string, unknown>;
		},
	};
}

function decode(file: Buffer, at: number, base: number): { value: unknown; next: number } {
	const head = file[at++];
	let type = head >> 5;
	if (type === 1) {
		const sizeBits = (head >> 3) & 3;
		const low = head & 7;
		let pointer: number;
		if (sizeBits === 0) pointer = (low << 8) | file[at++];
		else if (sizeBits === 1) ((pointer = ((low << 16) | file.readUInt16BE(at)) + 2048), (at += 2));
		else if (sizeBits === 2)
			((pointer = ((low << 24) | file.readUIntBE(at, 3)) + 526336), (at += 3));
		else ((pointer = file.readUInt32BE(at)), (at += 4));
		return { value: decode(file, base + pointer, base).value, next: at };
	}
	if (type === 0) type = 7 + file[at++];
	let size = head & 31;
	if (size === 29) size = 29 + file[at++];
	else if (size === 30) ((size = 285 + file.readUInt16BE(at)), (at += 2));
	else if (size === 31) ((size = 65821 + file.readUIntBE(at, 3)), (at += 3));
	switch (type) {
		case 2:
			return { value: file.toString('utf8', at, at + size), next: at + size };
		case 3:
			return { value: file.readDoubleBE(at), next: at + 8 };
		case 4:
			return { value: file.subarray(at, at + size), next: at + size };
		case 5:
		case 6:
		case 9:
		case 10: {
			let value = 0n;
			for (let index = 0; index < size; index++) value = (value << 8n) | BigInt(file[at + index]);
			return { value: Number(value), next: at + size };
		}
		case 7: {
			const map: Record<string, unknown> = {};
			let next = at;
			for (let index = 0; index < size; index++) {
				const key = decode(file, next, base);
				const value = decode(file, key.next, base);
				map[String(key.value)] = value.value;
				next = value.next;
			}
			return { value: map, next };
		}
		case 11: {
			const list: unknown[] = [];
			let next = at;
			for (let index = 0; index < size; index++) {
				const element = decode(file, next, base);
				list.push(element.value);
				next = element.next;
			}
			return { value: list, next };
		}
		case 14:
			return { value: size !== 0, next: at };
		default:
			throw new Error(`MMDB type ${type} is not read by this test reader`);
	}
}
