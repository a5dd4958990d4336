/**
 * The package's one CSV parser (RFC 4180), byte-level and streaming: the bulk CSV input of the
 * phone and email nodes and the CSV index of the IP lookup node (files of hundreds of MB) both
 * run through it, so it never builds a whole-file string and each byte is looked at once.
 *
 * Rules (RFC 4180 plus what real exports need):
 * - Fields are separated by `,`; a record ends with CRLF, LF or a lone CR (one line break each).
 *   The last record may lack a line end; a line end after it does not make an empty record.
 * - A field that starts with `"` is quoted: it may hold commas, CR, LF and CRLF (kept as they are)
 *   and `""` for one quote. After its closing quote only `,`, a line end or the end of the file
 *   may follow; anything else is a CsvError naming the line.
 * - A quote inside an unquoted field (`5" screen`, `a "b"`) is kept literally (lenient, as
 *   spreadsheets write it); only a quote as the field's first byte opens a quoted field.
 * - An empty line is a record with one empty field (`fields: ['']`), for the caller to reject or skip.
 * - A UTF-8 byte order mark at the start of the input is skipped (offsets still count it).
 * - Text is UTF-8; bytes that are not valid UTF-8 are a CsvError naming the line, not silently
 *   replaced.
 * - A quote still open at the end of the input is a CsvError naming the line it opened on.
 */

export interface CsvRow {
	fields: string[];
	/** 1-based record number */
	number: number;
	/** first physical line of the record (1-based; a CRLF is one line break) */
	line: number;
	/** byte offset of the record's start in the input (a skipped BOM counts) */
	offset: number;
}

export class CsvError extends Error {
	constructor(
		message: string,
		readonly line: number,
	) {
		super(message);
		this.name = 'CsvError';
	}
}

const COMMA = 0x2c;
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

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Buffer's own UTF-8 slice, which `toString('utf8', from, to)` calls after checking its arguments:
 * a field is one short decode, and skipping that dispatch makes the whole parse about 1.2x faster.
 * Node has it on every Buffer; `toString` is the fallback should a runtime not.
 */
type FastSlice = { utf8Slice?: (from: number, to: number) => string };
const utf8Slice: (bytes: Buffer, from: number, to: number) => string =
	typeof (Buffer.prototype as FastSlice).utf8Slice === 'function'
		? (bytes, from, to) => (bytes as FastSlice as Required<FastSlice>).utf8Slice(from, to)
		: (bytes, from, to) => bytes.toString('utf8', from, to);

export class CsvParser {
	private state = State.FieldStart;
	private atRecordStart = true;
	private fields: string[] = [];
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
	/** bytes of the current field already read from earlier chunks, or around a doubled quote */
	private pending = new Uint8Array(256);
	private pendingLength = 0;
	/** the first bytes of the input, held until it is known whether they are a BOM */
	private head: number[] | undefined = [];

	constructor(private readonly onRow: (row: CsvRow) => void) {}

	push(chunk: Uint8Array): void {
		if (this.head !== undefined) {
			chunk = this.takeHead(chunk);
			if (this.head !== undefined) return;
		}
		this.scan(chunk);
	}

	end(): void {
		if (this.head !== undefined) {
			const held = Uint8Array.from(this.head);
			this.head = undefined;
			this.scan(held);
		}
		switch (this.state) {
			case State.FieldStart:
				// After a comma the record has a last, empty field; at a record start there is no record.
				if (!this.atRecordStart) this.endRecord('');
				break;
			case State.Unquoted:
			case State.QuoteInQuoted:
				this.endRecord(this.takePending());
				break;
			case State.Quoted:
				throw new CsvError(`A quoted field opened on line ${this.quoteLine} is never closed`, this.quoteLine);
			case State.AfterCr:
				break;
		}
		this.state = State.FieldStart;
		this.atRecordStart = true;
	}

	/** Holds bytes until the first three are known; returns the rest of the chunk to scan. */
	private takeHead(chunk: Uint8Array): Uint8Array {
		const head = this.head as number[];
		let used = 0;
		while (head.length < BOM.length && used < chunk.length) head.push(chunk[used++]);
		if (head.length < BOM.length) return chunk.subarray(chunk.length);
		this.head = undefined;
		const isBom = head[0] === BOM[0] && head[1] === BOM[1] && head[2] === BOM[2];
		if (isBom) {
			this.base = BOM.length;
		} else {
			this.scan(Uint8Array.from(head));
		}
		return chunk.subarray(used);
	}

