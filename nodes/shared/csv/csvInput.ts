import { BINARY_ENCODING, NodeOperationError } from 'n8n-workflow';
import type { IBinaryData, IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { inputFileMeta, binaryPropertyName } from '../binary/files';
import { invalidInput } from '../engine/errors';
import { FanOut, type FanOutUnit } from '../engine/fanOut';
import { requestKey } from '../engine/requestKey';
import { AnswerFlattener, answerColumnOptions } from './answerColumns';
import {
	AmbiguousDelimiterError,
	CsvError,
	CsvParser,
	delimiterName,
	SepLineError,
	type CsvRow,
	type DelimiterSource,
} from './csv';
import type { CsvDelimiter, CsvFormat } from './csvWriter';
import { ResultFile } from './resultFile';

/**
 * The bulk CSV input of the service nodes. The service limits phone and email bulk files to
 * at most 50,000 rows (the phone number in the first column, the email address in a selected
 * column, no empty rows, one item per row) and states no other bulk limit, so the nodes that look
 * up IP addresses, domains, IBANs and VAT numbers keep the same rules, their column chosen as for
 * email. The whole file is read and checked before the node sends anything; each row then
 * becomes one unit of the engine's queue, its output carrying the row beside the record.
 */

export const MAX_CSV_ROWS = 50_000;

/** The key beside the service's record that holds the row: `{ number, columns }`. */
export const CSV_ROW_KEY = 'csvRow';

const INPUT_FIELD = 'Input (input)';
const BINARY_FIELD = 'Input Binary Field (binaryPropertyName)';
const HEADER_FIELD = 'Header Row (headerRow)';
const OUTPUT_FIELD = 'Output (output)';
const RESULT_FIELD = 'Put Result File in Field (resultBinaryPropertyName)';
const START_FIELD = 'Start at Row (startAtRow)';
const MAX_ROWS_FIELD = 'At Most Rows (maxRows)';
const RESULT_FIELDS_FIELD = 'Result Fields (resultFields)';
const DEFUSE_FIELD = 'Defuse Formulas (defuseFormulas)';
const BOM_FIELD = 'Byte Order Mark (byteOrderMark)';
const DELIMITER_FIELD = 'Delimiter (delimiter)';
const RESULT_DELIMITER_FIELD = 'Result File Delimiter (resultDelimiter)';

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
			{
				name: 'CSV File',
				value: 'csvFile',
				description: 'A CSV file in the item: one request per row',
			},
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
	description: "Whether the CSV file's first row holds column names",
};

/** What a CSV file gives: one item per row (the default, as saved workflows expect), or one result file. */
export const csvOutputParameter: INodeProperties = {
	displayName: 'Output',
	name: 'output',
	type: 'options',
	noDataExpression: true,
	displayOptions: { show: { input: ['csvFile'] } },
	options: [
		{
			name: 'One Item per Row',
			value: 'rowItems',
			description: "Each row's answer as an item, the row's columns beside it in csvRow",
		},
		{
			name: 'Result File',
			value: 'resultFile',
			description:
				"One CSV file: each row's columns, its answer and a status, and a summary item. Uses little memory: for large files.",
		},
	],
	default: 'rowItems',
	description: "Whether the rows' answers come out as items or as one CSV file",
};

/** The output binary field of the result file. */
export const resultFileFieldParameter: INodeProperties = {
	displayName: 'Put Result File in Field',
	name: 'resultBinaryPropertyName',
	type: 'string',
	default: 'data',
	required: true,
	displayOptions: { show: { input: ['csvFile'], output: ['resultFile'] } },
	hint: 'The name of the output binary field to put the result CSV file in',
};

/** Options of the `options` collection for CSV files: the slice of rows to send. */
export const startAtRowOption: INodeProperties = {
	displayName: 'Start at Row',
	name: 'startAtRow',
	type: 'number',
	typeOptions: { minValue: 1, numberPrecision: 0 },
	displayOptions: { show: { '/input': ['csvFile'] } },
	default: 1,
	description:
		"The file's row to start from, numbered as a spreadsheet shows it (with a header row, the first data row is row 2). To continue a file, use the last run's nextRow.",
};

