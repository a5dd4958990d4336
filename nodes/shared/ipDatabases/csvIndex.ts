import { formatNetwork, parseIpAddress } from '../values/ipAddress';
import { CsvError, CsvScanner, csvField, csvFields, parseCsv, type CsvRecord } from '../csv/csv';

import {
	CSV_COLUMNS,
	kindOfCsvHeader,
	recordFromCsv,
	type DatabaseKind,
	type StoredRecord,
} from './databaseKinds';
import { ByteKeys } from './byteKeys';
import { maskedIpv6Halves, plainIpv4Network } from './csvNetwork';
import { int32s, uint32s, uint64s, uint8s, type Growable } from './growable';
import { sweepV4, V4_HOSTS } from './sweepV4';
import { DatabaseFileError, type ContractDatabase, type Match } from './lookupTypes';

/**
 * A lookup index over a database CSV (one header row, one row per network), built while the file streams through:
 * the file's text is never held (the geolocation CSV is ~850 MB, more than a V8 string can
 * hold). Each row leaves a few bytes in typed arrays (its range and a record id); records are
 * kept once each, deduplicated, as the bytes the file wrote them in, and given in the MMDB's form
 * when a lookup finds one (RecordTable; databaseKinds.ts). Rows in order and none nested (a
 * geolocation CSV) are their own segments: nothing is flattened or copied.
 *
 * Overlapping networks: asn keeps the longest prefix, security the most specific row, geolocation is
 * disjoint. All three are "the most specific network that covers the address", so the index
 * flattens nested networks into disjoint segments, each answered by its innermost row, and a
 * lookup is one binary search. The network it reports is the largest block around the address
 * that its record answers for: what an MMDB search tree of the same build reports.
 *
 * Speed: rows are read as byte ranges (CsvScanner), not strings. The network is parsed from its
 * bytes; a row's values become strings only the first time they are seen (checked as UTF-8, then
 * let go); the dedup key is the row's bytes after the network, as written, looked up as bytes.
 *
 * IPv6 forms of IPv4 addresses (::ffff:0:0/96, ::/96, 6to4, Teredo) answer from the IPv4 rows,
 * with the IPv6 network around the address, as the MMDB of the same build does (ipv4Within).
 */
export class CsvIndexBuilder {
	private readonly parser: CsvScanner;

	private columns: readonly string[] = [];

	private kind: DatabaseKind | undefined;

	/** record ids by the row's text after the network as written (rows read whole from a chunk) */
	private readonly writtenIds = new ByteKeys();

	/** record ids by the row's values as JSON (rows that needed unescaping or spanned chunks) */
	private readonly valueIds = new Map<string, number>();

	/**
	 * Per record id: the ByteKeys entry whose bytes (the row after its network, as written) are
	 * the record, decoded again when a lookup finds it; or -1 for a record kept as an object
	 * (`materialized`: rows that needed unescaping across chunks, or a quoted network).
	 */
	private readonly rawEntries = int32s();

	private readonly materialized = new Map<number, StoredRecord>();

	private recordCount = 0;

	private readonly v4 = { starts: uint32s(), prefixes: uint8s(), recordIds: uint32s() };

	private readonly v6 = { starts: uint64s(), prefixes: uint8s(), recordIds: uint32s() };

	rows = 0;

	/** Bytes pushed so far, and whether the last of them ended a line (a whole last row). */
	private bytesIn = 0;

	private endsWithLineEnd = false;

	/** Set while the scanner hands over the rows it held to the end (the last row, if it has no line end). */
	private ending = false;

	private reserved = false;

	/**
	 * @param expectedBytes the file's size when known (n8n's binary metadata): after the first
	 * chunk, the row arrays are reserved for the rows that size holds, so they never double.
	 */
	constructor(private readonly expectedBytes?: number) {
		this.parser = new CsvScanner((record) => this.addRow(record));
	}

	push(chunk: Uint8Array): void {
		if (chunk.length === 0) return;
		try {
			this.parser.push(chunk);
		} catch (error) {
			throw asFileError(error);
		}
		this.bytesIn += chunk.length;
		const last = chunk[chunk.length - 1];
		this.endsWithLineEnd = last === 0x0a || last === 0x0d;
		if (!this.reserved && this.rows >= 1000) this.reserve();
	}

