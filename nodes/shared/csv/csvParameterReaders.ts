import type {
	IDataObject,
	IExecuteFunctions,
	INodeProperties,
	NodeOperationError,
} from 'n8n-workflow';

import { binaryPropertyName } from '../binary/files';
import { invalidInput } from '../engine/errors';
import { fieldLabel } from '../parameters/fieldLabel';
import { asGiven } from '../values/quoted';
import { requiredText } from '../values/validate';
import {
	byteOrderMarkOption,
	csvOutputParameter,
	defuseFormulasOption,
	headerRowOption,
	inputDelimiterOption,
	inputParameter,
	MAX_CSV_ROWS,
	maxRowsOption,
	resultDelimiterOption,
	resultFieldsOption,
	resultFileFieldParameter,
	skipRowsOption,
	startAtRowOption,
} from './csvParameters';
import type { CsvDelimiter, CsvFormat } from './csvWriter';
import { fileInputError } from './fileErrors';
import { readerDelimiter, type InputForm } from './inputForm';
import { skipRowsOf, type RowRanges } from './skipRows';
import { itemParameter } from '../engine/itemParameter';

/**
 * The file input's parameters as the run reads them (csvParameters.ts defines them). An
 * expression may give anything, so each value is checked: one the node does not know is an error
 * that names the field, never a guess that would send the file other than the person meant.
 */

// A label does not depend on what a node passes to the builders (its value's name, its columns).
const INPUT_FIELD = fieldLabel(inputParameter(''));
const RESULT_FIELDS_FIELD = fieldLabel(resultFieldsOption([]));
const OUTPUT_FIELD = fieldLabel(csvOutputParameter);
const RESULT_FIELD = fieldLabel(resultFileFieldParameter);
const HEADER_FIELD = fieldLabel(headerRowOption);
const START_FIELD = fieldLabel(startAtRowOption);
const MAX_ROWS_FIELD = fieldLabel(maxRowsOption);
const SKIP_ROWS_FIELD = fieldLabel(skipRowsOption);
const DELIMITER_FIELD = fieldLabel(inputDelimiterOption);
const DEFUSE_FIELD = fieldLabel(defuseFormulasOption);
const BOM_FIELD = fieldLabel(byteOrderMarkOption);
const RESULT_DELIMITER_FIELD = fieldLabel(resultDelimiterOption);

export type InputKind = 'value' | 'csvFile';
export type HeaderRow = 'auto' | 'yes' | 'no';

/** The parameters that decide a CSV file's output: rows as items, or one result file. */
export type CsvOutput = 'rowItems' | 'resultFile';

/** Which column holds the value: a 1-based position, or a name from the header row. */
export type ColumnChoice = { position: number } | { name: string; field: string };

/** The delimiter as the Delimiter option gives it to the reader: 'detect' or the character. */
export type ReaderDelimiter = CsvDelimiter | 'detect';

const DELIMITERS: Record<string, CsvDelimiter> = { comma: ',', semicolon: ';', tab: '\t' };

export function inputKindOf(ctx: IExecuteFunctions, itemIndex: number): InputKind {
	const value = itemParameter(ctx, 'input', itemIndex, 'value') as string;
	if (value !== 'value' && value !== 'csvFile') {
		throw invalidInput(
			ctx,
			itemIndex,
			INPUT_FIELD,
			`must be value or csvFile, got ${asGiven(value)}`,
		);
	}
	return value;
}

export function outputOf(ctx: IExecuteFunctions, itemIndex: number): CsvOutput {
	const value = itemParameter(ctx, 'output', itemIndex, 'rowItems') as string;
	if (value !== 'rowItems' && value !== 'resultFile') {
		throw invalidInput(
			ctx,
			itemIndex,
			OUTPUT_FIELD,
			`must be rowItems or resultFile, got ${asGiven(value)}`,
		);
	}
	return value;
}

/** The column the parameter names: a whole number is a position, any other text a header name. */
export function columnOf(
	ctx: IExecuteFunctions,
	itemIndex: number,
	parameter: INodeProperties,
): ColumnChoice {
	const field = fieldLabel(parameter);
	const text = requiredText(
		ctx,
		itemIndex,
		field,
		ctx.getNodeParameter(parameter.name, itemIndex, parameter.default),
	);
	if (!/^\d+$/.test(text)) return { name: text, field };
	const position = Number(text);
	if (position < 1)
		throw invalidInput(ctx, itemIndex, field, 'a position counts from 1 (the first column)');
	return { position };
}

export function headerRowOf(ctx: IExecuteFunctions, itemIndex: number, value: unknown): HeaderRow {
	const chosen = value === undefined || value === '' ? 'auto' : String(value);
	if (chosen !== 'auto' && chosen !== 'yes' && chosen !== 'no') {
		throw invalidInput(
			ctx,
			itemIndex,
			HEADER_FIELD,
			`must be auto, yes or no, got ${asGiven(value)}`,
		);
	}
	return chosen;
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
				`must be detect, comma, semicolon or tab, got ${asGiven(value)}`,
			),
		);
	return delimiter;
}

/** The rows to send: from row `start` (a header row is row 1), at most `max` of them. */
export interface Slice {
	start: number;
	max: number;
	/** Rows not sent nor written (Skip Rows): neither are they counted in At Most Rows. */
	skip: RowRanges;
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
				invalidInput(ctx, itemIndex, field, `must be a whole number from 1, got ${asGiven(value)}`),
			);
		}
		return number;
	};
	return {
		start: whole(START_FIELD, options.startAtRow, 1),
		max: whole(MAX_ROWS_FIELD, options.maxRows, maxFallback),
		skip: skipRowsOf(ctx, itemIndex, SKIP_ROWS_FIELD, options.skipRows),
	};
}

/** The answer columns a result file holds: the user's pick (in the record's order), or all. */
export function resultFieldsOf(
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
					`must be ${allowed.slice(0, -1).join(', ')} or ${allowed[allowed.length - 1]}, got ${asGiven(value)}`,
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
		delimiter: delimiter === 'sameAsInput' ? readerDelimiter(input) : DELIMITERS[delimiter],
	};
}
