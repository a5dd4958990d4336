/**
 * The byte level of the package's CSV parser (RFC 4180, rules in csv.ts): it finds records and
 * fields and hands each record over as byte ranges, without making a string, so that a caller
 * needing only some fields (the IP lookup's CSV index, files of hundreds of MB) decodes only those.
 * A plain record is read in one pass (plainRecord.ts); any other takes the careful path, the
 * byte-by-byte state machine below, which copies its unescaped bytes into the scanner's buffer.
 * Both give the same fields; the oracle tests in test/shared/csvScanner.test.ts hold them to it.
 * A record past MAX_FIELDS cells or MAX_RECORD_BYTES of text is a CsvBoundError naming its row
 * (csvRecord.ts): what the scanner holds is bounded by one record, whatever the file.
 */

import { Byte } from './csvBytes';
import { CsvFileStart } from './csvFileStart';
import {
	CsvBoundError,
	CsvError,
	emptyRecord,
	growFields,
	MAX_FIELDS,
	MAX_RECORD_BYTES,
	type CsvRecord,
} from './csvRecord';
import type { DelimiterSource } from './delimiter';
import { NOT_PLAIN, readPlainRecord } from './plainRecord';

const enum State {
	/** at the first byte of a field (or of a record, when `atRecordStart`) */
	FieldStart,
	Unquoted,
	Quoted,
	/** just after a quote inside a quoted field: a doubled quote or the closing one */
	QuoteInQuoted,
	/** just after a CR that ended a record: an LF here belongs to it */
	AfterCr,
}

export interface CsvScannerOptions {
	/**
	 * The byte between fields: `,` (the default), `;` or a tab; 'detect' decides it from a first
	 * line `sep=X` or the first rows (delimiter.ts). A `sep=` line is honoured and skipped in either
	 * case (one naming another delimiter than the one given is an error). The IP lookup's database
	 * files are comma files and keep the default.
	 */
	delimiter?: ',' | ';' | '\t' | 'detect';
}

export class CsvScanner {
	private state = State.FieldStart;
	private atRecordStart = true;
	private recordNumber = 0;
	private recordLine = 1;
	private recordOffset = 0;
	/** physical line of the byte being read */
	private line = 1;
	/** line a quoted field opened on, for the unterminated-quote error */
	private quoteLine = 1;
	/** the last byte of the previous chunk was a CR inside a quoted field (a following LF is the same line break) */
	private quotedCr = false;
	/** absolute offset of the current chunk's first byte */
	private base = 0;
	/** careful path: the record's field bytes so far (unescaped), across chunks */
	private buffer = new Uint8Array(256);
	private bufferLength = 0;
	/** careful path: where the current field's bytes begin in `buffer` */
	private fieldBegin = 0;
	/** The input's first bytes, until what they say is known (undefined after). */
	private start: CsvFileStart | undefined;
	/** The byte between fields (known once the first rows are read when detected). */
	delimiter: number;
	/** Where the delimiter came from: given, a `sep=` line, or the first rows. */
	delimiterSource: DelimiterSource = 'given';
	/** Whether the input started with a UTF-8 byte order mark (known after its first three bytes). */
	byteOrderMark = false;

	private readonly record: CsvRecord = emptyRecord();

	constructor(
		private readonly onRecord: (record: CsvRecord) => void,
		options: CsvScannerOptions = {},
	) {
		this.start = new CsvFileStart(options.delimiter ?? ',');
		this.delimiter = this.start.delimiter;
	}

	push(chunk: Uint8Array): void {
		if (this.start === undefined) this.scan(chunk);
		else this.scanKnown(this.start.push(chunk));
	}

	end(): void {
		if (this.start !== undefined) this.scanKnown(this.start.end());
		switch (this.state) {
			case State.FieldStart:
				// After a comma the record has a last, empty field; at a record start there is no record.
				if (!this.atRecordStart) this.endCarefulRecord();
				break;
			case State.Unquoted:
			case State.QuoteInQuoted:
				this.endCarefulRecord();
				break;
			case State.Quoted:
				throw new CsvError(
					`A quoted field opened on line ${this.quoteLine} is never closed`,
					this.quoteLine,
				);
			case State.AfterCr:
				break;
		}
		this.state = State.FieldStart;
		this.atRecordStart = true;
	}

	/**
	 * What the input's start says so far (its marks are skipped: offsets and line numbers still
	 * count them); once it is known (`bytes` given), the bytes it held are scanned.
	 */
	private scanKnown(bytes: Uint8Array | undefined): void {
		const start = this.start!;
		this.delimiter = start.delimiter;
		this.delimiterSource = start.delimiterSource;
		this.byteOrderMark = start.byteOrderMark;
		this.line = 1 + start.skippedLines;
		this.base = start.skippedBytes;
		if (bytes === undefined) return;
		this.start = undefined;
		if (bytes.length > 0) this.scan(bytes);
	}

