/**
 * The built CSV index: a lookup is one binary search over disjoint segments (networkSegments.ts),
 * and the network it reports is the largest block around the address that its record answers
 * for, IPv6 forms of IPv4 addresses included: what an MMDB of the same build reports.
 */

import { formatNetwork } from '../values/ipAddress';

import { ALL_128, ALL_64, bytesOf, hostMask, v4Number, v6BigInt } from './addressNumbers';
import type { RecordTable } from './csvRecordTable';
import type { DatabaseKind, StoredRecord } from './databaseKinds';
import type { ContractDatabase, Match } from './lookupTypes';
import type { Segments } from './networkSegments';
import { V4_HOSTS } from './sweepV4';

/** The built index: lookups by binary search over the disjoint segments. */
export class CsvIndex implements ContractDatabase {
	readonly format = 'csv' as const;

	/** A CSV has no metadata: its type is the kind its header names. */
	get databaseType(): string {
		return this.kind;
	}

	readonly retainedBytes: number;

	constructor(
		readonly kind: DatabaseKind,
		private readonly records: RecordTable,
		private readonly v4: Segments,
		private readonly v6: Segments,
		readonly rows: number,
	) {
		const arrays = this.arrays();
		this.retainedBytes =
			arrays.reduce((sum, array) => sum + array.byteLength, 0) + records.retainedBytes;
	}

	/** Bytes the per-row typed arrays keep (records not counted), per row of the file. */
	get indexBytesPerRow(): number {
		const arrays = this.arrays();
		return arrays.reduce((sum, array) => sum + array.byteLength, 0) / this.rows;
	}

	private arrays(): Array<{ byteLength: number }> {
		return [this.v4, this.v6].flatMap((segments) => [
			segments.starts,
			segments.ends ?? new Uint8Array(0),
			segments.prefixes,
			segments.recordIds,
		]);
	}

	get recordCount(): number {
		return this.records.count;
	}

	lookup(address: Uint8Array): Match | undefined {
		if (address.length === 4) {
			const match = this.lookupV4(address);
			return match && { record: match.record, network: formatNetwork(match.start, match.prefix) };
		}
		// IPv6 forms of an IPv4 address answer as the MMDB of the same build does: see ipv4Within.
		const at = ipv4Within(address);
		if (at >= 0) {
			const match = this.lookupV4(address.subarray(at, at + 4));
			return (
				match && { record: match.record, network: formatNetwork(address, at * 8 + match.prefix) }
			);
		}
		return this.lookupV6(address);
	}

	private lookupV4(
		bytes: Uint8Array,
	): { record: StoredRecord; start: Uint8Array; prefix: number } | undefined {
		const value = v4Number(bytes);
		const { starts, ends, prefixes, recordIds, count } = this.v4 as Segments & {
			starts: Uint32Array;
			ends?: Uint32Array;
		};
		let low = 0;
		let high = count - 1;
		let found = -1;
		while (low <= high) {
			const middle = (low + high) >>> 1;
			if (starts[middle] <= value) {
				found = middle;
				low = middle + 1;
			} else high = middle - 1;
		}
		if (found < 0) return undefined;
		const end = ends ? ends[found] : starts[found] + V4_HOSTS[prefixes[found]];
		if (end < value) return undefined;
		const prefix = ends
			? widestBlock(BigInt(value), BigInt(starts[found]), BigInt(end), prefixes[found], 32)
			: prefixes[found];
		const start = prefix === 0 ? 0 : (value & (0xffffffff << (32 - prefix))) >>> 0;
		return { record: this.records.get(recordIds[found]), start: bytesOf(BigInt(start), 4), prefix };
	}

	private lookupV6(bytes: Uint8Array): Match | undefined {
		const value = v6BigInt(bytes);
		const high64 = value >> 64n;
		const low64 = value & ALL_64;
		const { starts, ends, prefixes, recordIds, count } = this.v6 as Segments & {
			starts: BigUint64Array;
			ends?: BigUint64Array;
		};
		const atOrBefore = (index: number) =>
			starts[index * 2] < high64 ||
			(starts[index * 2] === high64 && starts[index * 2 + 1] <= low64);
		let low = 0;
		let high = count - 1;
		let found = -1;
		while (low <= high) {
			const middle = (low + high) >>> 1;
			if (atOrBefore(middle)) {
				found = middle;
				low = middle + 1;
			} else high = middle - 1;
		}
		if (found < 0) return undefined;
		const start = (starts[found * 2] << 64n) | starts[found * 2 + 1];
		const end = ends
			? (ends[found * 2] << 64n) | ends[found * 2 + 1]
			: start | hostMask(prefixes[found], 128);
		if (end < value) return undefined;
		const prefix = ends ? widestBlock(value, start, end, prefixes[found], 128) : prefixes[found];
		const blockStart = value & (ALL_128 ^ hostMask(prefix, 128));
		return {
			record: this.records.get(recordIds[found]),
			network: formatNetwork(bytesOf(blockStart, 16), prefix),
		};
	}
}

/** The largest aligned block holding `value` inside [start, end], at least as long as the row's prefix. */
function widestBlock(
	value: bigint,
	start: bigint,
	end: bigint,
	rowPrefix: number,
	width: 32 | 128,
): number {
	for (let prefix = rowPrefix; prefix < width; prefix++) {
		const host = hostMask(prefix, width);
		const blockStart = value & ~host;
		if (blockStart >= start && (blockStart | host) <= end) return prefix;
	}
	return width;
}

/**
 * Where an IPv6 address holds an IPv4 one that the MMDB of the same build answers it by, or -1.
 * An MMDB tree keeps IPv4 at ::/96 and, as MaxMind's writers do, points ::ffff:0:0/96
 * (IPv4-mapped), 2002::/16 (6to4) and 2001::/32 (Teredo) at that IPv4 tree: its walk goes on
 * with the 32 bits after the alias's prefix (for Teredo the server's address, bits 32-63), and
 * it reports the IPv6 network, the alias's prefix plus the IPv4 one (2002:808:800::/40 for
 * 8.8.8.0/24). What the CSV lists inside those ranges the MMDB never reaches, so neither does this.
 */
function ipv4Within(address: Uint8Array): number {
	if (address[0] === 0x20 && address[1] === 0x02) return 2;
	if (address[0] === 0x20 && address[1] === 0x01 && address[2] === 0 && address[3] === 0) return 4;
	for (let index = 0; index < 10; index++) if (address[index] !== 0) return -1;
	if (address[10] === 0 && address[11] === 0) return 12;
	if (address[10] === 0xff && address[11] === 0xff) return 12;
	return -1;
}
