import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { invalidInput } from '../engine/errors';
import { fieldLabel } from '../parameters/fieldLabel';
import { requiredText } from '../values/validate';
import {
	csvBinaryParameter,
	csvOutputParameter,
	headerRowOption,
	inputDelimiterOption,
	maxRowsOption,
	resultFieldsOption,
	resultFileFieldParameter,
	resultFormatOptions,
	startAtRowOption,
	type ColumnChoice,
} from './csvInput';

/**
 * A node's file input as parameters (csvInput.ts defines each): what a node with Input: CSV File
 * shows, in one order for every node, so that a node file lists its own parameters and these.
 */

/** The parameters shown for a file, after the node's value parameter: the file, its column (Phone has none), the output. */
export function csvFileParameters(column?: INodeProperties): INodeProperties[] {
	return [
		csvBinaryParameter,
		...(column ? [column] : []),
		csvOutputParameter,
		resultFileFieldParameter,
	];
}

/**
 * The node's own options and a file's (At Most Rows, Delimiter, Header Row, Start at Row, and for
 * a result file Result Fields, Byte Order Mark, Defuse Formulas, Result File Delimiter) as
 * one `options` collection list, by name as the Add Option list shows them. `show`: conditions
 * under which the file's options are shown besides Input: CSV File (VAT: the Validate operation).
 */
export function csvFileOptions(
	answerColumns: readonly string[],
	own: INodeProperties[],
	show?: Record<string, string[]>,
): INodeProperties[] {
	const file = [
		maxRowsOption,
		inputDelimiterOption,
		headerRowOption,
		resultFieldsOption(answerColumns),
		startAtRowOption,
		...resultFormatOptions,
	];
	return [...own, ...(show ? onlyWhere(file, show, true) : file)].sort((a, b) =>
		a.displayName.localeCompare(b.displayName),
	);
}

/**
 * The parameter that says which column of a CSV file holds the values (Email Column, Domain
 * Column ...): a header name or a position. One definition, so that every node reads it the same
 * way and its error names the field as the editor shows it.
 */
export interface ColumnSetup {
	displayName: string;
	name: string;
	/** The header name looked for when the user changes nothing. */
	default: string;
	/** What the column holds, for the description: "the email addresses". */
	holds: string;
}

export function columnParameter({
	displayName,
	name,
	default: headerName,
	holds,
}: ColumnSetup): INodeProperties {
	return {
		displayName,
		name,
		type: 'string',
		default: headerName,
		required: true,
		displayOptions: { show: { input: ['csvFile'] } },
		placeholder: headerName,
		hint: 'A column name from the header row, or a position: 1 for the first column',
		description: `The CSV column holding ${holds}`,
	};
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

/**
 * File parameters and options shown only where the node takes a file (VAT: the Validate
 * operation): each keeps its own conditions, these are added. Options of a collection name the
 * node's parameters with a leading slash.
 */
export function onlyWhere<T extends INodeProperties>(
	properties: T[],
	show: Record<string, string[]>,
	inCollection = false,
): T[] {
	const conditions = inCollection
		? Object.fromEntries(Object.entries(show).map(([name, values]) => [`/${name}`, values]))
		: show;
	return properties.map((property) => ({
		...property,
		displayOptions: {
			...property.displayOptions,
			show: { ...conditions, ...property.displayOptions?.show },
		},
	}));
}