	/** Room for the rows the rest of the file holds, at the rate of the rows so far (2 % spare). */
	private reserve(): void {
		this.reserved = true;
		if (!this.expectedBytes || this.expectedBytes <= this.bytesIn) return;
		const scale = (this.expectedBytes / this.bytesIn) * 1.02;
		const v4Rows = this.v4.prefixes.length * scale + 1024;
		const v6Rows = this.v6.prefixes.length * scale + 1024;
		this.v4.starts.reserve(v4Rows);
		this.v4.prefixes.reserve(v4Rows);
		this.v4.recordIds.reserve(v4Rows);
		this.v6.starts.reserve(v6Rows * 2);
		this.v6.prefixes.reserve(v6Rows);
		this.v6.recordIds.reserve(v6Rows);
	}

	/** How a message about the last row ends when the file stops without a line end: the download may have been cut. */
	private cutShort(): string {
		if (!this.ending || this.endsWithLineEnd) return '';
		return `. The file ends early: ${this.bytesIn.toLocaleString('en-US')} bytes, its last row without a line end: was the download cut short?`;
	}

	/** The finished index; an empty or header-only file is an error, not an empty answer. */
	end(): CsvIndex {
		this.ending = true;
		try {
			this.parser.end();
		} catch (error) {
			throw asFileError(error, this.endsWithLineEnd ? undefined : this.bytesIn);
		}
		if (this.kind === undefined)
			throw new DatabaseFileError(
				'The CSV file is empty: it has no header row (a database CSV has one header row, then one row per network)',
			);
		if (this.rows === 0)
			throw new DatabaseFileError(`The ${this.kind} CSV has a header but no network rows`);
		const v4 = flattenV4(this.v4.starts, this.v4.prefixes, this.v4.recordIds);
		const v6 = flattenV6(this.v6.starts, this.v6.prefixes, this.v6.recordIds);
		const records = new RecordTable(
			this.kind,
			this.columns,
			this.rawEntries.trimmed(),
			this.writtenIds.keys(),
			this.materialized,
		);
		return new CsvIndex(this.kind, records, v4, v6, this.rows);
	}

	private addRow(row: CsvRecord): void {
		if (this.kind === undefined) {
			const header = csvFields(row).map((field, index) =>
				index === 0 ? field.replace(/^\uFEFF/, '') : field,
			);
			const { kind, problem } = kindOfCsvHeader(header);
			if (!kind)
				throw new DatabaseFileError(
					`The CSV file's header (line ${row.line}) is not one of an IP database: ${problem}`,
				);
			this.kind = kind;
			this.columns = header.map((column) => column.trim());
			return;
		}
		const { bytes, count, starts, ends } = row;
		if (count === 1 && starts[0] === ends[0]) return; // a blank line (a trailing line end)
		if (count !== this.columns.length) {
			if (this.cutShort() !== '' && count < this.columns.length) {
				throw new DatabaseFileError(
					`The ${this.kind} CSV file ends early: ${this.bytesIn.toLocaleString('en-US')} bytes, and its last row (line ${row.line.toLocaleString('en-US')}) has ${count} of the header's ${this.columns.length} fields: was the download cut short?`,
				);
			}
			throw new DatabaseFileError(
				`The ${this.kind} CSV's line ${row.line} has ${count} fields, the header has ${this.columns.length}${this.cutShort()}`,
			);
		}
		const plain = plainIpv4Network(bytes, starts[0], ends[0]);
		if (plain >= 0) {
			const recordId = this.recordIdOf(row);
			this.v4.starts.push(Math.floor(plain / 64));
			this.v4.prefixes.push(plain % 64);
			this.v4.recordIds.push(recordId);
			this.rows++;
			return;
		}
		const text = csvField(row, 0);
		const network = parseCidr(text);
		if (!network) {
			throw new DatabaseFileError(
				`The ${this.kind} CSV's line ${row.line} has "${text.slice(0, 60)}" as its network, which is not a CIDR block${this.cutShort()}`,
			);
		}
		const recordId = this.recordIdOf(row);
		const table = network.bytes.length === 4 ? this.v4 : this.v6;
		if (network.bytes.length === 4) {
			this.v4.starts.push(maskedV4(network.bytes, network.prefix));
		} else {
			const [high, low] = maskedIpv6Halves(network.bytes, network.prefix);
			this.v6.starts.push(high);
			this.v6.starts.push(low);
		}
		table.prefixes.push(network.prefix);
		table.recordIds.push(recordId);
		this.rows++;
	}

