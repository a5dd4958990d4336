/**
 * A lookup index built while a database CSV streams through: the file's text is never held (the
 * geolocation CSV is ~850 MB, more than a V8 string can hold). Each row is read as byte ranges
 * and leaves a few bytes in typed arrays, its network and a record id; equal records are kept
 * once, as the bytes the file wrote them in (csvRecordTable.ts). Rows become strings only the
 * first time their values are seen.
 */

import { parseIpAddress } from '../values/ipAddress';
import {
	CsvBoundError,
	CsvError,
	CsvScanner,
	csvField,
	csvFields,
	SepLineError,
	type CsvRecord,
} from '../csv/csv';
import { Byte } from '../csv/csvBytes';

import { v4Number } from './addressNumbers';
import { CsvIndex } from './csvIndex';
import { RecordTable } from './csvRecordTable';
import { maskedIpv6Halves, plainIpv4Network } from './csvNetwork';
import {
	kindOfCsvHeader,
	recordFromCsv,
	type DatabaseKind,
	type StoredRecord,
} from './databaseKinds';
import { ByteKeys } from './byteKeys';
import { int32s, uint32s, uint64s, uint8s } from './growable';
import { DatabaseFileError } from './lookupTypes';
import { flattenV4, flattenV6 } from './networkSegments';

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
		this.endsWithLineEnd = last === Byte.Lf || last === Byte.Cr;
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
				if (row.bytes[from] === Byte.Comma) this.rawEntries.push(entry);
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
function asFileError(error: unknown, cutAt?: number): Error {
	if (error instanceof DatabaseFileError) return error;
	// Before any index is built from it: a row past the scanner's bounds (a line of commas ...).
	if (error instanceof CsvBoundError)
		return new DatabaseFileError(`The CSV file cannot be used: its ${error.message}`);
	// A database CSV is a comma file: a first line sep= naming another delimiter is not one.
	if (error instanceof SepLineError)
		return new DatabaseFileError(`The CSV file cannot be used: ${error.message}`);
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

function maskedV4(bytes: Uint8Array, prefix: number): number {
	return prefix === 0 ? 0 : (v4Number(bytes) & (0xffffffff << (32 - prefix))) >>> 0;
}
