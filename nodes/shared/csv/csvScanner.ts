/**
 * The byte level of the package's CSV parser (RFC 4180, rules in csv.ts): it finds records and
 * fields and hands each record over as byte ranges, without making a string. `CsvParser` (csv.ts)
 * turns them into strings; a caller that needs only some fields as text (the IP lookup's CSV
 * index, files of hundreds of MB) reads the ranges itself and decodes only what it keeps.
 *
 * Two paths:
 * - fast: a record that lies whole in the chunk, whose quoted fields hold neither a doubled
 *   quote nor a line break (nearly every record of a real export), is read in one pass and its
 *   ranges point into the chunk itself;
 * - careful: any other record (one that spans chunks, `""` inside quotes, line breaks inside
 *   quotes, malformed text) goes through the byte-by-byte state machine, which copies the
 *   fields' unescaped bytes into the scanner's own buffer and points the ranges there.
 * Both give the same fields; the oracle tests in test/shared/csv.test.ts hold them to it.
 */

import {
	detectDelimiter,
	delimiterName,
	sepLine,
	SEP_LINE_BYTES,
	type DelimiterSource,
} from './delimiter';

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

const COMMA = 0x2c;
const SEMICOLON = 0x3b;
const TAB = 0x09;
const QUOTE = 0x22;
const LF = 0x0a;
const CR = 0x0d;
const BOM = [0xef, 0xbb, 0xbf];

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

/** The fast path gave the record to the careful path. */
const CAREFUL = -1;

/**
 * Bytes held to find the delimiter (delimiter.ts reads the first rows together): the first rows of
 * a bulk file are in them, and holding them costs nothing next to a file of many MB.
 */
const SNIFF_LIMIT = 64 * 1024;

/** Bytes held at the start to see a byte order mark and a `sep=` line. */
const PRELUDE_BYTES = BOM.length + SEP_LINE_BYTES;

export interface CsvScannerOptions {
	/**
	 * The byte between fields: `,` (the default), `;` or a tab; 'detect' decides it from a first
	 * line `sep=X` or the first rows (delimiter.ts). A `sep=` line is honoured and skipped in either
	 * case (one naming another delimiter than the one given is an error). The IP lookup's database
	 * files are comma files and keep the default.
	 */
	delimiter?: ',' | ';' | '\t' | 'detect';
}

/** A `sep=` line the reader cannot follow, or one that contradicts the delimiter given. */
export class SepLineError extends Error {
	constructor(message: string) {
		super(message);
		this.name = 'SepLineError';
	}
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
	/** the first bytes of the input (a copy), held until it is known whether they are a BOM and a `sep=` line */
	private head: Uint8Array | undefined = new Uint8Array(0);
	/** The byte between fields (known once the first rows are read when detected). */
	delimiter: number;
	/** Where the delimiter came from: given, a `sep=` line, or the first rows. */
	delimiterSource: DelimiterSource = 'given';
	/** Whether the input started with a UTF-8 byte order mark (known after its first three bytes). */
	byteOrderMark = false;
	/** Detecting the delimiter: the input's first chunks (copies), until they hold SNIFF_LIMIT bytes or the end. */
	private sniffed: Uint8Array[] | undefined;
	private sniffedLength = 0;
	private readonly detect: boolean;