export const maxRowsOption: INodeProperties = {
	displayName: 'At Most Rows',
	name: 'maxRows',
	type: 'number',
	typeOptions: { minValue: 1, numberPrecision: 0 },
	displayOptions: { show: { '/input': ['csvFile'] } },
	default: MAX_CSV_ROWS,
	description:
		'How many rows to send in this run, from Start at Row: a slice of a large file per execution. Empty: to the end of the file.',
};

/** How the reader finds the delimiter: Detect (a `sep=` line, or the first rows together), or the one given. */
export const inputDelimiterOption: INodeProperties = {
	displayName: 'Delimiter',
	name: 'delimiter',
	type: 'options',
	displayOptions: { show: { '/input': ['csvFile'] } },
	options: [
		{
			name: 'Detect',
			value: 'detect',
			description:
				'From a first line sep=X, or else the one that gives the first rows equal columns',
		},
		{ name: 'Comma', value: 'comma' },
		{
			name: 'Semicolon',
			value: 'semicolon',
			description: 'As Excel writes CSV where the decimal mark is a comma',
		},
		{ name: 'Tab', value: 'tab' },
	],
	default: 'detect',
	description: "The character between the input file's cells",
};

/** The `resultFields` option: which of the service's fields the result file holds (none picked: all). */
export function resultFieldsOption(columns: readonly string[]): INodeProperties {
	return {
		displayName: 'Result Fields',
		name: 'resultFields',
		type: 'multiOptions',
		displayOptions: { show: { '/input': ['csvFile'], '/output': ['resultFile'] } },
		options: answerColumnOptions(columns),
		default: [],
		// The editor shows an empty list as "Select" (a multiOptions placeholder is not shown): say it means all.
		hint: 'None chosen: every field',
		description:
			"The service's fields to put in the result file, as columns named with dots. None chosen: all of them.",
	};
}

/** Shown with Output: Result File only: the form of the file. */
const RESULT_FILE_ONLY = { show: { '/input': ['csvFile'], '/output': ['resultFile'] } };

export const defuseFormulasOption: INodeProperties = {
	displayName: 'Defuse Formulas',
	name: 'defuseFormulas',
	type: 'boolean',
	displayOptions: RESULT_FILE_ONLY,
	default: true,
	description:
		"Whether to put an apostrophe before text a spreadsheet would run as a formula (=, +, -, @, a tab, a line break or NUL at a cell's start, or after a separator inside it; signed numbers, amounts and phone numbers stay as they are). Turn off for a file only programs read.",
};

export const byteOrderMarkOption: INodeProperties = {
	displayName: 'Byte Order Mark',
	name: 'byteOrderMark',
	type: 'options',
	displayOptions: RESULT_FILE_ONLY,
	options: [
		{
			name: 'Same as Input File',
			value: 'sameAsInput',
			description: 'A byte order mark when the input file has one',
		},
		{
			name: 'Yes',
			value: 'yes',
			description: 'What Excel needs to read accented letters in a CSV file right',
		},
		{ name: 'No', value: 'no', description: 'Plain UTF-8, as most programs expect' },
	],
	default: 'sameAsInput',
	description: 'Whether the result file starts with a UTF-8 byte order mark',
};

export const resultDelimiterOption: INodeProperties = {
	displayName: 'Result File Delimiter',
	name: 'resultDelimiter',
	type: 'options',
	displayOptions: RESULT_FILE_ONLY,
	options: [
		{
			name: 'Same as Input File',
			value: 'sameAsInput',
			description: 'The delimiter the input file was read with',
		},
		{ name: 'Comma', value: 'comma' },
		{
			name: 'Semicolon',
			value: 'semicolon',
			description: 'As Excel writes CSV where the decimal mark is a comma',
		},
		{ name: 'Tab', value: 'tab' },
	],
	default: 'sameAsInput',
	description: "The character between the result file's cells",
};

