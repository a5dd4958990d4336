/** What the CSV scanner hands its caller for each record, and the error of a text that is not CSV. */

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