	/**
	 * Rows with the same values share one record (a city's many networks, an AS's prefixes). A row
	 * read whole from its chunk is keyed by its text after the network as written (equal bytes,
	 * equal values: a CSV text has one reading), looked up from the chunk's bytes; any other row by
	 * its values as JSON, in a table of its own (the same values written both ways make two equal
	 * records, nothing worse).
	 */
	private recordIdOf(row: CsvRecord): number {
		if (row.rawStart >= 0) {
			const from = row.ends[0];
			let id = this.writtenIds.get(row.bytes, from, row.rawEnd);
			if (id < 0) {
				// Decoded once here all the same: a row that is not UTF-8 is an error now, not at a lookup.
				const record = recordFromCsv(this.kind!, this.columns, csvFields(row));
				id = this.recordCount++;
				const entry = this.writtenIds.set(row.bytes, from, row.rawEnd, id);
				// An unquoted network ends at the comma: the bytes from it read back as the same fields.
				if (row.bytes[from] === COMMA) this.rawEntries.push(entry);
				else {
					this.rawEntries.push(-1);
					this.materialized.set(id, record);
				}
			}
			return id;
		}
		const key = JSON.stringify(csvFields(row).slice(1));
		let id = this.valueIds.get(key);
		if (id === undefined) {
			id = this.recordCount++;
			this.rawEntries.push(-1);
			this.materialized.set(id, recordFromCsv(this.kind!, this.columns, csvFields(row)));
			this.valueIds.set(key, id);
		}
		return id;
	}
}

/** The scanner's error as a DatabaseFileError; at the end of a file cut without a line end (`cutAt` bytes), one that says so. */
const COMMA = 0x2c;
const ZERO = 0x30;

/**
 * The distinct records of a CSV, kept as the bytes the file wrote them in (a row's text after its
 * network) and decoded when a lookup finds one: a record costs its ~100 bytes of text, not the
 * ~600 of an object of 16 strings (a geolocation CSV of real data has a distinct record for
 * nearly every row, its coordinates and postal code). Rows that needed more than their bytes
 * (unescaping across chunks, a quoted network) are kept as objects.
 */
class RecordTable {
	constructor(
		private readonly kind: DatabaseKind,
		private readonly columns: readonly string[],
		private readonly rawEntries: Int32Array,
		private readonly keys: { pool: Uint8Array; starts: Int32Array; lengths: Int32Array },
		private readonly materialized: Map<number, StoredRecord>,
	) {}

	get count(): number {
		return this.rawEntries.length;
	}

	get(id: number): StoredRecord {
		const entry = this.rawEntries[id];
		if (entry < 0) return this.materialized.get(id)!;
		const { pool, starts, lengths } = this.keys;
		// "0" for the network, then the row's own bytes from the comma after it: one CSV record.
		const line = Buffer.allocUnsafe(lengths[entry] + 1);
		line[0] = ZERO;
		line.set(pool.subarray(starts[entry], starts[entry] + lengths[entry]), 1);
		return recordFromCsv(this.kind, this.columns, parseCsv(line)[0].fields);
	}

	/** The bytes kept: the rows' text and the arrays, and a rough size of the objects (UTF-16 strings and their maps). */
	get retainedBytes(): number {
		let bytes =
			this.keys.pool.byteLength +
			this.keys.starts.byteLength +
			this.keys.lengths.byteLength +
			this.rawEntries.byteLength;
		for (const record of this.materialized.values()) {
			bytes += 64;
			for (const key in record) bytes += 16 + record[key].length * 2;
		}
		return bytes;
	}
}

function asFileError(error: unknown, cutAt?: number): Error {
	if (error instanceof DatabaseFileError) return error;
	if (error instanceof CsvError && cutAt !== undefined) {
		return new DatabaseFileError(
			`The CSV file ends early: ${cutAt.toLocaleString('en-US')} bytes, inside a quoted field (${error.message}): was the download cut short?`,
		);
	}
	if (error instanceof CsvError)
		return new DatabaseFileError(`The CSV file is not valid RFC 4180 CSV: ${error.message}`);
	return error as Error;
}

