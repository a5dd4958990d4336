/**
 * The errors of the IP lookup's CSV input: a parameter or a file it cannot use stops the whole
 * file (no row of it is looked up), and a row whose address cannot be looked up is named by its
 * row and column as the file shows them.
 */

import { NodeOperationError } from 'n8n-workflow';
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import {
	type ColumnChoice,
	type HeaderRow,
	nameWithoutHeaderRow,
	resultFormatOf,
} from '../shared/csv/csvParameterReaders';
import { rowName } from '../shared/csv/csvRows';
import { quoted } from '../shared/values/quoted';
import { type InputForm, readAs } from '../shared/csv/inputForm';
import { columnOf } from '../shared/csv/csvParameterReaders';
import type { CsvFormat } from '../shared/csv/csvWriter';
import { fieldLabel } from '../shared/parameters/fieldLabel';
import { addressRule } from './address';
import { inputError, text } from './databaseChoice';
import type { Row } from './fileRows';
import { addressColumn, csvFileField } from './properties';

export const FILE_FIELD = fieldLabel(csvFileField);

/** The result file's form (csvParameterReaders' resultFormatOf); a bad option is an error of the whole file. */
export function formatOf(
	ctx: IExecuteFunctions,
	itemIndex: number,
	options: IDataObject,
	form: InputForm,
): CsvFormat {
	try {
		return resultFormatOf(ctx, itemIndex, options, form);
	} catch (error) {
		throw fileError(error as NodeOperationError);
	}
}

/** The column holding the addresses, read as every file-taking node reads its column. */
export function addressColumnOf(
	ctx: IExecuteFunctions,
	itemIndex: number,
	headerRow: HeaderRow,
): ColumnChoice {
	try {
		const column = columnOf(ctx, itemIndex, addressColumn);
		if ('name' in column && headerRow === 'no') throw nameWithoutHeaderRow(ctx, itemIndex, column);
		return column;
	} catch (error) {
		throw fileError(error as NodeOperationError);
	}
}

/** An error of the whole file: it says that no row of it was looked up. */
export function fileError(error: NodeOperationError): NodeOperationError {
	const itemIndex = (error.context?.itemIndex as number | undefined) ?? 0;
	error.description = `No row of item ${itemIndex + 1}'s file was looked up. Fix the file or the parameter and run again.`;
	return error;
}

export const fileRule = (ctx: IExecuteFunctions, itemIndex: number, rule: string) =>
	fileError(
		new NodeOperationError(ctx.getNode(), `Invalid CSV file in ${FILE_FIELD}: ${rule}`, {
			itemIndex,
		}),
	);

/** Why a row's address cannot be looked up, naming the row and column as the file shows them. */
export function rowError(
	ctx: IExecuteFunctions,
	itemIndex: number,
	row: Row,
	shape: { position: number; header: string[] | undefined; form: InputForm },
	cell: string | undefined,
): NodeOperationError {
	const named = shape.header?.[shape.position - 1]?.trim();
	const field = `IP Address (${rowName(row)}, column ${shape.position}${named ? ` ${quoted(named)}` : ''})`;
	const rule =
		cell === undefined
			? `the row has no column ${shape.position}: it has ${row.fields.length} column${row.fields.length === 1 ? '' : 's'}, ${readAs(shape.form.delimiter, shape.form.delimiterSource)}`
			: (addressRule(text(cell)) ?? 'is not an address');
	const error = inputError(ctx, itemIndex, field, rule);
	error.description = `Row ${row.number} was not looked up. Fix its address (column ${shape.position}) in the file and run again.`;
	return error;
}
