import { BINARY_ENCODING, NodeOperationError } from 'n8n-workflow';
import type { IBinaryData, IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { inputFileMeta, binaryPropertyName } from '../binary';
import { CsvError, CsvParser, type CsvRow } from './csv';
import { invalidInput } from '../errors';
import { FanOut, type FanOutUnit } from '../fanOut';

/**
 * The bulk CSV input of the phone and email nodes (contract, Limits: at most 50,000 rows, the
 * phone number in the first column, the email address in a selected column, no empty rows, one
 * item per row). The whole file is read and checked before the node sends anything; each row
 * then becomes one unit of the engine's queue, its output carrying the row beside the record.
 */

export const MAX_CSV_ROWS = 50_000;

/** The key beside the service's record that holds the row: `{ number, columns }`. */
export const CSV_ROW_KEY = 'csvRow';

const INPUT_FIELD = 'Input (input)';
const BINARY_FIELD = 'Input Binary Field (binaryPropertyName)';
const HEADER_FIELD = 'Header Row (headerRow)';

export type InputKind = 'value' | 'csvFile';
export type HeaderRow = 'auto' | 'yes' | 'no';

/** The `input` choice; `value` is the default, so saved workflows without it keep working. */
export function inputParameter(valueLabel: string): INodeProperties {
	return {
		displayName: 'Input',
		name: 'input',
		type: 'options',
		noDataExpression: true,
		options: [
			{ name: 'Value', value: 'value', description: `One ${valueLabel} per item` },
			{ name: 'CSV File', value: 'csvFile', description: 'A CSV file in the item: one request per row' },
		],
		default: 'value',
		description: 'Whether to look up one value per item, or every row of a CSV file',
	};
}

/** Parameters shown with `input: csvFile`, after the node's own column parameter (if any). */
export const csvBinaryParameter: INodeProperties = {
	displayName: 'Input Binary Field',
	name: 'binaryPropertyName',
	type: 'string',
	default: 'data',
	required: true,
	displayOptions: { show: { input: ['csvFile'] } },
	hint: 'The name of the input binary field holding the CSV file (at most 50,000 rows, no empty rows)',
};

/** The `headerRow` option of the node's `options` collection, shown for CSV files only. */
export const headerRowOption: INodeProperties = {
	displayName: 'Header Row',
	name: 'headerRow',
	type: 'options',
	displayOptions: { show: { '/input': ['csvFile'] } },
	options: [
		{ name: 'Auto', value: 'auto', description: 'Detect whether the first row holds column names' },
		{ name: 'Yes', value: 'yes', description: 'The first row holds column names and is not sent' },
		{ name: 'No', value: 'no', description: 'Every row is data, columns are named by position' },
	],
	default: 'auto',
	description: 'Whether the CSV file\'s first row holds column names',
};

export function inputKindOf(ctx: IExecuteFunctions, itemIndex: number): InputKind {
	const value = ctx.getNodeParameter('input', itemIndex, 'value') as string;
	if (value !== 'value' && value !== 'csvFile') {
		throw invalidInput(ctx, itemIndex, INPUT_FIELD, `must be value or csvFile, got ${JSON.stringify(value)}`);
	}
	return value;
}

export function headerRowOf(ctx: IExecuteFunctions, itemIndex: number, value: unknown): HeaderRow {
	const chosen = value === undefined || value === '' ? 'auto' : String(value);
	if (chosen !== 'auto' && chosen !== 'yes' && chosen !== 'no') {
		throw invalidInput(ctx, itemIndex, HEADER_FIELD, `must be auto, yes or no, got ${JSON.stringify(value)}`);
	}
	return chosen;
}

/** Which column holds the value: a 1-based position, or a name from the header row. */
export type ColumnChoice = { position: number } | { name: string; field: string };

export interface CsvLookup<Prepared> {
	column: ColumnChoice;
	headerRow: HeaderRow;
	/** Whether a first-row cell looks like a value rather than a column name (for Auto). */
	looksLikeValue(cell: string): boolean;
	/** How a row's value is named in its errors: "Phone (row 7, column 1)". */
	valueLabel: string;
	/** The unit for one row's value; throws an input error (via `field`) for a value the node refuses. */
	prepare(value: string, field: string): Prepared;
}

/**
 * Reads an item's CSV file, applies the file's rules to all of it, and returns one unit per
 * data row. A file rule broken (too many rows, an empty row, a missing column, not CSV) is an
 * input error of the whole item, so nothing of the file is sent.
 */
export async function csvFanOut<Prepared>(
	ctx: IExecuteFunctions,
	itemIndex: number,
	lookup: CsvLookup<Prepared>,
): Promise<FanOut<Prepared>> {
	const property = binaryPropertyName(ctx, itemIndex, BINARY_FIELD, ctx.getNodeParameter('binaryPropertyName', itemIndex, 'data'));
	const meta = inputFileMeta(ctx, itemIndex, BINARY_FIELD, property);
	const fail = (rule: string) =>
		new NodeOperationError(ctx.getNode(), `Invalid CSV file in ${BINARY_FIELD}: ${rule}`, {
			itemIndex,
			description: `No row of item ${itemIndex + 1}'s file was sent, so it cost no credit. Fix the file and run again.`,
		});
	if ('name' in lookup.column && lookup.headerRow === 'no') {
		throw invalidInput(
			ctx,
			itemIndex,
			lookup.column.field,
			`"${lookup.column.name}" is a column name, but Header Row is No: give the column's position (1 for the first) or set Header Row to Yes or Auto`,
		);
	}

	const continueOnFail = ctx.continueOnFail();
	const units: Array<FanOutUnit<Prepared>> = [];
	let header: string[] | undefined;
	let position = 0;
	let dataRows = 0;
	const parser = new CsvParser((row) => {
		if (row.fields.every((field) => field.trim() === '')) {
			throw fail(`${rowName(row)} is empty: a bulk CSV file has no empty rows; remove it and run again`);
		}
		if (row.number === 1) {
			header = firstRowHeader(ctx, itemIndex, row, lookup);
			position = header ? headerPosition(header, lookup.column) : (lookup.column as { position: number }).position;
			if (header) return;
		}
		if (++dataRows > MAX_CSV_ROWS) {
			throw fail(`the file has more than ${MAX_CSV_ROWS.toLocaleString('en-US')} rows (${rowName(row)} is row ${(MAX_CSV_ROWS + 1).toLocaleString('en-US')} of data); split it into files of at most ${MAX_CSV_ROWS.toLocaleString('en-US')} rows`);
		}
		if (row.fields.length < position) {
			const named = header ? ` ("${header[position - 1]}")` : '';
			throw fail(`${rowName(row)} has no column ${position}${named}: it has ${row.fields.length} column${row.fields.length === 1 ? '' : 's'}`);
		}
		const unit = rowUnit(row, position, header, lookup);
		// Without Continue On Fail the first invalid value stops the run before any request anyway:
		// say so at once rather than read on (a wrong column would make every row an error).
		if ('failed' in unit && !continueOnFail) throw unit.failed;
		units.push(unit);
	});
	try {
		await readInChunks(ctx, meta, (chunk) => parser.push(chunk));
		parser.end();
	} catch (error) {
		if (error instanceof CsvError) throw fail(`the file is not valid CSV: ${error.message}`);
		// A rule broken (already a NodeOperationError, passed through as it is) or a failed read.
		throw new NodeOperationError(ctx.getNode(), error as Error, { itemIndex });
	}
	if (units.length === 0) {
		throw fail(header ? 'the file has a header row but no rows of data' : 'the file is empty: it has no rows');
	}
	return new FanOut(units);
}

function rowName(row: CsvRow): string {
	return row.line === row.number ? `row ${row.number}` : `row ${row.number} (line ${row.line})`;
}

/** The first row's cells as column names when it is a header row, or undefined when it is data. */
function firstRowHeader<Prepared>(
	ctx: IExecuteFunctions,
	itemIndex: number,
	row: CsvRow,
	lookup: CsvLookup<Prepared>,
): string[] | undefined {
	const { column, headerRow } = lookup;
	if (headerRow === 'no') return undefined;
	if ('name' in column) {
		if (headerPosition(row.fields, column) === 0) {
			throw invalidInput(
				ctx,
				itemIndex,
				column.field,
				`the file's first row has no column named "${column.name}" (it has: ${row.fields.map((name) => `"${name}"`).join(', ')})`,
			);
		}
		return row.fields;
	}
	if (headerRow === 'yes') return row.fields;
	// Auto with a position: the first row is a header when its cell there is not a value.
	const cell = row.fields[column.position - 1];
	return cell !== undefined && lookup.looksLikeValue(cell) ? undefined : row.fields;
}

/** The 1-based position of the chosen column in a header row (0 when a name is not there). */
function headerPosition(header: string[], column: ColumnChoice): number {
	if ('position' in column) return column.position;
	const wanted = column.name.trim();
	let index = header.findIndex((name) => name.trim() === wanted);
	if (index < 0) index = header.findIndex((name) => name.trim().toLowerCase() === wanted.toLowerCase());
	return index + 1;
}

function rowUnit<Prepared>(
	row: CsvRow,
	position: number,
	header: string[] | undefined,
	lookup: CsvLookup<Prepared>,
): FanOutUnit<Prepared> {
	const label = `CSV ${rowName(row)}`;
	const beside = { [CSV_ROW_KEY]: { number: row.number, columns: columnsOf(row.fields, header) } };
	try {
		const field = `${lookup.valueLabel} (${rowName(row)}, column ${position})`;
		return { prepared: lookup.prepare(row.fields[position - 1], field), label, beside };
	} catch (error) {
		return { failed: error as Error, label, beside };
	}
}

/**
 * A row's cells by column name (the header's, or `column1`, `column2`... without one). Nothing
 * is dropped: a cell beyond the header gets its position's name, a repeated or empty name too.
 */
function columnsOf(fields: string[], header: string[] | undefined): IDataObject {
	const seen = new Set<string>();
	const entries: Array<[string, string]> = [];
	for (let index = 0; index < fields.length; index++) {
		let name = header?.[index]?.trim() || `column${index + 1}`;
		if (seen.has(name)) name = `column${index + 1}`;
		while (seen.has(name)) name += '_';
		seen.add(name);
		entries.push([name, fields[index]]);
	}
	// fromEntries defines own properties: a column named __proto__ stays a column.
	return Object.fromEntries(entries);
}

/**
 * The file's bytes in chunks, never the whole file at once where n8n does not already hold it:
 * in filesystem mode a stream from n8n's binary store; in memory mode the base64 text in the
 * item, decoded a piece at a time rather than into one second copy.
 */
async function readInChunks(
	ctx: IExecuteFunctions,
	meta: IBinaryData,
	onChunk: (chunk: Uint8Array) => void,
): Promise<void> {
	if (meta.id) {
		const stream = await ctx.helpers.getBinaryStream(meta.id, 64 * 1024);
		for await (const chunk of stream as AsyncIterable<Uint8Array>) onChunk(chunk);
		return;
	}
	const base64 = meta.data ?? '';
	// A multiple of 4 base64 characters decodes to whole bytes on its own.
	const piece = 4 * 16 * 1024;
	for (let at = 0; at < base64.length; at += piece) {
		onChunk(Buffer.from(base64.slice(at, at + piece), BINARY_ENCODING));
	}
}