/** The result file's options (Defuse Formulas, Byte Order Mark, Result File Delimiter), shown with Output: Result File. */
export const resultFormatOptions: INodeProperties[] = [
	byteOrderMarkOption,
	defuseFormulasOption,
	resultDelimiterOption,
];

const DELIMITERS: Record<string, CsvDelimiter> = { comma: ',', semicolon: ';', tab: '\t' };

/** What the reader learned of the input file's form. */
export interface InputForm {
	/** The input's delimiter as a byte (the scanner's). */
	delimiter: number;
	/** Where it came from: the Delimiter option, a `sep=` line, or the first rows. */
	delimiterSource: DelimiterSource;
	byteOrderMark: boolean;
}

/** The delimiter as the Delimiter option gives it to the reader: 'detect' or the character. */
export type ReaderDelimiter = CsvDelimiter | 'detect';

/** The Delimiter option (the input file's): Detect unless set. */
export function inputDelimiterOf(
	ctx: IExecuteFunctions,
	itemIndex: number,
	options: IDataObject,
): ReaderDelimiter {
	const value = options.delimiter;
	const chosen = value === undefined || value === '' ? 'detect' : String(value);
	if (chosen === 'detect') return 'detect';
	const delimiter = DELIMITERS[chosen];
	if (!delimiter)
		throw fileInputError(
			itemIndex,
			invalidInput(
				ctx,
				itemIndex,
				DELIMITER_FIELD,
				`must be detect, comma, semicolon or tab, got ${JSON.stringify(value)}`,
			),
		);
	return delimiter;
}

/**
 * How a file was read, for the errors about its columns: a wrong delimiter shows as a missing
 * column, so the error says which one the reader used and where it came from.
 */
export function readAs(delimiter: number, source: DelimiterSource): string {
	const name = delimiterName(delimiter);
	if (source === 'sepLine')
		return `read as a ${name} file, as its first line sep=${String.fromCharCode(delimiter)} says`;
	if (source === 'given') return `read as a ${name} file, as Options > Delimiter says`;
	return `read as a ${name} file, the delimiter found from its first rows (Options > Delimiter sets another)`;
}

/** The summary's account of the input file's delimiter. */
export function delimiterSummary(form: InputForm): IDataObject {
	return {
		delimiter: delimiterName(form.delimiter),
		delimiterFrom: form.delimiterSource === 'given' ? 'option' : form.delimiterSource,
	};
}

/** A reader error that is the file's (its delimiter or its `sep=` line), as the rule it broke; undefined for another error. */
export function delimiterRule(error: unknown): string | undefined {
	return error instanceof AmbiguousDelimiterError || error instanceof SepLineError
		? error.message
		: undefined;
}

/** The result file's form: its options, each by default the input file's own; defusing on unless turned off. */
export function resultFormatOf(
	ctx: IExecuteFunctions,
	itemIndex: number,
	options: IDataObject,
	input: InputForm,
): CsvFormat {
	const choice = (value: unknown, field: string, allowed: string[]): string => {
		const chosen = value === undefined || value === '' ? 'sameAsInput' : String(value);
		if (!allowed.includes(chosen))
			throw fileInputError(
				itemIndex,
				invalidInput(
					ctx,
					itemIndex,
					field,
					`must be ${allowed.slice(0, -1).join(', ')} or ${allowed[allowed.length - 1]}, got ${JSON.stringify(value)}`,
				),
			);
		return chosen;
	};
	const defuse = options.defuseFormulas;
	if (defuse !== undefined && typeof defuse !== 'boolean') {
		throw fileInputError(
			itemIndex,
			invalidInput(
				ctx,
				itemIndex,
				DEFUSE_FIELD,
				`must be true or false, got ${JSON.stringify(defuse)}`,
			),
		);
	}
	const bom = choice(options.byteOrderMark, BOM_FIELD, ['sameAsInput', 'yes', 'no']);
	const delimiter = choice(options.resultDelimiter, RESULT_DELIMITER_FIELD, [
		'sameAsInput',
		'comma',
		'semicolon',
		'tab',
	]);
	return {
		defuseFormulas: defuse !== false,
		byteOrderMark: bom === 'sameAsInput' ? input.byteOrderMark : bom === 'yes',
		delimiter:
			delimiter === 'sameAsInput'
				? (String.fromCharCode(input.delimiter) as CsvDelimiter)
				: DELIMITERS[delimiter],
	};
}