/** "8.8.8.0/24" or "2001:db8::/32": the address bytes and the prefix; host bits are cleared later. */
export function parseCidr(text: string): { bytes: Uint8Array; prefix: number } | undefined {
	const slash = text.indexOf('/');
	if (slash < 0) return undefined;
	const bytes = parseIpAddress(text.slice(0, slash).trim());
	const prefixText = text.slice(slash + 1).trim();
	if (!bytes || !/^\d{1,3}$/.test(prefixText)) return undefined;
	const prefix = Number(prefixText);
	if (prefix > bytes.length * 8) return undefined;
	return { bytes, prefix };
}

const v4Number = (bytes: Uint8Array) =>
	((bytes[0] << 24) | (bytes[1] << 16) | (bytes[2] << 8) | bytes[3]) >>> 0;

function maskedV4(bytes: Uint8Array, prefix: number): number {
	return prefix === 0 ? 0 : (v4Number(bytes) & (0xffffffff << (32 - prefix))) >>> 0;
}

function v6BigInt(bytes: Uint8Array): bigint {
	let value = 0n;
	for (const byte of bytes) value = (value << 8n) | BigInt(byte);
	return value;
}

const ALL_128 = (1n << 128n) - 1n;
const ALL_64 = (1n << 64n) - 1n;
/** The host bits of a block of each prefix, for 32- and 128-bit addresses (tables: the IPv6 sweep asks once per step). */
const hostMasks = (width: number) =>
	Array.from({ length: width + 1 }, (_, prefix) => (1n << BigInt(width - prefix)) - 1n);
const HOST_32 = hostMasks(32);
const HOST_128 = hostMasks(128);
const hostMask = (prefix: number, width: 32 | 128) => (width === 128 ? HOST_128 : HOST_32)[prefix];

/**
 * Disjoint segments, sorted, each answered by one row: its first and last address, the row's
 * prefix and record. IPv4 as numbers; IPv6 as two 64-bit halves each.
 */
interface Segments {
	/** IPv4: one uint32 per segment; IPv6: high and low 64-bit halves per segment. */
	starts: Uint32Array | BigUint64Array;
	/** Absent when each segment is its row's whole network (IPv4 rows in order, none nested): its end follows from the prefix. */
	ends?: Uint32Array | BigUint64Array;
	prefixes: Uint8Array;
	recordIds: Uint32Array;
	count: number;
}

/**
 * Rows sorted by start (wider first on a tie), then swept with a stack of open networks: CIDR
 * blocks nest or are disjoint, so the innermost open row answers until it closes. A network
 * listed twice keeps its last row. IPv6 works on BigInts here; IPv4 has its own copy on plain
 * numbers (sweepV4.ts: no BigInt and no closure per row, the geolocation CSV has millions).
 */
interface Space<T extends number | bigint> {
	rows: number;
	startOf(row: number): T;
	endOf(row: number): T;
	/** value + 1 and value - 1 */
	step(value: T, by: 1 | -1): T;
	zero: T;
}

function sweep<T extends number | bigint>(
	space: Space<T>,
	prefixes: Uint8Array,
	emit: (from: T, to: T, row: number) => void,
): void {
	const { rows, startOf, endOf } = space;
	let order = Array.from({ length: rows }, (_, row) => row);
	const compare = (a: number, b: number) => {
		const startA = startOf(a);
		const startB = startOf(b);
		return startA < startB ? -1 : startA > startB ? 1 : prefixes[a] - prefixes[b] || a - b;
	};
	let sorted = true;
	for (let index = 1; index < rows && sorted; index++)
		sorted = compare(order[index - 1], order[index]) < 0;
	if (!sorted) order = order.sort(compare);

	const put = (from: T, to: T, row: number) => {
		if (from <= to) emit(from, to, row);
	};
	const stack: number[] = [];
	let cursor = space.zero;
	for (const row of order) {
		const start = startOf(row);
		while (stack.length > 0 && endOf(stack[stack.length - 1]) < start) {
			const closing = stack.pop()!;
			put(cursor, endOf(closing), closing);
			cursor = space.step(endOf(closing), 1);
		}
		const top = stack[stack.length - 1];
		if (top !== undefined) {
			put(cursor, space.step(start, -1), top);
			if (startOf(top) === start && prefixes[top] === prefixes[row]) stack.pop();
		}
		cursor = start;
		stack.push(row);
	}
	while (stack.length > 0) {
		const closing = stack.pop()!;
		put(cursor, endOf(closing), closing);
		cursor = space.step(endOf(closing), 1);
	}
}