	private scan(chunk: Uint8Array): void {
		// A Buffer view (no copy): callers decode ranges with its fast latin1/UTF-8 slices.
		const bytes = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
		const n = bytes.length;
		let i = 0;
		while (i < n) {
			if (this.atRecordStart && this.state === State.FieldStart) {
				const end = readPlainRecord(this.record, bytes, i, n, this.delimiter);
				if (end !== NOT_PLAIN) {
					i = this.endPlainRecord(bytes, i, end, n);
					continue;
				}
			}
			i = this.carefulRecord(bytes, i, n);
		}
		this.base += n;
	}

	/** Hands over the record the fast path read from `i` to its line end at `end`; returns the index after that. */
	private endPlainRecord(bytes: Buffer, i: number, end: number, n: number): number {
		const record = this.record;
		record.number = ++this.recordNumber;
		record.line = this.line;
		record.offset = this.base + i;
		this.line++;
		let next = end + 1;
		if (bytes[end] === Byte.Cr) {
			if (next === n) this.state = State.AfterCr;
			else if (bytes[next] === Byte.Lf) next++;
		}
		this.onRecord(record);
		return next;
	}

	/**
	 * The state machine, from `i` until the record being read ends (returns the index after its
	 * line end, with the next record's first byte still unread) or the chunk does (returns n, the
	 * field's bytes so far kept for the next chunk, since the chunk may be reused).
	 */
	private carefulRecord(bytes: Buffer, i: number, n: number): number {
		// Start of the field's bytes in this chunk, from which they are copied into `buffer`.
		let start = i;
		// Index of the quote that may close the quoted field (QuoteInQuoted), or -1 when that quote
		// ended an earlier chunk and the field's bytes before it are all in `buffer` already.
		let closingQuote = -1;
		while (i < n) {
			switch (this.state) {
				case State.AfterCr:
					if (bytes[i] === Byte.Lf) i++;
					this.state = State.FieldStart;
					break;

				case State.FieldStart: {
					if (this.atRecordStart) {
						this.atRecordStart = false;
						this.record.count = 0;
						this.recordOffset = this.base + i;
						this.recordLine = this.line;
					}
					this.fieldBegin = this.bufferLength;
					const b = bytes[i];
					if (b === Byte.Quote) {
						this.state = State.Quoted;
						this.quoteLine = this.line;
						start = ++i;
					} else if (b === this.delimiter) {
						this.endField();
						i++;
					} else if (b === Byte.Lf || b === Byte.Cr) {
						this.endCarefulRecord();
						i = this.lineBreak(b, i);
					} else {
						this.state = State.Unquoted;
						start = i;
					}
					break;
				}

				case State.Unquoted: {
					const delimiter = this.delimiter;
					let j = i;
					let b = 0;
					while (j < n) {
						b = bytes[j];
						if (b === delimiter || b === Byte.Lf || b === Byte.Cr) break;
						j++;
					}
					if (j === n) {
						i = n;
						break;
					}
					this.copyToBuffer(bytes, start, j);
					if (b === delimiter) {
						this.endField();
						this.state = State.FieldStart;
						i = j + 1;
					} else {
						this.endCarefulRecord();
						i = this.lineBreak(b, j);
					}
					break;
				}

				case State.Quoted: {
					let j = i;
					let b = 0;
					if (this.quotedCr && j < n) {
						// The CR ending the previous chunk was counted; an LF here is the same break.
						if (bytes[j] === Byte.Lf) j++;
						this.quotedCr = false;
					}
					while (j < n) {
						b = bytes[j];
						if (b === Byte.Quote) break;
						if (b === Byte.Lf) {
							this.line++;
						} else if (b === Byte.Cr) {
							this.line++;
							if (j + 1 < n) {
								if (bytes[j + 1] === Byte.Lf) j++;
							} else {
								this.quotedCr = true;
							}
						}
						j++;
					}
					if (j === n) {
						i = n;
						break;
					}
					closingQuote = j;
					this.state = State.QuoteInQuoted;
					i = j + 1;
					break;
				}

				case State.QuoteInQuoted: {
					const b = bytes[i];
					// The field's bytes so far end before the quote; when the quote was the last byte of
					// the previous chunk, they are all in `buffer` already.
					const end = closingQuote >= 0 ? closingQuote : start;
					if (b === Byte.Quote) {
						// A doubled quote: the field's text so far plus one quote, and the field goes on.
						this.copyToBuffer(bytes, start, end);
						start = i;
						closingQuote = -1;
						this.state = State.Quoted;
						i++;
					} else if (b === this.delimiter) {
						this.copyToBuffer(bytes, start, end);
						this.endField();
						closingQuote = -1;
						this.state = State.FieldStart;
						i++;
					} else if (b === Byte.Lf || b === Byte.Cr) {
						this.copyToBuffer(bytes, start, end);
						this.endCarefulRecord();
						closingQuote = -1;
						i = this.lineBreak(b, i);
					} else {
						throw new CsvError(
							`Line ${this.line} has text after the closing quote of a quoted field (a quote inside a quoted field is written twice: "")`,
							this.line,
						);
					}
					break;
				}
			}
			// The record ended (and its line end is read): the next one may take the fast path.
			if (this.atRecordStart && this.state === State.FieldStart) return i;
		}
		// The chunk ends inside a field: keep its bytes for the next chunk (the chunk may be reused).
		if (this.state === State.Unquoted || this.state === State.Quoted) {
			this.copyToBuffer(bytes, start, n);
		} else if (this.state === State.QuoteInQuoted && closingQuote >= 0) {
			// Just after a quote: the field's bytes before it; the quote's meaning comes with the next byte.
			this.copyToBuffer(bytes, start, closingQuote);
		}
		return n;
	}