export function inputKindOf(ctx: IExecuteFunctions, itemIndex: number): InputKind {
	const value = ctx.getNodeParameter('input', itemIndex, 'value') as string;
	if (value !== 'value' && value !== 'csvFile') {
		throw invalidInput(
			ctx,
			itemIndex,
			INPUT_FIELD,
			`must be value or csvFile, got ${JSON.stringify(value)}`,
		);
	}
	return value;
}

/** A column chosen by name in a file said to have no header row: the name can match nothing. */
export function nameWithoutHeaderRow(
	ctx: IExecuteFunctions,
	itemIndex: number,
	column: { name: string; field: string },
): NodeOperationError {
	return invalidInput(
		ctx,
		itemIndex,
		column.field,
		`"${column.name}" is a column name, but Header Row is No: give the column's position (1 for the first) or set Header Row to Yes or Auto`,
	);
}

export function headerRowOf(ctx: IExecuteFunctions, itemIndex: number, value: unknown): HeaderRow {
	const chosen = value === undefined || value === '' ? 'auto' : String(value);
	if (chosen !== 'auto' && chosen !== 'yes' && chosen !== 'no') {
		throw invalidInput(
			ctx,
			itemIndex,
			HEADER_FIELD,
			`must be auto, yes or no, got ${JSON.stringify(value)}`,
		);
	}
	return chosen;
}

/** Which column holds the value: a 1-based position, or a name from the header row. */
export type ColumnChoice = { position: number } | { name: string; field: string };

export interface CsvLookup<Prepared> {
	column: ColumnChoice;
	/** Whether a first-row cell looks like a value rather than a column name (for Auto). */
	looksLikeValue(cell: string): boolean;
	/** The columns of the service's answer in a result file (answerColumns.ts). */
	answerColumns: readonly string[];
	/** How a row's value is named in its errors: "Phone (row 7, column 1)". */
	valueLabel: string;
	/** The unit for one row's value; throws an input error (via `field`) for a value the node refuses. */
	prepare(value: string, field: string): Prepared;
	/**
	 * For a service that may answer "no data" (IP geolocation's 204): what such an answer's record
	 * says, or undefined for a record with data. A result file writes it in the row's status.
	 */
	noDataOf?(record: IDataObject): string | undefined;
	/** For a service that answers some rows without a request: why, for the row's status (`skipped: ...`). */
	skippedOf?(record: IDataObject): string;
	/** The service's own request key (ServiceDefinition's), when it has one: rows are counted by it. */
	requestKey?(prepared: Prepared): string | undefined;
}

/** The parameters that decide a CSV file's output: rows as items, or one result file. */
export type CsvOutput = 'rowItems' | 'resultFile';

/**
 * Reads an item's CSV file twice. The first pass applies the file's rules to all of it (at most
 * 50,000 rows, no empty row, valid CSV, the column in every row) and checks the values of the
 * rows to send (the slice that Start at Row and At Most Rows choose), counting how many rows
 * send each request; a rule broken is an input error of the whole item, so nothing of the file
 * is sent. The second pass, as the engine asks for units, yields one unit per row of the slice,
 * reading no further than its last row: the file is never held as rows or units.
 *
 * Output "Result File" adds a collector that writes each row's outcome into one CSV file.
 */
