/**
 * The package's one CSV parser (RFC 4180, byte-level and streaming): the service nodes' bulk
 * input and the IP lookup's CSV index (files of hundreds of MB) both run through it, so it never
 * builds a whole-file string. Beyond the RFC it takes what real exports write: `;` or tab as the
 * delimiter, a `sep=` line, a byte order mark, lone CRs, quotes inside unquoted fields. Invalid
 * UTF-8 and an unclosed quote are errors naming the line, never silently replaced. The scanning is
 * in csvScanner.ts (records as byte ranges); this file makes strings of them.
 */

import { SepLineError } from './csvFileStart';
import { CsvBoundError, CsvError, type CsvRecord } from './csvRecord';
import { CsvScanner, type CsvScannerOptions } from './csvScanner';
import { AmbiguousDelimiterError, delimiterName, type DelimiterSource } from './delimiter';

export {
	AmbiguousDelimiterError,
	CsvBoundError,
	CsvError,
	CsvScanner,
	delimiterName,
	SepLineError,
	type CsvRecord,
	type CsvScannerOptions,
	type DelimiterSource,
};

export interface CsvRow {
	fields: string[];
	/** 1-based record number */
	number: number;
	/** first physical line of the record (1-based; a CRLF is one line break) */
	line: number;
	/** byte offset of the record's start in the input (a skipped BOM counts) */
	offset: number;
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Buffer's own latin1 and UTF-8 slices, which `toString(encoding, from, to)` calls after checking
 * its arguments: skipping that dispatch counts when every record is decoded. Node has them on
 * every Buffer; `toString` is the fallback should a runtime not.
 */
type FastSlices = {
	utf8Slice?: (from: number, to: number) => string;
	latin1Slice?: (from: number, to: number) => string;
};
const prototype = Buffer.prototype as FastSlices;
const utf8Slice: (bytes: Buffer, from: number, to: number) => string =
	typeof prototype.utf8Slice === 'function'
		? (bytes, from, to) => (bytes as FastSlices as Required<FastSlices>).utf8Slice(from, to)
		: (bytes, from, to) => bytes.toString('utf8', from, to);
/** For bytes known to be ASCII (or a key where only byte equality matters): one byte, one char. */
export const latin1Slice: (bytes: Buffer, from: number, to: number) => string =
	typeof prototype.latin1Slice === 'function'
		? (bytes, from, to) => (bytes as FastSlices as Required<FastSlices>).latin1Slice(from, to)
		: (bytes, from, to) => bytes.toString('latin1', from, to);

/** bytes[from, to) as UTF-8 text; bytes that are not UTF-8 are a CsvError naming the record's line. */
function utf8(bytes: Buffer, from: number, to: number, line: number): string {
	const value = utf8Slice(bytes, from, to);
	// Invalid bytes come out as U+FFFD; a real U+FFFD in the file passes the strict check.
	if (value.includes('\ufffd') && !isUtf8(bytes.subarray(from, to))) throw notUtf8(line);
	return value;
}

const notUtf8 = (line: number) =>
	new CsvError(`Line ${line} is not valid UTF-8 text (save the file as UTF-8)`, line);

function isUtf8(bytes: Uint8Array): boolean {
	try {
		strictUtf8.decode(bytes);
		return true;
	} catch {
		return false;
	}
}

/** Field `index` of a record as text (checked UTF-8). */
export function csvField(record: CsvRecord, index: number): string {
	return utf8(record.bytes, record.starts[index], record.ends[index], record.line);
}

/**
 * UTF-16 units that the valid UTF-8 in bytes[from, to) decodes to: one per sequence (continuation
 * bytes 10xxxxxx do not start one), two for a 4-byte sequence (a surrogate pair).
 */
function utf16Units(bytes: Buffer, from: number, to: number): number {
	let units = 0;
	for (let k = from; k < to; k++) {
		const b = bytes[k];
		if ((b & 0xc0) !== 0x80) units += b >= 0xf0 ? 2 : 1;
	}
	return units;
}

/**
 * All fields of a record as text. A record read whole from its chunk is decoded with one slice
 * (latin1 when it is ASCII, else UTF-8) and its fields cut from that string, instead of one
 * decode per field.
 */
export function csvFields(record: CsvRecord): string[] {
	const { bytes, count, starts, ends, rawStart, rawEnd } = record;
	const fields = new Array<string>(count);
	if (rawStart < 0) {
		for (let k = 0; k < count; k++) fields[k] = utf8(bytes, starts[k], ends[k], record.line);
		return fields;
	}
	if (record.ascii) {
		const text = latin1Slice(bytes, rawStart, rawEnd);
		for (let k = 0; k < count; k++)
			fields[k] = text.slice(starts[k] - rawStart, ends[k] - rawStart);
		return fields;
	}
	const text = utf8Slice(bytes, rawStart, rawEnd);
	if (text.includes('\ufffd')) {
		// Maybe invalid bytes: field by field, each checked (a real U+FFFD passes).
		for (let k = 0; k < count; k++) fields[k] = utf8(bytes, starts[k], ends[k], record.line);
		return fields;
	}
	let at = rawStart;
	let unit = 0;
	for (let k = 0; k < count; k++) {
		unit += utf16Units(bytes, at, starts[k]);
		const length = utf16Units(bytes, starts[k], ends[k]);
		fields[k] = text.slice(unit, unit + length);
		unit += length;
		at = ends[k];
	}
	return fields;
}

/**
 * The parser with every field as a string; a record is one CsvRow. What it reads:
 * - fields separated by the scanner's delimiter (`,`, `;` or tab: given, from a first line
 *   `sep=X`, which is skipped, or detected from the first rows, see delimiter.ts); a record ends
 *   with CRLF, LF or a lone CR, and the last one may lack it;
 * - a field starting with `"` is quoted: it may hold delimiters and line breaks, and `""` for a
 *   quote; after its closing quote only the delimiter, a line end or the end may follow;
 * - a quote inside an unquoted field (`5" screen`) is kept, as spreadsheets write it;
 * - an empty line is a record with one empty field, for the caller to refuse or skip;
 * - a UTF-8 byte order mark at the start is skipped (offsets still count it).
 */
export class CsvParser {
	private readonly scanner: CsvScanner;

	constructor(onRow: (row: CsvRow) => void, options?: CsvScannerOptions) {
		this.scanner = new CsvScanner(
			(record) =>
				onRow({
					fields: csvFields(record),
					number: record.number,
					line: record.line,
					offset: record.offset,
				}),
			options,
		);
	}

	/** The byte between fields (given, or detected once the first rows are read). */
	get delimiter(): number {
		return this.scanner.delimiter;
	}

	/** Where the delimiter came from: given, a `sep=` line, or the first rows. */
	get delimiterSource(): DelimiterSource {
		return this.scanner.delimiterSource;
	}

	/** Whether the input started with a UTF-8 byte order mark. */
	get byteOrderMark(): boolean {
		return this.scanner.byteOrderMark;
	}

	push(chunk: Uint8Array): void {
		this.scanner.push(chunk);
	}

	end(): void {
		this.scanner.end();
	}
}

/** Parses a whole input held in memory (small files, tests); large inputs go through CsvParser. */
export function parseCsv(bytes: Uint8Array, options?: CsvScannerOptions): CsvRow[] {
	const rows: CsvRow[] = [];
	const parser = new CsvParser((row) => rows.push(row), options);
	parser.push(bytes);
	parser.end();
	return rows;
}
