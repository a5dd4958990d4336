import { NodeOperationError } from 'n8n-workflow';
import type { IBinaryData, IExecuteFunctions } from 'n8n-workflow';

import type { FanOutUnit } from '../engine/fanOut';
import { invalidInput } from '../engine/errors';
import { fieldLabel } from '../parameters/fieldLabel';
import { CsvBoundError, CsvError, CsvParser, type CsvRow } from './csv';
import type { CsvLookup } from './csvLookup';
import { MAX_CSV_ROWS, startAtRowOption } from './csvParameters';
import type { CsvOutput, HeaderRow, ReaderDelimiter, Slice } from './csvParameterReaders';
import { quoted } from '../values/quoted';
import { columnsOf, CSV_ROW_KEY, firstRowHeader, headerPosition, rowName } from './csvRows';
import { fileInputError, fileRuleError } from './fileErrors';
import { chunksOf, readInChunks } from './fileChunks';
import { delimiterRule, readAs, readerDelimiter, type InputForm, type Reading } from './inputForm';
import { skips, type RowRanges } from './skipRows';
import type { ResultFile } from './resultFile';

/**
 * An item's CSV file is read twice. The first pass applies the file's rules to all of it (at most
 * 50,000 rows, no empty row, valid CSV, the column in every row) and checks the values of the
 * rows to send (the slice that Start at Row and At Most Rows choose), counting how many rows
 * send each request; a rule broken is an input error of the whole item, so nothing of the file
 * is sent. The second pass, as the engine asks for units, yields one unit per row of the slice,
 * reading no further than its last row: the file is never held as rows or units.
 */

const START_FIELD = fieldLabel(startAtRowOption);

/** What the first pass learned: where the value is, how wide and long the file is, the slice's rows. */
export interface FilePlan {
	header: string[] | undefined;
	/** 1-based position of the value's column. */
	position: number;
	dataRows: number;
	/** The number of the file's last row (a header row is row 1). */
	lastFileRow: number;
	/** Cells of the widest row, header included. */
	width: number;
	/** The slice's first and last row numbers. */
	firstRow: number;
	lastRow: number;
	/** How many rows of the slice send each request (by the engine's identity of a unit). */
	keyCounts: Map<string, number>;
	/** The stream the file was read from (filesystem mode): its class makes the result file's stream. */
	inputStream?: NodeJS.ReadableStream;
	/** The file's delimiter (given, from a `sep=` line or detected from its first rows) and whether it has a byte order mark. */
	form: InputForm;
}

export type SlicePlan = Pick<FilePlan, 'header' | 'position' | 'firstRow' | 'lastRow' | 'form'> & {
	skip: RowRanges;
};

/** What the second pass needs of the plan: not its key counts (the engine has them), which would live as long as the units. */
export function sliceOfPlan(
	{ header, position, firstRow, lastRow, form }: FilePlan,
	skip: RowRanges,
): SlicePlan {
	return { header, position, firstRow, lastRow, form, skip };
}

/** How the first pass reads a file: its header row, the rows to send, its delimiter, whether a refused value stops it. */
export interface FileReading {
	headerRow: HeaderRow;
	slice: Slice;
	delimiter: ReaderDelimiter;
	stopAtRefusal: boolean;
}