export async function csvFanOut<Prepared>(
	ctx: IExecuteFunctions,
	itemIndex: number,
	lookup: CsvLookup<Prepared>,
): Promise<FanOut<Prepared>> {
	const property = binaryPropertyName(
		ctx,
		itemIndex,
		BINARY_FIELD,
		ctx.getNodeParameter('binaryPropertyName', itemIndex, 'data'),
	);
	const meta = inputFileMeta(ctx, itemIndex, BINARY_FIELD, property);
	const output = outputOf(ctx, itemIndex);
	const options = ctx.getNodeParameter('options', itemIndex, {}) as IDataObject;
	const slice = sliceOf(ctx, itemIndex, options);
	const resultColumns =
		output === 'resultFile'
			? resultFieldsOf(ctx, itemIndex, options.resultFields, lookup.answerColumns)
			: [];
	const resultProperty = output === 'resultFile' ? resultPropertyOf(ctx, itemIndex) : '';
	const headerRow = headerRowOf(ctx, itemIndex, options.headerRow);
	const delimiter = inputDelimiterOf(ctx, itemIndex, options);
	if ('name' in lookup.column && headerRow === 'no')
		throw fileInputError(itemIndex, nameWithoutHeaderRow(ctx, itemIndex, lookup.column));

	const reading = { readWith: '' };
	const checked = joinedCellGuard(ctx, itemIndex, lookup, reading);
	const plan = await checkFile(ctx, itemIndex, meta, checked, headerRow, slice, delimiter, reading);
	reading.readWith = readAs(plan.form.delimiter, plan.form.delimiterSource);
	const format =
		output === 'resultFile' ? resultFormatOf(ctx, itemIndex, options, plan.form) : undefined;
	if (output === 'rowItems' || !format) {
		return new FanOut(sliceUnits(ctx, meta, checked, sliceOfPlan(plan), output, undefined), {
			keyCounts: plan.keyCounts,
		});
	}
	const collector = new ResultFile(ctx, {
		property: resultProperty,
		fileName: resultFileName(meta.fileName),
		header: plan.header,
		width: plan.width,
		flattener: new AnswerFlattener(resultColumns, lookup.answerColumns),
		fileRows: plan.dataRows,
		lastFileRow: plan.lastFileRow,
		firstRow: plan.firstRow,
		lastRow: plan.lastRow,
		inputStream: plan.inputStream,
		noDataOf: lookup.noDataOf,
		format,
		skippedOf: lookup.skippedOf,
		inputDelimiter: delimiterSummary(plan.form),
	});
	return new FanOut(sliceUnits(ctx, meta, checked, sliceOfPlan(plan), output, collector), {
		collector,
		keyCounts: plan.keyCounts,
	});
}

/**
 * No value a node sends holds a semicolon or a tab outside double quotes (phone numbers, IP
 * addresses, domains, IBANs, VAT numbers never do; an email address only inside a quoted local
 * part or display name, as RFC 5322 writes `"Giant; Box" <box@example.net>`), so a value cell that
 * does is cells of a file read with the wrong delimiter (`+4930123456;Müller` of a semicolon file
 * read as a comma file): the row is refused before any request, naming the delimiter used, rather
 * than paid for as joined text. A value with a `/` is left to the node: a website's path (Company
 * Enrichment) may hold a semicolon.
 */
function joinedCellGuard<Prepared>(
	ctx: IExecuteFunctions,
	itemIndex: number,
	lookup: CsvLookup<Prepared>,
	reading: { readWith: string },
): CsvLookup<Prepared> {
	return {
		...lookup,
		prepare(value, field) {
			const joined = value && !value.includes('/') ? separatorOutsideQuotes(value) : undefined;
			if (joined) {
				const name = joined === ';' ? 'semicolon' : 'tab';
				throw invalidInput(
					ctx,
					itemIndex,
					field,
					`holds a ${name}, so it is more than one cell: the file was ${reading.readWith}. Set Options > Delimiter to the delimiter the file uses`,
				);
			}
			return lookup.prepare(value, field);
		},
	};
}

/** The first semicolon or tab outside a double-quoted part of a value (a backslash escapes inside quotes). */
function separatorOutsideQuotes(value: string): ';' | '\t' | undefined {
	let quoted = false;
	for (let index = 0; index < value.length; index++) {
		const char = value[index];
		if (quoted && char === '\\') index++;
		else if (char === '"') quoted = !quoted;
		else if (!quoted && (char === ';' || char === '\t')) return char;
	}
	return undefined;
}

