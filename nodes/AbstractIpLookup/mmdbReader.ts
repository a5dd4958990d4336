/**
 * STAND-IN until branch i8-mmdb's mmdbReader.ts is cherry-picked (same interface): enough of
 * MaxMind DB 2.0 for the sandbox's builds.
 */
import { formatNetwork } from '../shared/ipAddress';

export class MmdbError extends Error {}

const MARKER = Uint8Array.from([0xab, 0xcd, 0xef, ...Array.from('MaxMind.com', (c) => c.charCodeAt(0))]);

export class MmdbReader {
	readonly metadata: Record<string, unknown>;

	private readonly view: DataView;

	private readonly nodeCount: number;

	private readonly recordSize: number;

	private readonly dataStart: number;

	constructor(private readonly file: Uint8Array) {
		this.view = new DataView(file.buffer, file.byteOffset, file.byteLength);
		let at = -1;
		outer: for (let index = file.length - MARKER.length; index >= 0; index--) {
			for (let k = 0; k < MARKER.length; k++) if (file[index + k] !== MARKER[k]) continue outer;
			at = index;
			break;
		}
		if (at < 0) throw new MmdbError('no metadata marker');
		this.metadata = this.decode(at + MARKER.length, at + MARKER.length, 0).value as Record<string, unknown>;
		this.nodeCount = Number(this.metadata.node_count);
		this.recordSize = Number(this.metadata.record_size);
		this.dataStart = (this.nodeCount * this.recordSize * 2) / 8 + 16;
	}

	lookup(addr: Uint8Array): { network: string; prefixLength: number; record: unknown } | undefined {
		const bytes = new Uint8Array(16);
		bytes.set(addr, 16 - addr.length);
		const start = addr.length === 4 ? 96 : 0;
		let node = 0;
		let depth = 0;
		for (; depth < 128 && node < this.nodeCount; depth++) {
			const bit = (bytes[depth >> 3] >> (7 - (depth & 7))) & 1;
			node = this.child(node, bit);
		}
		if (node === this.nodeCount) return undefined;
		if (node < this.nodeCount) throw new MmdbError('tree deeper than 128 bits');
		const prefixLength = depth - start;
		const masked = Uint8Array.from(addr);
		for (let bit = prefixLength; bit < addr.length * 8; bit++) masked[bit >> 3] &= ~(1 << (7 - (bit & 7)));
		const record = this.decode(this.dataStart + node - this.nodeCount - 16, this.dataStart, 0).value;
		return { network: formatNetwork(masked, prefixLength), prefixLength, record };
	}

	private child(node: number, side: number): number {
		const size = this.recordSize;
		const at = (node * size * 2) / 8;
		const u24 = (offset: number) => (this.file[offset] << 16) | (this.file[offset + 1] << 8) | this.file[offset + 2];
		if (size === 24) return u24(at + side * 3);
		if (size === 32) return this.view.getUint32(at + side * 4);
		const middle = this.file[at + 3];
		return side === 0 ? ((middle & 0xf0) << 20) | u24(at) : ((middle & 0x0f) << 24) | u24(at + 4);
	}

	private decode(at: number, base: number, depth: number): { value: unknown; next: number } {
		if (depth > 64) throw new MmdbError('nesting too deep');
		const file = this.file;
		const head = file[at++];
		let type = head >> 5;
		if (type === 1) {
			const sizeBits = (head >> 3) & 3;
			const low = head & 7;
			let pointer: number;
			if (sizeBits === 0) pointer = (low << 8) | file[at++];
			else if (sizeBits === 1) (pointer = ((low << 16) | (file[at] << 8) | file[at + 1]) + 2048), (at += 2);
			else if (sizeBits === 2) (pointer = ((low << 24) | (file[at] << 16) | (file[at + 1] << 8) | file[at + 2]) + 526336), (at += 3);
			else (pointer = this.view.getUint32(at)), (at += 4);
			return { value: this.decode(base + pointer, base, depth + 1).value, next: at };
		}
		if (type === 0) type = 7 + file[at++];
		let size = head & 31;
		if (size === 29) size = 29 + file[at++];
		else if (size === 30) (size = 285 + ((file[at] << 8) | file[at + 1])), (at += 2);
		else if (size === 31) (size = 65821 + ((file[at] << 16) | (file[at + 1] << 8) | file[at + 2])), (at += 3);
		if (type === 2) return { value: new TextDecoder().decode(file.subarray(at, at + size)), next: at + size };
		if (type === 5 || type === 6 || type === 9 || type === 10) {
			let value = 0;
			for (let index = 0; index < size; index++) value = value * 256 + file[at + index];
			return { value, next: at + size };
		}
		if (type === 7) {
			const map: Record<string, unknown> = {};
			let next = at;
			for (let index = 0; index < size; index++) {
				const key = this.decode(next, base, depth + 1);
				const value = this.decode(key.next, base, depth + 1);
				map[String(key.value)] = value.value;
				next = value.next;
			}
			return { value: map, next };
		}
		if (type === 11) {
			const list: unknown[] = [];
			let next = at;
			for (let index = 0; index < size; index++) {
				const element = this.decode(next, base, depth + 1);
				list.push(element.value);
				next = element.next;
			}
			return { value: list, next };
		}
		if (type === 14) return { value: size !== 0, next: at };
		throw new MmdbError(`type ${type} not read by the stand-in`);
	}
}