	/** Counts the line break at `i` (CR, LF or CRLF) and returns the index after it. */
	private lineBreak(b: number, i: number): number {
		this.line++;
		if (b === Byte.Cr) this.state = State.AfterCr;
		return i + 1;
	}

	/** Closes the careful path's current field: buffer[fieldBegin, bufferLength). */
	private endField(): void {
		const record = this.record;
		if (record.count === record.starts.length) {
			if (record.count >= MAX_FIELDS)
				throw this.pastBound(
					`has more than ${MAX_FIELDS.toLocaleString('en-US')} cells, more columns than a spreadsheet has (a line of commas?)`,
				);
			growFields(record);
		}
		record.starts[record.count] = this.fieldBegin;
		record.ends[record.count] = this.bufferLength;
		record.count++;
		this.fieldBegin = this.bufferLength;
	}

	private endCarefulRecord(): void {
		this.endField();
		const record = this.record;
		record.bytes = Buffer.from(this.buffer.buffer, this.buffer.byteOffset, this.bufferLength);
		record.rawStart = -1;
		record.rawEnd = -1;
		record.ascii = false;
		record.number = ++this.recordNumber;
		record.line = this.recordLine;
		record.offset = this.recordOffset;
		this.state = State.FieldStart;
		this.atRecordStart = true;
		try {
			this.onRecord(record);
		} finally {
			record.count = 0;
			this.bufferLength = 0;
			this.fieldBegin = 0;
			if (this.buffer.length > 64 * 1024) this.buffer = new Uint8Array(256);
		}
	}

	/** The record being read is past a bound (csvRecord.ts): named by its row, and its line when they differ. */
	private pastBound(problem: string): CsvBoundError {
		const row = this.recordNumber + 1;
		const line = this.recordLine;
		const name = line === row ? `row ${row}` : `row ${row} (line ${line})`;
		return new CsvBoundError(`${name} ${problem}`, line);
	}

	/**
	 * Where a row ran past the bound of text, and what likely made it: inside a quoted cell the rest
	 * of the file may be that cell (a quote never closed); outside one, the text had no line break.
	 */
	private likelyCause(): string {
		if (this.state === State.Quoted || this.state === State.QuoteInQuoted)
			return `it runs on inside a quoted cell opened on line ${this.quoteLine}: a quote never closed?`;
		return 'it runs on with no line break, outside any quoted cell: one long line, not rows of CSV?';
	}

	/** Appends bytes[from, to) to the careful path's buffer. */
	private copyToBuffer(bytes: Uint8Array, from: number, to: number): void {
		const length = to - from;
		if (length <= 0) return;
		const needed = this.bufferLength + length;
		if (needed > MAX_RECORD_BYTES)
			throw this.pastBound(
				`holds more than ${MAX_RECORD_BYTES / 1024 / 1024} MiB of text (${MAX_RECORD_BYTES.toLocaleString('en-US')} bytes; a lead list's row holds a few KB): ${this.likelyCause()}`,
			);
		if (needed > this.buffer.length) {
			const grown = new Uint8Array(Math.max(needed, this.buffer.length * 2));
			grown.set(this.buffer.subarray(0, this.bufferLength));
			this.buffer = grown;
		}
		const buffer = this.buffer;
		if (length < 32) {
			for (let k = 0; k < length; k++) buffer[this.bufferLength + k] = bytes[from + k];
		} else {
			buffer.set(bytes.subarray(from, to), this.bufferLength);
		}
		this.bufferLength = needed;
	}
}