/** The first pass: the file checked whole, and the slice's rows found and their values checked. */
export async function checkFile<Prepared>(
	ctx: IExecuteFunctions,
	itemIndex: number,
	meta: IBinaryData,
	lookup: CsvLookup<Prepared>,
	{ headerRow, slice, delimiter, stopAtRefusal }: FileReading,
	/** Set once the delimiter is known: how the file is read, for the errors of its rows. */
	reading: Reading,
): Promise<FilePlan> {
	const fail = fileRuleError(ctx, itemIndex);
	let header: string[] | undefined;
	let position = 0;
	let dataRows = 0;
	let lastFileRow = 0;
	let width = 0;
	let firstRow = 0;
	let lastRow = 0;
	let sliceRows = 0;
	const keyCounts = new Map<string, number>();
	const parser = new CsvParser(
		(row) => {
			if (row.fields.every((field) => field.trim() === '')) {
				throw fail(
					`${rowName(row)} is empty: a bulk CSV file has no empty rows; remove it and run again`,
				);
			}
			lastFileRow = row.number;
			if (row.fields.length > width) width = row.fields.length;
			if (row.number === 1) {
				reading.readWith = readAs(parser.delimiter, parser.delimiterSource);
				reading.source = parser.delimiterSource;
				header = firstRowHeader(ctx, itemIndex, row, lookup, headerRow, reading.readWith);
				position = header
					? headerPosition(header, lookup.column)
					: (lookup.column as { position: number }).position;
				if (header) return;
			}
			if (++dataRows > MAX_CSV_ROWS) {
				throw fail(
					`the file has more than ${MAX_CSV_ROWS.toLocaleString('en-US')} rows (${rowName(row)} is row ${(MAX_CSV_ROWS + 1).toLocaleString('en-US')} of data); split it into files of at most ${MAX_CSV_ROWS.toLocaleString('en-US')} rows`,
				);
			}
			if (row.fields.length < position) {
				const named = header ? ` (${quoted(header[position - 1])})` : '';
				throw fail(
					`${rowName(row)} has no column ${position}${named}: it has ${row.fields.length} column${row.fields.length === 1 ? '' : 's'}, ${readAs(parser.delimiter, parser.delimiterSource)}`,
				);
			}
			if (row.number < slice.start || sliceRows >= slice.max || skips(slice.skip, row.number))
				return;
			if (sliceRows++ === 0) firstRow = row.number;
			lastRow = row.number;
			// Only the check: no row beside the unit ('resultFile' builds none).
			const unit = rowUnit(row, position, header, lookup, 'resultFile');
			if ('failed' in unit) {
				// Under the default On Error the first invalid value stops the run before any request
				// anyway: say so at once rather than read on (a wrong column would make every row an error).
				if (stopAtRefusal) throw unit.failed;
				return;
			}
			const key = lookup.identityOf(unit.prepared);
			if (key !== undefined) keyCounts.set(key, (keyCounts.get(key) ?? 0) + 1);
		},
		{ delimiter },
	);
	let inputStream: NodeJS.ReadableStream | undefined;
	try {
		inputStream = await readInChunks(ctx, meta, (chunk) => parser.push(chunk));
		parser.end();
	} catch (error) {
		const rule = delimiterRule(error);
		if (rule) throw fail(rule);
		// A row past the reader's bounds is valid CSV, refused all the same: its message says why.
		if (error instanceof CsvBoundError) throw fail(error.message);
		if (error instanceof CsvError) throw fail(`the file is not valid CSV: ${error.message}`);
		// A rule broken (already a NodeOperationError, passed through as it is) or a failed read.
		throw new NodeOperationError(ctx.getNode(), error as Error, { itemIndex });
	}
	if (dataRows === 0) {
		throw fail(
			header
				? 'the file has a header row but no rows of data'
				: 'the file is empty: it has no rows',
		);
	}
	if (sliceRows === 0) {
		throw fileInputError(
			itemIndex,
			invalidInput(
				ctx,
				itemIndex,
				START_FIELD,
				`row ${slice.start} is past the file's last row (row ${lastFileRow}): there is nothing left to send in this file`,
			),
		);
	}
	const form = {
		delimiter: parser.delimiter,
		delimiterSource: parser.delimiterSource,
		byteOrderMark: parser.byteOrderMark,
	};
	return {
		header,
		position,
		dataRows,
		lastFileRow,
		width,
		firstRow,
		lastRow,
		keyCounts,
		inputStream,
		form,
	};
}

/**
 * The units of the slice's rows, read from the file a second time as the engine asks for them.
 * With a result file, each row is handed to it before its unit is yielded.
 */
export async function* sliceUnits<Prepared>(
	ctx: IExecuteFunctions,
	meta: IBinaryData,
	lookup: CsvLookup<Prepared>,
	plan: SlicePlan,
	output: CsvOutput,
	collector?: ResultFile,
): AsyncGenerator<FanOutUnit<Prepared>> {
	const rows: CsvRow[] = [];
	const parser = new CsvParser(
		(row) => {
			const inSlice = row.number >= plan.firstRow && row.number <= plan.lastRow;
			if (inSlice && !skips(plan.skip, row.number)) rows.push(row);
		},
		{ delimiter: readerDelimiter(plan.form) },
	);
	const handOut = function* (): Generator<FanOutUnit<Prepared>> {
		for (const row of rows) {
			const unit = rowUnit(row, plan.position, plan.header, lookup, output);
			collector?.expect({ number: row.number, fields: row.fields, invalid: 'failed' in unit });
			yield unit;
		}
		rows.length = 0;
	};
	let last = 0;
	const track = (row: CsvRow) => (last = row.number);
	for await (const chunk of chunksOf(ctx, meta)) {
		parser.push(chunk);
		if (rows.length > 0) track(rows[rows.length - 1]);
		yield* handOut();
		// Past the slice: the rest of the file is not read (leaving the loop closes the stream).
		if (last >= plan.lastRow) return;
	}
	parser.end();
	yield* handOut();
}

/** A row's unit: its value prepared, or, refused, a failure of its own that names the row. */
function rowUnit<Prepared>(
	row: CsvRow,
	position: number,
	header: string[] | undefined,
	lookup: CsvLookup<Prepared>,
	output: CsvOutput,
): FanOutUnit<Prepared> {
	const label = `CSV ${rowName(row)}`;
	// A result file writes the row itself; row items carry it beside the record.
	const rowJson =
		output === 'rowItems'
			? { [CSV_ROW_KEY]: { number: row.number, columns: columnsOf(row.fields, header) } }
			: undefined;
	try {
		const field = `${lookup.valueLabel} (${rowName(row)}, column ${position})`;
		return {
			prepared: lookup.prepare(row.fields[position - 1], field),
			label,
			...(rowJson ? { rowJson } : {}),
		};
	} catch (error) {
		// The error names the row as the person sees it in the file, not the file's item.
		(error as Error & { description?: string }).description =
			`Row ${row.number} was not sent, so it cost no credit. Fix its ${inSentence(lookup.valueLabel)} (column ${position}) in the file and run again.`;
		return { failed: error as Error, label, ...(rowJson ? { rowJson } : {}) };
	}
}

/** A label inside a sentence: "Email" as "email", "IP Address" as "IP address"; an acronym stays. */
function inSentence(label: string): string {
	return label.replace(/\b([A-Z])(?=[a-z])/g, (letter) => letter.toLowerCase());
}
