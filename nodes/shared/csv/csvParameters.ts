import type { INodeProperties } from 'n8n-workflow';

import { answerColumnOptions } from './answerColumns';

/**
 * A node's file input as parameters: what a node with Input: CSV File shows, defined once and in
 * one order for every node, so that a node file lists its own parameters and these. Errors name
 * these fields by their definitions (fieldLabel), and the readers (csvParameterReaders.ts) check
 * their values.
 */

/**
 * The service limits phone and email bulk files to 50,000 rows and states no other bulk limit,
 * so every service node keeps it for a file (At Most Rows' default, the file check's limit).
 */
export const MAX_CSV_ROWS = 50_000;

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
		"How many rows to send in this run, from Start at Row: a slice of a large file per execution. 50,000 is a file's limit.",
};

export const skipRowsOption: INodeProperties = {
	displayName: 'Skip Rows',
	name: 'skipRows',
	type: 'string',
	placeholder: 'e.g. 4-7, 9',
	displayOptions: { show: { '/input': ['csvFile'] } },
	default: '',
	description:
		"Rows not to send in this run, as 4-7, 9. To resume a run the plan's credits stopped, use its summary's skipRows with Start at Row set to its nextRow: the rows it had answered after nextRow are not paid again.",
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
		skipRowsOption,
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