/** What the second pass needs of the plan: not its key counts (the engine has them), which would live as long as the units. */
function sliceOfPlan({ header, position, firstRow, lastRow, form }: FilePlan): SlicePlan {
	return { header, position, firstRow, lastRow, form };
}

type SlicePlan = Pick<FilePlan, 'header' | 'position' | 'firstRow' | 'lastRow' | 'form'>;

/** What the first pass learned: where the value is, how wide and long the file is, the slice's rows. */
interface FilePlan {
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
	/** How many rows of the slice send each request (requestKey). */
	keyCounts: Map<string, number>;
	/** The stream the file was read from (filesystem mode): its class makes the result file's stream. */
	inputStream?: NodeJS.ReadableStream;
	/** The file's delimiter (given, from a `sep=` line or detected from its first rows) and whether it has a byte order mark. */
	form: InputForm;
}

/** The delimiter byte as the reader's option: the second pass reads with the first pass's. */
export function readerDelimiter(form: InputForm): CsvDelimiter {
	return String.fromCharCode(form.delimiter) as CsvDelimiter;
}

async function checkFile<Prepared>(
	ctx: IExecuteFunctions,
	itemIndex: number,
	meta: IBinaryData,
	lookup: CsvLookup<Prepared>,
	headerRow: HeaderRow,
	slice: Slice,
	delimiter: ReaderDelimiter,
	/** Set once the delimiter is known: how the file is read, for the errors of its rows. */
	reading: { readWith: string },
): Promise<FilePlan> {
	const fail = fileRuleError(ctx, itemIndex);
	const continueOnFail = ctx.continueOnFail();
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
				const named = header ? ` ("${header[position - 1]}")` : '';
				throw fail(
					`${rowName(row)} has no column ${position}${named}: it has ${row.fields.length} column${row.fields.length === 1 ? '' : 's'}, ${readAs(parser.delimiter, parser.delimiterSource)}`,
				);
			}
			if (row.number < slice.start || sliceRows >= slice.max) return;
			if (sliceRows++ === 0) firstRow = row.number;
			lastRow = row.number;
			// Only the check: no row beside the unit ('resultFile' builds none).
			const unit = rowUnit(row, position, header, lookup, 'resultFile');
			if ('failed' in unit) {
				// Without Continue On Fail the first invalid value stops the run before any request anyway:
				// say so at once rather than read on (a wrong column would make every row an error).
				if (!continueOnFail) throw unit.failed;
				return;
			}
			const key = lookup.requestKey ? lookup.requestKey(unit.prepared) : requestKey(unit.prepared);
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
async function* sliceUnits<Prepared>(
	ctx: IExecuteFunctions,
	meta: IBinaryData,
	lookup: CsvLookup<Prepared>,
	plan: SlicePlan,
	output: CsvOutput,
	collector: ResultFile | undefined,
): AsyncGenerator<FanOutUnit<Prepared>> {
	const rows: CsvRow[] = [];
	const parser = new CsvParser(
		(row) => {
			if (row.number >= plan.firstRow && row.number <= plan.lastRow) rows.push(row);
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

export function rowName(row: Pick<CsvRow, 'number' | 'line'>): string {
	return row.line === row.number ? `row ${row.number}` : `row ${row.number} (line ${row.line})`;
}

/** The first row's cells as column names when it is a header row, or undefined when it is data. */
export function firstRowHeader(
	ctx: IExecuteFunctions,
	itemIndex: number,
	row: Pick<CsvRow, 'fields'>,
	lookup: Pick<CsvLookup<unknown>, 'column' | 'looksLikeValue'>,
	headerRow: HeaderRow,
	/** How the file was read (readAs), for the error. */
	readWith: string,
): string[] | undefined {
	const { column } = lookup;
	if (headerRow === 'no') return undefined;
	if ('name' in column) {
		if (headerPosition(row.fields, column) === 0) {
			throw fileInputError(
				itemIndex,
				invalidInput(
					ctx,
					itemIndex,
					column.field,
					`the file's first row has no column named "${column.name}" (it has: ${row.fields.map((name) => `"${name}"`).join(', ')}); ${readWith}`,
				),
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
export function headerPosition(header: string[], column: ColumnChoice): number {
	if ('position' in column) return column.position;
	const wanted = column.name.trim();
	let index = header.findIndex((name) => name.trim() === wanted);
	if (index < 0)
		index = header.findIndex((name) => name.trim().toLowerCase() === wanted.toLowerCase());
	return index + 1;
}

function rowUnit<Prepared>(
	row: CsvRow,
	position: number,
	header: string[] | undefined,
	lookup: CsvLookup<Prepared>,
	output: CsvOutput,
): FanOutUnit<Prepared> {
	const label = `CSV ${rowName(row)}`;
	// A result file writes the row itself; row items carry it beside the record.
	const beside =
		output === 'rowItems'
			? { [CSV_ROW_KEY]: { number: row.number, columns: columnsOf(row.fields, header) } }
			: undefined;
	try {
		const field = `${lookup.valueLabel} (${rowName(row)}, column ${position})`;
		return {
			prepared: lookup.prepare(row.fields[position - 1], field),
			label,
			...(beside ? { beside } : {}),
		};
	} catch (error) {
		// The error names the row as the person sees it in the file, not the file's item.
		(error as Error & { description?: string }).description =
			`Row ${row.number} was not sent, so it cost no credit. Fix its ${inSentence(lookup.valueLabel)} (column ${position}) in the file and run again.`;
		return { failed: error as Error, label, ...(beside ? { beside } : {}) };
	}
}

/** A label inside a sentence: "Email" as "email", "IP Address" as "IP address"; an acronym stays. */
function inSentence(label: string): string {
	return label.replace(/\b([A-Z])(?=[a-z])/g, (letter) => letter.toLowerCase());
}

/**
 * A row's cells by column name (the header's, or `column1`, `column2`... without one). Nothing
 * is dropped: a cell beyond the header gets its position's name, a repeated or empty name too.
 */
export function columnsOf(fields: string[], header: string[] | undefined): IDataObject {
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
export async function* chunksOf(
	ctx: IExecuteFunctions,
	meta: IBinaryData,
	opened?: (stream: NodeJS.ReadableStream) => void,
): AsyncGenerator<Uint8Array> {
	if (meta.id) {
		const stream = await ctx.helpers.getBinaryStream(meta.id, 64 * 1024);
		opened?.(stream);
		yield* stream as AsyncIterable<Uint8Array>;
		return;
	}
	const base64 = meta.data ?? '';
	// A multiple of 4 base64 characters decodes to whole bytes on its own.
	const piece = 4 * 16 * 1024;
	for (let at = 0; at < base64.length; at += piece)
		yield Buffer.from(base64.slice(at, at + piece), BINARY_ENCODING);
}

/** Reads the whole file chunk by chunk; returns the Node stream it came from, if it came from one. */
async function readInChunks(
	ctx: IExecuteFunctions,
	meta: IBinaryData,
	onChunk: (chunk: Uint8Array) => void,
): Promise<NodeJS.ReadableStream | undefined> {
	let source: NodeJS.ReadableStream | undefined;
	for await (const chunk of chunksOf(ctx, meta, (stream) => (source = stream))) onChunk(chunk);
	return source;
}

/** A broken file rule: an error of the file's item, which says that no row was sent. */
function fileRuleError(
	ctx: IExecuteFunctions,
	itemIndex: number,
): (rule: string) => NodeOperationError {
	return (rule) =>
		new NodeOperationError(ctx.getNode(), `Invalid CSV file in ${BINARY_FIELD}: ${rule}`, {
			itemIndex,
			description: fileNotSent(itemIndex),
		});
}

const fileNotSent = (itemIndex: number) =>
	`No row of item ${itemIndex + 1}'s file was sent, so it cost no credit. Fix the file or the parameter and run again.`;

/** A parameter error that stops the whole file: it says that no row of the file was sent. */
function fileInputError(itemIndex: number, error: NodeOperationError): NodeOperationError {
	error.description = fileNotSent(itemIndex);
	return error;
}

export function outputOf(ctx: IExecuteFunctions, itemIndex: number): CsvOutput {
	const value = ctx.getNodeParameter('output', itemIndex, 'rowItems') as string;
	if (value !== 'rowItems' && value !== 'resultFile') {
		throw invalidInput(
			ctx,
			itemIndex,
			OUTPUT_FIELD,
			`must be rowItems or resultFile, got ${JSON.stringify(value)}`,
		);
	}
	return value;
}

/** The rows to send: from row `start` (a header row is row 1), at most `max` of them. */
export interface Slice {
	start: number;
	max: number;
}

/** `maxFallback`: the rows of a run without At Most Rows (the IP lookup sends nothing: no limit). */
export function sliceOf(
	ctx: IExecuteFunctions,
	itemIndex: number,
	options: IDataObject,
	maxFallback = MAX_CSV_ROWS,
): Slice {
	const whole = (field: string, value: unknown, fallback: number): number => {
		if (value === undefined) return fallback;
		// At Most Rows emptied (or an expression that gave nothing): no limit of its own.
		if ((value === null || value === '') && field === MAX_ROWS_FIELD) return fallback;
		// An expression that gave nothing is not "from the start": a scheduled run reading the last
		// run's nextRow gets null once the file is done, and must not send the whole file again.
		if ((value === null || value === '') && field === START_FIELD) {
			throw fileInputError(
				itemIndex,
				invalidInput(
					ctx,
					itemIndex,
					field,
					"is empty: give a row number (1 for the first). The summary's nextRow is null when the file is done: there is nothing left to send",
				),
			);
		}
		const number = typeof value === 'number' ? value : Number(String(value).trim());
		if (!Number.isInteger(number) || number < 1) {
			throw fileInputError(
				itemIndex,
				invalidInput(
					ctx,
					itemIndex,
					field,
					`must be a whole number from 1, got ${JSON.stringify(value)}`,
				),
			);
		}
		return number;
	};
	return {
		start: whole(START_FIELD, options.startAtRow, 1),
		max: whole(MAX_ROWS_FIELD, options.maxRows, maxFallback),
	};
}

/** The answer columns a result file holds: the user's pick (in the record's order), or all. */
function resultFieldsOf(
	ctx: IExecuteFunctions,
	itemIndex: number,
	value: unknown,
	columns: readonly string[],
): readonly string[] {
	const picked = Array.isArray(value)
		? value.map(String)
		: value === undefined || value === ''
			? []
			: String(value)
					.split(',')
					.map((name) => name.trim());
	if (picked.length === 0) return columns;
	const unknown = picked.filter((name) => !columns.includes(name));
	if (unknown.length > 0) {
		throw fileInputError(
			itemIndex,
			invalidInput(
				ctx,
				itemIndex,
				RESULT_FIELDS_FIELD,
				`${unknown.map((name) => `"${name}"`).join(', ')} ${unknown.length === 1 ? 'is not a field' : 'are not fields'} of the service's record (it has: ${columns.join(', ')})`,
			),
		);
	}
	return columns.filter((column) => picked.includes(column));
}

/** The output binary field of a result file (Put Result File in Field). */
export function resultPropertyOf(ctx: IExecuteFunctions, itemIndex: number): string {
	return binaryPropertyName(
		ctx,
		itemIndex,
		RESULT_FIELD,
		ctx.getNodeParameter('resultBinaryPropertyName', itemIndex, 'data'),
	);
}

/** leads.csv gives leads-results.csv. */
export function resultFileName(input: string | undefined): string {
	const base = (input ?? 'rows.csv').replace(/\.csv$/i, '') || 'rows';
	return `${base}-results.csv`;
}
