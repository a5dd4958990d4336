/**
 * What the CSV scanner hands its caller for each record, the error of a text that is not CSV, and
 * the bounds of a record the scanner reads.
 */

export class CsvError extends Error {
	constructor(
		message: string,
		readonly line: number,
	) {
		super(message);
		this.name = 'CsvError';
	}
}

/**
 * Cells a record may have: 16,384, the columns of an Excel or LibreOffice sheet, so no row a
 * spreadsheet wrote is refused. A line of commas is a record of empty cells, each costing its
 * range (8 bytes) and its string: unbounded, 30 MB of commas took 0.5 to 0.7 GB.
 */
export const MAX_FIELDS = 16_384;

/**
 * Bytes a record's cells may hold: 4 MiB, more than a hundred of Excel's longest cells (32,767
 * characters); a lead list's or an IP database's row holds less than a few KB. The scanner keeps
 * a record's bytes until it ends, so a quoted cell never closed would otherwise hold the file.
 */
export const MAX_RECORD_BYTES = 4 * 1024 * 1024;

/** A record past MAX_FIELDS or MAX_RECORD_BYTES: the file is refused, its message names the row. */
export class CsvBoundError extends CsvError {
	constructor(message: string, line: number) {
		super(message, line);
		this.name = 'CsvBoundError';
	}
}

/**
 * One record as byte ranges: field k is bytes[starts[k], ends[k]), unescaped (no enclosing
 * quotes, `""` already one quote). The object and its arrays are reused for the next record:
 * read it inside the callback, keep nothing from it.
 */
export interface CsvRecord {
	/** the chunk being scanned (fast path) or the scanner's own buffer (careful path) */
	bytes: Buffer;
	count: number;
	starts: Int32Array;
	ends: Int32Array;
	/**
	 * Fast path only: the record's text as written is bytes[rawStart, rawEnd) (line end excluded),
	 * so equal raw bytes mean equal fields. -1 on the careful path.
	 */
	rawStart: number;
	rawEnd: number;
	/** every field byte is ASCII (< 0x80); known on the fast path, false on the careful one */
	ascii: boolean;
	/** 1-based record number */
	number: number;
	/** first physical line of the record (1-based; a CRLF is one line break) */
	line: number;
	/** byte offset of the record's start in the input (a skipped BOM counts) */
	offset: number;
}

export function emptyRecord(): CsvRecord {
	return {
		bytes: Buffer.alloc(0),
		count: 0,
		starts: new Int32Array(32),
		ends: new Int32Array(32),
		rawStart: -1,
		rawEnd: -1,
		ascii: false,
		number: 0,
		line: 1,
		offset: 0,
	};
}

/** Doubles the room for field ranges (the arrays are replaced: read them again after). */
export function growFields(record: CsvRecord): CsvRecord {
	const starts = new Int32Array(record.starts.length * 2);
	const ends = new Int32Array(record.ends.length * 2);
	starts.set(record.starts);
	ends.set(record.ends);
	record.starts = starts;
	record.ends = ends;
	return record;
}