	private scan(chunk: Uint8Array): void {
		// A Buffer view (no copy) for its fast UTF-8 slice; TextDecoder is the fallback check.
		const bytes = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
		const n = bytes.length;
		let i = 0;
		// Start of the field's bytes in this chunk, from which they are decoded or carried over.
		let start = 0;
		// Index of the quote that may close the quoted field (QuoteInQuoted), or -1 when that quote
		// ended an earlier chunk and the field's bytes before it are all pending.
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
						this.recordOffset = this.base + i;
						this.recordLine = this.line;
					}
					const b = bytes[i];
					if (b === QUOTE) {
						this.state = State.Quoted;
						this.quoteLine = this.line;
						start = ++i;
					} else if (b === COMMA) {
						this.fields.push('');
						i++;
					} else if (b === LF || b === CR) {
						this.endRecord('');
						i = this.lineBreak(b, i);
					} else {
						this.state = State.Unquoted;
						start = i;
					}
					break;
				}

				case State.Unquoted: {
					let j = i;
					let b = 0;
					while (j < n) {
						b = bytes[j];
						if (b === COMMA || b === LF || b === CR) break;
						j++;
					}
					if (j === n) {
						i = n;
						break;
					}
					const value = this.decode(bytes, start, j);
					if (b === COMMA) {
						this.fields.push(value);
						this.state = State.FieldStart;
						i = j + 1;
					} else {
						this.endRecord(value);
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
					// the previous chunk, they are all in `pending` already.
					const end = closingQuote >= 0 ? closingQuote : start;
					if (b === QUOTE) {
						// A doubled quote: the field's text so far plus one quote, and the field goes on.
						this.carry(bytes, start, end);
						start = i;
						closingQuote = -1;
						this.state = State.Quoted;
						i++;
					} else if (b === COMMA) {
						this.fields.push(this.decode(bytes, start, end));
						closingQuote = -1;
						this.state = State.FieldStart;
						i++;
					} else if (b === LF || b === CR) {
						this.endRecord(this.decode(bytes, start, end));
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
		}
		// The chunk ends inside a field: keep its bytes for the next chunk (the chunk may be reused).
		if (this.state === State.Unquoted || this.state === State.Quoted) {
			this.carry(bytes, start, n);
		} else if (this.state === State.QuoteInQuoted && closingQuote >= 0) {
			// Just after a quote: the field's bytes before it; the quote's meaning comes with the next byte.
			this.carry(bytes, start, closingQuote);
		}
		this.base += n;
	}

	/** Counts the line break at `i` (CR, LF or CRLF) and returns the index after it. */
	private lineBreak(b: number, i: number): number {
		this.line++;
		if (b === CR) this.state = State.AfterCr;
		return i + 1;
	}

	private endRecord(lastField: string): void {
		this.fields.push(lastField);
		const row: CsvRow = {
			fields: this.fields,
			number: ++this.recordNumber,
			line: this.recordLine,
			offset: this.recordOffset,
		};
		this.fields = [];
		this.state = State.FieldStart;
		this.atRecordStart = true;
		this.onRow(row);
	}

	/** Appends bytes[from, to) to the field's pending bytes. */
	private carry(bytes: Uint8Array, from: number, to: number): void {
		const length = to - from;
		if (length <= 0) return;
		const needed = this.pendingLength + length;
		if (needed > this.pending.length) {
			const grown = new Uint8Array(Math.max(needed, this.pending.length * 2));
			grown.set(this.pending.subarray(0, this.pendingLength));
			this.pending = grown;
		}
		this.pending.set(bytes.subarray(from, to), this.pendingLength);
		this.pendingLength = needed;
	}

	/** The field's text: bytes[from, to), after whatever earlier chunks left pending. */
	private decode(bytes: Buffer, from: number, to: number): string {
		if (this.pendingLength === 0) return this.utf8(bytes, from, to);
		this.carry(bytes, from, to);
		return this.takePending();
	}

	private takePending(): string {
		const pending = Buffer.from(this.pending.buffer, 0, this.pendingLength);
		const value = this.utf8(pending, 0, pending.length);
		this.pendingLength = 0;
		if (this.pending.length > 64 * 1024) this.pending = new Uint8Array(256);
		return value;
	}

	private utf8(bytes: Buffer, from: number, to: number): string {
		const value = utf8Slice(bytes, from, to);
		// Invalid bytes come out as U+FFFD; a real U+FFFD in the file passes the strict check.
		if (value.includes('\ufffd') && !isUtf8(bytes.subarray(from, to))) {
			throw new CsvError(`Line ${this.line} is not valid UTF-8 text (save the file as UTF-8)`, this.line);
		}
		return value;
	}
}

function isUtf8(bytes: Uint8Array): boolean {
	try {
		strictUtf8.decode(bytes);
		return true;
	} catch {
		return false;
	}
}

/** Parses a whole input held in memory (small files, tests); large inputs go through CsvParser. */
export function parseCsv(bytes: Uint8Array): CsvRow[] {
	const rows: CsvRow[] = [];
	const parser = new CsvParser((row) => rows.push(row));
	parser.push(bytes);
	parser.end();
	return rows;
}
