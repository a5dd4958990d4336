/**
 * STAND-IN until branch i9's nodes/shared/csv.ts ("Shared RFC 4180 CSV parser") is
 * cherry-picked (same interface): a streaming RFC 4180 reader over bytes.
 */
export interface CsvRow {
	fields: string[];
	number: number;
	line: number;
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

const QUOTE = 0x22;
const COMMA = 0x2c;
const CR = 0x0d;
const LF = 0x0a;

export class CsvParser {
	private readonly decoder = new TextDecoder('utf-8');

	private field: number[] = [];

	private fields: string[] = [];

	private quoted = false;

	private afterQuote = false;

	private fieldStarted = false;

	private pendingCr = false;

	private line = 1;

	private rowLine = 1;

	private offset = 0;

	private rowOffset = 0;

	private number = 0;

	constructor(private readonly onRow: (row: CsvRow) => void) {}

	push(chunk: Uint8Array): void {
		for (let index = 0; index < chunk.length; index++, this.offset++) {
			const byte = chunk[index];
			if (this.pendingCr) {
				this.pendingCr = false;
				if (byte === LF) continue;
			}
			if (this.quoted) {
				if (byte === QUOTE) {
					this.quoted = false;
					this.afterQuote = true;
				} else {
					if (byte === LF) this.line++;
					this.field.push(byte);
				}
				continue;
			}
			if (this.afterQuote && byte === QUOTE) {
				this.field.push(QUOTE);
				this.quoted = true;
				this.afterQuote = false;
				continue;
			}
			if (byte === COMMA) {
				this.endField();
			} else if (byte === CR || byte === LF) {
				this.endField();
				this.endRow();
				this.line++;
				this.rowLine = this.line;
				this.rowOffset = this.offset + 1;
				if (byte === CR) this.pendingCr = true;
			} else if (byte === QUOTE) {
				if (this.fieldStarted) throw new CsvError(`a quote inside an unquoted field on line ${this.line}`, this.line);
				this.quoted = true;
				this.fieldStarted = true;
			} else {
				if (this.afterQuote) throw new CsvError(`text after a closing quote on line ${this.line}`, this.line);
				this.field.push(byte);
				this.fieldStarted = true;
			}
		}
	}

	end(): void {
		if (this.quoted) throw new CsvError(`a quoted field opened on line ${this.rowLine} is never closed`, this.rowLine);
		if (this.fieldStarted || this.fields.length > 0 || this.field.length > 0) {
			this.endField();
			this.endRow();
		}
	}

	private endField(): void {
		this.fields.push(this.decoder.decode(Uint8Array.from(this.field)));
		this.field = [];
		this.fieldStarted = false;
		this.afterQuote = false;
	}

	private endRow(): void {
		const fields = this.fields;
		this.fields = [];
		this.number++;
		this.onRow({ fields, number: this.number, line: this.rowLine, offset: this.rowOffset });
	}
}

export function parseCsv(bytes: Uint8Array): CsvRow[] {
	const rows: CsvRow[] = [];
	const parser = new CsvParser((row) => rows.push(row));
	parser.push(bytes);
	parser.end();
	return rows;
}