function flattenV4(
	startsIn: Growable<Uint32Array>,
	prefixesIn: Growable<Uint8Array>,
	recordIdsIn: Growable<Uint32Array>,
): Segments {
	const starts = startsIn.trimmed();
	const prefixes = prefixesIn.trimmed();
	const recordIds = recordIdsIn.trimmed();
	// Rows in order and none inside another (a geolocation CSV): the rows are the segments, kept as they are.
	if (sortedAndDisjoint(starts, prefixes))
		return { starts, prefixes, recordIds, count: prefixes.length };
	const out = { starts: uint32s(), ends: uint32s(), prefixes: uint8s(), recordIds: uint32s() };
	sweepV4(starts, prefixes, (from, to, row) => {
		out.starts.push(from);
		out.ends.push(to);
		out.prefixes.push(prefixes[row]);
		out.recordIds.push(recordIds[row]);
	});
	return trimmedSegments(out);
}

/** The swept segments as the index keeps them: each array at its length. */
function trimmedSegments<Start extends Uint32Array | BigUint64Array>(out: {
	starts: Growable<Start>;
	ends: Growable<Start>;
	prefixes: Growable<Uint8Array>;
	recordIds: Growable<Uint32Array>;
}): Segments {
	return {
		starts: out.starts.trimmed(),
		ends: out.ends.trimmed(),
		prefixes: out.prefixes.trimmed(),
		recordIds: out.recordIds.trimmed(),
		count: out.prefixes.length,
	};
}

/** Whether each row starts after the one before it ends: then no sweep is needed. */
function sortedAndDisjoint(starts: Uint32Array, prefixes: Uint8Array): boolean {
	for (let row = 1; row < prefixes.length; row++) {
		if (starts[row] <= starts[row - 1] + V4_HOSTS[prefixes[row - 1]]) return false;
	}
	return true;
}

/** sortedAndDisjoint for IPv6 rows (as 64-bit halves): each row starts after the one before it ends. */
function sortedAndDisjointV6(halves: BigUint64Array, prefixes: Uint8Array): boolean {
	let end = -1n;
	for (let row = 0; row < prefixes.length; row++) {
		const start = (halves[row * 2] << 64n) | halves[row * 2 + 1];
		if (start <= end) return false;
		end = start | hostMask(prefixes[row], 128);
	}
	return true;
}

function flattenV6(
	startsIn: Growable<BigUint64Array>,
	prefixesIn: Growable<Uint8Array>,
	recordIdsIn: Growable<Uint32Array>,
): Segments {
	const halves = startsIn.trimmed();
	const prefixes = prefixesIn.trimmed();
	const recordIds = recordIdsIn.trimmed();
	if (sortedAndDisjointV6(halves, prefixes))
		return { starts: halves, prefixes, recordIds, count: prefixes.length };
	const starts = Array.from(
		{ length: prefixes.length },
		(_, row) => (halves[row * 2] << 64n) | halves[row * 2 + 1],
	);
	const out = { starts: uint64s(), ends: uint64s(), prefixes: uint8s(), recordIds: uint32s() };
	sweep<bigint>(
		{
			rows: prefixes.length,
			startOf: (row) => starts[row],
			endOf: (row) => starts[row] | hostMask(prefixes[row], 128),
			step: (value, by) => value + BigInt(by),
			zero: 0n,
		},
		prefixes,
		(from, to, row) => {
			out.starts.push(from >> 64n);
			out.starts.push(from & ALL_64);
			out.ends.push(to >> 64n);
			out.ends.push(to & ALL_64);
			out.prefixes.push(prefixes[row]);
			out.recordIds.push(recordIds[row]);
		},
	);
	return trimmedSegments(out);
}

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

function bytesOf(value: bigint, length: number): Uint8Array {
	const bytes = new Uint8Array(length);
	let rest = value;
	for (let index = length - 1; index >= 0; index--) {
		bytes[index] = Number(rest & 0xffn);
		rest >>= 8n;
	}
	return bytes;
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

/** The columns of a kind, for messages and tests. */
export const columnsOf = (kind: DatabaseKind) => CSV_COLUMNS[kind];
