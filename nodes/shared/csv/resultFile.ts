import type { IBinaryData, IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import type { UnitCollector, UnitOutcome } from '../engine/fanOut';
import type { RunFigures } from '../engine/runFigures';
import { stopReasonOf } from '../engine/runLedger';
import { readableFrom } from '../binary/streams';
import { AnswerFlattener, OTHER_FIELDS_COLUMN } from './answerColumns';
import { CsvStream, type CsvFormat } from './csvWriter';
import { rowsText, type RowRanges } from './skipRows';

/**
 * Output "Result File": a CSV file's rows and their answers as one CSV file, written while the
 * answers arrive (the engine hands each row's outcome over in file order), so that the rows are
 * never held as items or as one string. Each row of the result is the input row's cells exactly
 * as read (padded to the widest row of the file, so every row has every column), then the
 * answer's columns (answerColumns.ts), then `status`. Its form (delimiter, byte order mark,
 * formula defusing: csvWriter.ts, formulas.ts) is the options', by default the input file's own.
 *
 * The file goes to n8n's binary helpers as a Node stream when n8n keeps binary data in a store
 * (filesystem mode: it is written to disk chunk by chunk); in n8n's default memory mode, where
 * n8n holds every file in the item anyway, its chunks are joined once at the end.
 */

export const STATUS_COLUMN = 'status';

/** One data row of the slice, as the unit generator hands it over before yielding its unit. */
export interface SliceRow {
	/** The row's number in the file, as errors name it (a header row is row 1). */
	number: number;
	fields: string[];
	/** The row's value was refused before sending (its unit is a failure of its own). */
	invalid: boolean;
}

export interface ResultFileSetup {
	/** The output binary field. */
	property: string;
	fileName: string;
	/** The input file's header row, or undefined when it has none. */
	header: string[] | undefined;
	/** Cells of the widest row of the file (header included). */
	width: number;
	flattener: AnswerFlattener;
	/** Data rows of the whole file, its last row's number, and the slice's first and last row numbers. */
	fileRows: number;
	lastFileRow: number;
	firstRow: number;
	lastRow: number;
	/** The Node stream n8n gave for the input file, whose Readable class makes the output stream; undefined in memory mode. */
	inputStream?: NodeJS.ReadableStream;
	/** What an answer without data says (IP geolocation's 204), or undefined for one with data (csvLookup.ts). */
	noDataOf?(record: IDataObject): string | undefined;
	/** How the file is written (csvParameterReaders' resultFormatOf). */
	format: CsvFormat;
	/** Why a row needed no request (Company Enrichment's webmail address), for its status; the summary then counts `skipped`. */
	skippedOf?(record: IDataObject): string;
	/** The input file's delimiter and where it came from, for the summary (inputForm's delimiterSummary). */
	inputDelimiter: IDataObject;
	/** Rows this run skipped (Skip Rows): those after `nextRow` are named again for the next resume. */
	skipped?: RowRanges;
}

/** The summary counts of failed rows, by reason. */
interface Failed {
	invalidValue: number;
	serviceError: number;
	planRanOut: number;
	keyRejected: number;
}

export class ResultFile implements UnitCollector {
	private readonly stream: CsvStream;
	private stored: Promise<IBinaryData> | undefined;
	/** Rows yielded as units whose outcomes have not come yet, in order. */
	private readonly waiting: SliceRow[] = [];
	private waitingHead = 0;
	private rows = 0;
	private answered = 0;
	/** Answered rows for which the service has no data: counted as answered, their status says so. */
	private noData = 0;
	/** Rows the service answered without a request (skippedOf): not answered, not failed. */
	private skipped = 0;
	private readonly failed: Failed = {
		invalidValue: 0,
		serviceError: 0,
		planRanOut: 0,
		keyRejected: 0,
	};
	/** The first row that the plan's end kept from an answer: where the next run starts. */
	private firstUnanswered: number | undefined;
	/** Rows answered after firstUnanswered (answers come back out of order): the resume skips them. */
	private readonly answeredAfter: number[] = [];
	private readonly header: Promise<void>;
	/** The answer columns of a row without an answer (made once: most rows have one). */
	private readonly noAnswer: { cells: string[]; other: string };

	constructor(
		private readonly ctx: IExecuteFunctions,
		private readonly setup: ResultFileSetup,
	) {
		this.stream = new CsvStream(setup.format);
		// The header goes first, before any answer; the file is opened only when rows come (a run
		// that fails before sending leaves nothing open).
		this.header = this.stream.write(headerCells(setup));
		this.noAnswer = {
			cells: new Array<string>(setup.flattener.columns.length).fill(''),
			other: '',
		};
	}

	/** Hands the file to n8n's binary helpers, which read it as it is written. */
	private store(): Promise<IBinaryData> {
		if (this.stored) return this.stored;
		const { ctx, setup } = this;
		const source = this.stream.chunks();
		if (setup.inputStream) {
			this.stored = ctx.helpers.prepareBinaryData(
				readableFrom(setup.inputStream, source) as unknown as Buffer,
				setup.fileName,
				'text/csv',
			);
		} else {
			this.stored = (async () => {
				const parts: Buffer[] = [];
				for await (const chunk of source) parts.push(chunk);
				return await ctx.helpers.prepareBinaryData(
					Buffer.concat(parts),
					setup.fileName,
					'text/csv',
				);
			})();
		}
		// A store that fails stops the writer (its next write throws) instead of leaving it waiting.
		this.stored.catch((error: Error) => this.stream.consumerFailed(error));
		return this.stored;
	}

	/** The row of the next unit the generator yields. */
	expect(row: SliceRow): void {
		this.waiting.push(row);
	}

	async add(outcome: UnitOutcome): Promise<void> {
		void this.store();
		await this.header;
		const row = this.nextRow();
		const { flattener, width } = this.setup;
		let answer = this.noAnswer;
		let status: string;
		if ('answered' in outcome && outcome.withoutRequest && this.setup.skippedOf) {
			this.skipped++;
			status = `skipped: ${this.setup.skippedOf(outcome.answered[0]?.json ?? {})}`;
		} else if ('answered' in outcome) {
			this.answered++;
			if (this.firstUnanswered !== undefined) this.answeredAfter.push(row.number);
			const [first, ...more] = outcome.answered;
			const noData = this.setup.noDataOf?.(first?.json ?? {});
			if (noData !== undefined && more.length === 0) {
				this.noData++;
				status = `no data: ${noData}`;
			} else {
				answer = flattener.flatten(first?.json ?? {});
				// One record per lookup is what the service gives; should more come, none is dropped.
				if (more.length > 0)
					answer.other = JSON.stringify({
						...(answer.other ? (JSON.parse(answer.other) as IDataObject) : {}),
						moreRecords: more.map((item) => item.json),
					});
				status = 'ok';
			}
		} else {
			status = this.statusOfFailure(row, outcome);
		}
		const cells =
			row.fields.length < width
				? [...row.fields, ...new Array<string>(width - row.fields.length).fill('')]
				: row.fields;
		this.rows++;
		await this.stream.write([...cells, ...answer.cells, answer.other, status]);
	}

	/**
	 * A row answered whose answer columns and other_fields are CSV text already (`answer.text`,
	 * written by a CsvCellWriter of this file's format, which defused `answer.defused` of its
	 * cells): the line `add` would write, for a caller that renders a repeated answer once (the IP
	 * lookup's memo of a log's addresses).
	 */
	async addAnswerText(answer: { text: string; defused: number }): Promise<void> {
		void this.store();
		await this.header;
		const row = this.nextRow();
		const missing = this.setup.width - row.fields.length;
		const { writer } = this.stream;
		const delimiter = writer.delimiter;
		this.answered++;
		this.rows++;
		writer.defused += answer.defused;
		await this.stream.writeLine(
			`${writer.cells(row.fields)}${missing > 0 ? delimiter.repeat(missing) : ''}${delimiter}${answer.text}${delimiter}ok\r\n`,
		);
	}

	/** The row of the outcome that came, in the order the rows were read. */
	private nextRow(): SliceRow {
		const row = this.waiting[this.waitingHead];
		if (!row) throw new Error('A result came for a row that was not read');
		this.waiting[this.waitingHead++] = undefined as unknown as SliceRow;
		// Let go of the handled part of the queue now and then, not on every row.
		if (this.waitingHead >= 1024) {
			this.waiting.splice(0, this.waitingHead);
			this.waitingHead = 0;
		}
		return row;
	}

	async finish(figures?: RunFigures): Promise<INodeExecutionData[]> {
		const stored = this.store();
		await this.header;
		await this.stream.end();
		const binary = await stored;
		const { fileRows, lastFileRow, firstRow, lastRow } = this.setup;
		const nextRow = this.firstUnanswered ?? (lastRow < lastFileRow ? lastRow + 1 : null);
		const skipRows =
			nextRow === null ? '' : rowsText(this.setup.skipped ?? [], this.answeredAfter, nextRow - 1);
		// A run that ends before the file does says why, beside where the next one starts.
		const stopped =
			nextRow === null
				? undefined
				: this.firstUnanswered === undefined
					? 'atMostRows'
					: this.failed.keyRejected > 0
						? 'keyRejected'
						: 'planRanOut';
		const json: IDataObject = {
			rows: this.rows,
			firstRow,
			lastRow,
			answered: this.answered,
			// Only where a service can answer without data: the other summaries keep their shape.
			...(this.setup.noDataOf ? { noData: this.noData } : {}),
			...(this.setup.skippedOf ? { skipped: this.skipped } : {}),
			failed: { ...this.failed },
			// What the rows cost, each figure by its cause (none for rows looked up locally): requests
			// this run sent; rows answered by a payment of this execution (an earlier try's too); rows
			// that shared a repeated value's answer; rows answered by another execution's payment.
			...(figures === undefined
				? {}
				: {
						requestsSent: figures.requestsSent,
						answersPaid: figures.answersPaid + figures.reusedFrom.try,
						requestsSaved: figures.answersShared,
						answersReused: figures.answersReused - figures.reusedFrom.try,
					}),
			nextRow,
			...(stopped ? { stoppedBy: stopped } : {}),
			// Rows after nextRow that were answered (out of order) or skipped: the resume skips them.
			...(skipRows ? { skipRows } : {}),
			fileRows,
			...this.setup.inputDelimiter,
			// Cells written with an apostrophe in front so that no spreadsheet runs them (formulas.ts).
			defusedCells: this.stream.writer.defused,
		};
		return [{ json, binary: { [this.setup.property]: binary } }];
	}

	async abort(): Promise<void> {
		this.stream.fail(new Error('The run stopped before the result file was complete'));
		await this.stored?.catch(() => undefined);
	}

	private statusOfFailure(row: SliceRow, outcome: { failed: Error; notSent: boolean }): string {
		const { message } = outcome.failed;
		if (row.invalid) {
			this.failed.invalidValue++;
			return `invalid value: ${message}`;
		}
		const stopped = stopReasonOf(outcome.failed);
		if (!stopped) {
			this.failed.serviceError++;
			return `service error: ${message}`;
		}
		// The run stopped sending here (or before): nothing of the file from this row on is answered.
		this.firstUnanswered ??= row.number;
		this.failed[stopped]++;
		const why =
			stopped === 'keyRejected' ? 'the API key was rejected' : "the plan's credits ran out";
		return outcome.notSent
			? `not sent: ${why} (no credit used)`
			: `not answered: ${why} (${message})`;
	}
}

/** The result file's header: the input's column names (or column1...), the answer's, other_fields, status. */
export function headerCells(
	setup: Pick<ResultFileSetup, 'header' | 'width' | 'flattener'>,
): string[] {
	const input: string[] = [];
	for (let index = 0; index < setup.width; index++)
		input.push(setup.header?.[index] ?? `column${index + 1}`);
	// An added column never repeats an input column's name (a lead list may well have a "status"):
	// it gets _2 (or _3...) instead, so every column of the result can be told apart.
	const taken = new Set(input.map((name) => name.trim()));
	const added = [...setup.flattener.columns, OTHER_FIELDS_COLUMN, STATUS_COLUMN].map((name) => {
		let unique = name;
		for (let suffix = 2; taken.has(unique); suffix++) unique = `${name}_${suffix}`;
		taken.add(unique);
		return unique;
	});
	return [...input, ...added];
}
