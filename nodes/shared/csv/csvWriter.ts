/**
 * The package's CSV writer (RFC 4180, the reader's rules in reverse): cells separated by the
 * delimiter (`,` unless the result file's options say `;` or tab), records ended by CRLF, a cell
 * quoted when it holds a quote, CR or LF (its quotes doubled), any common separator (comma,
 * semicolon, tab or `|`, whatever the file's own delimiter, so that a spreadsheet opening the
 * file with another one still reads the cell whole wherever it respects quotes), or starts or
 * ends with a space (which some readers trim). Text is UTF-8, with a byte order mark in front when
 * asked (what Excel needs to read a CSV file as UTF-8 rather than in the local code page).
 *
 * `CsvStream` turns written records into chunks of bytes that a consumer pulls (n8n's binary
 * helpers, which in filesystem mode write them to disk as they come): a writer awaits `write`
 * while a few full chunks wait for their consumer, so a file of any size is held a few chunks at
 * a time, and the rows' requests do not wait for each write to reach the disk.
 */

import { defuseFormula } from './formulas';

export type CsvDelimiter = ',' | ';' | '\t';

/** How a result file is written: its delimiter, a byte order mark, formula defusing (formulas.ts). */
export interface CsvFormat {
	delimiter: CsvDelimiter;
	byteOrderMark: boolean;
	defuseFormulas: boolean;
}

/** The plain form: commas, no byte order mark, every cell as it is. */
export const PLAIN_CSV: CsvFormat = { delimiter: ',', byteOrderMark: false, defuseFormulas: false };