	private readonly record: CsvRecord = {
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

	constructor(
		private readonly onRecord: (record: CsvRecord) => void,
		options: CsvScannerOptions = {},
	) {
		const delimiter = options.delimiter ?? ',';
		this.detect = delimiter === 'detect';
		this.delimiter = this.detect ? COMMA : delimiter.charCodeAt(0);
	}

	push(chunk: Uint8Array): void {
		if (this.head !== undefined) {
			const held = this.head;
			const joined = held.length === 0 ? chunk : Buffer.concat([held, chunk]);
			if (joined.length < PRELUDE_BYTES) {
				// A copy: the caller may reuse its chunk.
				this.head = Uint8Array.from(joined);
				return;
			}
			this.head = undefined;
			chunk = this.prelude(joined, false);
		}
		this.scanOrSniff(chunk);
	}

	end(): void {
		if (this.head !== undefined) {
			const held = this.head;
			this.head = undefined;
			this.scanOrSniff(this.prelude(held, true));
		}
		if (this.sniffed !== undefined) this.stopSniffing(true);
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
	 * The input's first bytes: a byte order mark and a `sep=` line skipped (offsets and line numbers
	 * still count them), the delimiter taken from the line; returns the rest to scan. `whole`: the
	 * bytes are the whole input.
	 */
	private prelude(bytes: Uint8Array, whole: boolean): Uint8Array {
		let at = 0;
		if (bytes[0] === BOM[0] && bytes[1] === BOM[1] && bytes[2] === BOM[2]) {
			this.byteOrderMark = true;
			at = BOM.length;
		}
		const sep = sepLine(bytes, at, whole);
		if (sep) {
			if (sep.delimiter !== COMMA && sep.delimiter !== SEMICOLON && sep.delimiter !== TAB) {
				throw new SepLineError(
					`its first line says sep=${String.fromCharCode(sep.delimiter)}, a delimiter this node cannot read (a comma, a semicolon or a tab): save the file with one of those`,
				);
			}
			if (!this.detect && sep.delimiter !== this.delimiter) {
				throw new SepLineError(
					`its first line says sep=${String.fromCharCode(sep.delimiter)} (${delimiterName(sep.delimiter)}), but Delimiter is ${delimiterName(this.delimiter)}: set Delimiter to Detect or to ${delimiterName(sep.delimiter)}`,
				);
			}
			if (this.detect) {
				this.delimiter = sep.delimiter;
				this.delimiterSource = 'sepLine';
			}
			at += sep.length;
			this.line++;
		} else if (this.detect) {
			this.sniffed = [];
		}
		this.base = at;
		return bytes.subarray(at);
	}

	/** Scans the chunk, or holds it while the delimiter is still to be found. */
	private scanOrSniff(chunk: Uint8Array): void {
		if (this.sniffed === undefined) {
			this.scan(chunk);
			return;
		}
		// A copy: the caller may reuse its chunk.
		this.sniffed.push(new Uint8Array(chunk));
		this.sniffedLength += chunk.length;
		if (this.sniffedLength >= SNIFF_LIMIT) this.stopSniffing(false);
	}

	/** The delimiter from the bytes held (`whole`: they are the whole input), which are then scanned. */
	private stopSniffing(whole: boolean): void {
		const held = this.sniffed ?? [];
		this.sniffed = undefined;
		const bytes = held.length === 1 ? held[0] : Buffer.concat(held);
		this.delimiter = detectDelimiter(bytes, whole);
		this.delimiterSource = 'detected';
		if (bytes.length > 0) this.scan(bytes);
	}

	private scan(chunk: Uint8Array): void {
		// A Buffer view (no copy): callers decode ranges with its fast latin1/UTF-8 slices.
		const bytes = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
		const n = bytes.length;
		let i = 0;
		while (i < n) {
			if (this.atRecordStart && this.state === State.FieldStart) {
				const next = this.fastRecord(bytes, i, n);
				if (next !== CAREFUL) {
					i = next;
					continue;
				}
			}
			i = this.carefulRecord(bytes, i, n);
		}
		this.base += n;
	}

	/**
	 * Reads the record starting at `i` in one pass if it lies whole in the chunk and needs no
	 * unescaping; returns the index after its line end, or CAREFUL (nothing consumed).
	 */
	private fastRecord(bytes: Buffer, i: number, n: number): number {
		const record = this.record;
		const delimiter = this.delimiter;
		// Every byte that ends an unquoted field is at most this: most bytes are past with one comparison.
		const highest = delimiter > CR ? delimiter : CR;
		let { starts, ends } = record;
		let count = 0;
		let high = 0;
		let position = i;
		let b = 0;
		for (;;) {
			let fieldStart = position;
			let fieldEnd: number;
			if (position < n && bytes[position] === QUOTE) {
				// A quoted field: up to the next quote, which must close it (not `""`, no line break inside).
				fieldStart = ++position;
				while (position < n) {
					b = bytes[position];
					// All three are below 0x2d: most bytes are past with one comparison.
					if (b <= COMMA && (b === QUOTE || b === LF || b === CR)) break;
					high |= b;
					position++;
				}
				if (position + 1 >= n || b !== QUOTE) return CAREFUL;
				fieldEnd = position++;
				b = bytes[position];
				if (b !== delimiter && b !== LF && b !== CR) return CAREFUL; // `""` or text after the quote
			} else {
				while (position < n) {
					b = bytes[position];
					if (b <= highest && (b === delimiter || b === LF || b === CR)) break;
					high |= b;
					position++;
				}
				if (position >= n) return CAREFUL; // the record goes on in the next chunk
				fieldEnd = position;
			}
			if (count === starts.length) ({ starts, ends } = this.growFields());
			starts[count] = fieldStart;
			ends[count] = fieldEnd;
			count++;
			if (b !== delimiter) break;
			position++;
		}
		// `position` is at the record's CR or LF.
		record.bytes = bytes;
		record.count = count;
		record.rawStart = i;
		record.rawEnd = position;
		record.ascii = high < 0x80;
		record.number = ++this.recordNumber;
		record.line = this.line;
		record.offset = this.base + i;
		this.line++;
		let next = position + 1;
		if (b === CR) {
			if (next === n) this.state = State.AfterCr;
			else if (bytes[next] === LF) next++;
		}
		this.onRecord(record);
		return next;
	}

	private growFields(): CsvRecord {
		const record = this.record;
		const starts = new Int32Array(record.starts.length * 2);
		const ends = new Int32Array(record.ends.length * 2);
		starts.set(record.starts);
		ends.set(record.ends);
		record.starts = starts;
		record.ends = ends;
		return record;
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
					if (bytes[i] === LF) i++;
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
					if (b === QUOTE) {
						this.state = State.Quoted;
						this.quoteLine = this.line;
						start = ++i;
					} else if (b === this.delimiter) {
						this.endField();
						i++;
					} else if (b === LF || b === CR) {
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
						if (b === delimiter || b === LF || b === CR) break;
						j++;
					}
					if (j === n) {
						i = n;
						break;
					}
					this.carry(bytes, start, j);
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
						if (bytes[j] === LF) j++;
						this.quotedCr = false;
					}
					while (j < n) {
						b = bytes[j];
						if (b === QUOTE) break;
						if (b === LF) {
							this.line++;
						} else if (b === CR) {
							this.line++;
							if (j + 1 < n) {
								if (bytes[j + 1] === LF) j++;
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
					if (b === QUOTE) {
						// A doubled quote: the field's text so far plus one quote, and the field goes on.
						this.carry(bytes, start, end);
						start = i;
						closingQuote = -1;
						this.state = State.Quoted;
						i++;
					} else if (b === this.delimiter) {
						this.carry(bytes, start, end);
						this.endField();
						closingQuote = -1;
						this.state = State.FieldStart;
						i++;
					} else if (b === LF || b === CR) {
						this.carry(bytes, start, end);
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
			this.carry(bytes, start, n);
		} else if (this.state === State.QuoteInQuoted && closingQuote >= 0) {
			// Just after a quote: the field's bytes before it; the quote's meaning comes with the next byte.
			this.carry(bytes, start, closingQuote);
		}
		return n;
	}

	/** Counts the line break at `i` (CR, LF or CRLF) and returns the index after it. */
	private lineBreak(b: number, i: number): number {
		this.line++;
		if (b === CR) this.state = State.AfterCr;
		return i + 1;
	}

	/** Closes the careful path's current field: buffer[fieldBegin, bufferLength). */
	private endField(): void {
		const record = this.record;
		if (record.count === record.starts.length) this.growFields();
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

	/** Appends bytes[from, to) to the careful path's buffer. */
	private carry(bytes: Uint8Array, from: number, to: number): void {
		const length = to - from;
		if (length <= 0) return;
		const needed = this.bufferLength + length;
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