/** A cell quoted in every file: a quote, a line break, any common separator, a space at either end. */
const NEEDS_QUOTES = /[",;\t|\r\n]|^ | $/;

/** One cell as CSV text (commas, nothing defused). */
export function csvCell(value: string): string {
	return NEEDS_QUOTES.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

/** One record as CSV text, line end included (commas, nothing defused). */
export function csvLine(cells: readonly string[]): string {
	return csvCells(cells) + '\r\n';
}

/** Cells as CSV text, comma-separated, no line end: a part of a record (nothing defused). */
export function csvCells(cells: readonly string[]): string {
	let line = '';
	for (let index = 0; index < cells.length; index++)
		line += (index === 0 ? '' : ',') + csvCell(cells[index]);
	return line;
}

/** Cells as CSV text in a format, counting the cells it defused. */
export class CsvCellWriter {
	/** Cells written with an apostrophe in front, so far. */
	defused = 0;
	readonly delimiter: CsvDelimiter;
	private readonly defuse: boolean;

	constructor(format: CsvFormat) {
		this.delimiter = format.delimiter;
		this.defuse = format.defuseFormulas;
	}

	cell(value: string): string {
		// An apostrophe never needs quotes itself: whether the cell is quoted is decided on its text.
		let text = value;
		if (this.defuse) {
			text = defuseFormula(value);
			if (text !== value) this.defused++;
		}
		return NEEDS_QUOTES.test(value) ? `"${text.replace(/"/g, '""')}"` : text;
	}

	/** Cells separated by the delimiter, no line end: a part of a record. */
	cells(cells: readonly string[]): string {
		let line = '';
		for (let index = 0; index < cells.length; index++)
			line += (index === 0 ? '' : this.delimiter) + this.cell(cells[index]);
		return line;
	}

	line(cells: readonly string[]): string {
		return this.cells(cells) + '\r\n';
	}
}

/** A chunk is handed over once it holds this many characters (about as many bytes). */
const CHUNK_CHARS = 64 * 1024;

/**
 * Full chunks that may wait for the consumer before a writer waits. One would make every row's
 * request wait (the engine's senders wait for the writer) whenever the disk has not yet taken the
 * last chunk; a few cover a write's latency at 256 KB at most.
 */
export const READY_CHUNKS = 4;

/**
 * Records in, chunks of bytes out, through `chunks()` (one consumer). `write` resolves at once
 * while the chunk fills, and waits for the consumer when READY_CHUNKS full chunks are unread. After
 * `end`, the consumer gets the rest and its iteration ends; after `fail`, it gets the error.
 */
export class CsvStream {
	/** Writes the records' cells; its `defused` counts the cells it changed. */
	readonly writer: CsvCellWriter;
	private pending: string[] = [];
	private pendingChars = 0;
	/** Full chunks the consumer has not taken yet, oldest first. */
	private readonly ready: Buffer[] = [];
	private ended = false;
	private failure: Error | undefined;
	/** The consumer waiting for a chunk, and the writer waiting for room. */
	private wakeConsumer: (() => void) | undefined;
	private wakeWriter: (() => void) | undefined;
	/** Why the consumer stopped early (it failed or went away): writes then throw it. */
	private consumerGone: Error | undefined;
	bytesWritten = 0;

	constructor(format: CsvFormat = PLAIN_CSV) {
		this.writer = new CsvCellWriter(format);
		// The byte order mark goes in front of the first record (U+FEFF is EF BB BF in UTF-8).
		if (format.byteOrderMark) {
			this.pending.push('\ufeff');
			this.pendingChars = 1;
		}
	}

	/** Appends one record; resolves when there is room for the next. */
	async write(cells: readonly string[]): Promise<void> {
		await this.writeLine(this.writer.line(cells));
	}

	/** Appends one record written as CSV text already, line end included. */
	async writeLine(line: string): Promise<void> {
		if (this.consumerGone) throw this.consumerGone;
		if (this.ended || this.failure) throw new Error('The CSV file is already closed');
		this.pending.push(line);
		this.pendingChars += line.length;
		if (this.pendingChars >= CHUNK_CHARS) await this.handOver();
	}

	/** No more records: the consumer gets what is left, then its iteration ends. */
	async end(): Promise<void> {
		if (this.consumerGone) throw this.consumerGone;
		if (this.pendingChars > 0) await this.handOver();
		this.ended = true;
		this.wake();
	}

	/** Stops the file: the consumer's iteration throws `error`; a waiting writer is released. */
	fail(error: Error): void {
		this.failure ??= error;
		this.wake();
	}

	/** The consumer went away (its store failed): writers stop waiting and throw `error`. */
	consumerFailed(error: Error): void {
		this.consumerGone ??= error;
		this.wake();
	}

	/** The bytes of the file, chunk by chunk, as the writer produces them. */
	async *chunks(): AsyncGenerator<Buffer> {
		try {
			for (;;) {
				if (this.failure) throw this.failure;
				const chunk = this.ready.shift();
				if (chunk) {
					this.wake();
					yield chunk;
					continue;
				}
				if (this.ended) return;
				await new Promise<void>((resolve) => (this.wakeConsumer = resolve));
			}
		} finally {
			// Iteration ended early (the store stopped reading): writers must not wait for it.
			if (!this.ended && !this.failure)
				this.consumerFailed(new Error('The result file stopped being written'));
		}
	}

	/** Makes the pending records a ready chunk, waiting while READY_CHUNKS are unread. */
	private async handOver(): Promise<void> {
		while (this.ready.length >= READY_CHUNKS && !this.consumerGone && !this.failure) {
			await new Promise<void>((resolve) => (this.wakeWriter = resolve));
		}
		if (this.consumerGone) throw this.consumerGone;
		if (this.failure) throw this.failure;
		const chunk = Buffer.from(this.pending.join(''), 'utf8');
		this.pending = [];
		this.pendingChars = 0;
		this.bytesWritten += chunk.length;
		this.ready.push(chunk);
		this.wake();
	}

	private wake(): void {
		const consumer = this.wakeConsumer;
		const writer = this.wakeWriter;
		this.wakeConsumer = undefined;
		this.wakeWriter = undefined;
		consumer?.();
		writer?.();
	}
}
