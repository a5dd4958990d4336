import type { INodeProperties } from 'n8n-workflow';

import {
	columnParameter,
	csvBinaryParameter,
	csvOutputParameter,
	headerRowOption,
	inputParameter,
	inputDelimiterOption,
	maxRowsOption,
	resultFileFieldParameter,
	resultFormatOptions,
	startAtRowOption,
} from '../shared/csv/csvParameters';

/**
 * The node's parameters. Several databases come through "More Databases", an optional list
 * beside the one database version 1 always had, rather than through a version 2 of the node:
 * a saved workflow holds no value for the new list, so it runs exactly as before, with no
 * migration and no second set of parameters for the same job; a user who wants the whole answer
 * adds databases to the node they already have.
 */

const databaseSource: INodeProperties = {
	displayName: 'Database Source',
	name: 'databaseSource',
	type: 'options',
	default: 'fromNode',
	options: [
		{
			name: 'From a Node',
			value: 'fromNode',
			description: 'The file in the first item of an earlier node, read once for all items',
		},
		{ name: 'This Item', value: 'thisItem', description: 'The file in each input item' },
	],
	description: 'Where the database file (.mmdb or .csv) comes from',
};

/**
 * Database Node is empty by default: the lookup then reads the IP Database Download node that runs
 * before it (databaseChoice.ts), so a new node on a canvas without one shows no error, only the
 * hint of what to connect, and a renamed download node is still found (no name is stored). A node
 * named by hand is an expression, `={{ $('Read Database File').first() }}`, which n8n rewrites when
 * that node is renamed (never a plain name). A workflow saved with the former default expression
 * keeps it, and runs as before.
 */
export const databaseNode: INodeProperties = {
	displayName: 'Database Node',
	name: 'databaseNode',
	type: 'string',
	default: '',
	placeholder: "{{ $('IP Database Download').first() }}",
	description:
		"The earlier node whose first item holds the database file. Empty: the IP Database Download node before this one. Another node as an expression such as {{ $('Read Database File').first() }}, which n8n updates when that node is renamed.",
	hint: "Empty: the file from the IP Database Download node connected before this one (Output: Database File). A stored file: {{ $('Read Database File').first() }}, with the name of the node that read it",
	displayOptions: { show: { databaseSource: ['fromNode'] } },
};

export const binaryPropertyName: INodeProperties = {
	displayName: 'Input Binary Field',
	name: 'binaryPropertyName',
	type: 'string',
	default: 'data',
	required: true,
	description: 'The name of the binary field that holds the database file',
	hint: 'The name of the input binary field holding the .mmdb or .csv file',
};

/** Input "CSV File": the package's bulk CSV parameters, for a lookup that sends nothing (no row limit). */
const input: INodeProperties = {
	...inputParameter('IP address'),
	options: [
		{ name: 'Value', value: 'value', description: 'One IP address per item' },
		{
			name: 'CSV File',
			value: 'csvFile',
			description:
				"A CSV file in the item, such as a log's client addresses: every row looked up, any number of rows",
		},
	],
};

/** Position 1 by default: a log export's address is often its first column, and it needs no header row. */
export const addressColumn = columnParameter({
	displayName: 'Address Column',
	name: 'addressColumn',
	default: '1',
	holds: 'the IP addresses',
});

export const csvFileField: INodeProperties = {
	...csvBinaryParameter,
	// `binaryPropertyName` is the database file's field, as version 1 saved it.
	displayName: 'CSV Binary Field',
	name: 'csvBinaryPropertyName',
	hint: 'The name of the input binary field holding the CSV file (any number of rows)',
};

const csvFileParameters: INodeProperties[] = [
	csvFileField,
	addressColumn,
	csvOutputParameter,
	resultFileFieldParameter,
];

const fileOptions: INodeProperties = {
	displayName: 'Options',
	name: 'options',
	type: 'collection',
	placeholder: 'Add Option',
	default: {},
	displayOptions: { show: { input: ['csvFile'] } },
	options: [
		{
			...maxRowsOption,
			// Empty when added: a lookup spends nothing, so the whole file unless a number is typed.
			default: '',
			placeholder: 'No limit',
			description:
				'How many rows to look up in this run, from Start at Row: a slice of a file per execution. Empty: every row to the end of the file.',
		},
		inputDelimiterOption,
		headerRowOption,
		startAtRowOption,
		...resultFormatOptions,
	].sort((a, b) => a.displayName.localeCompare(b.displayName)),
};

export const ipAddressParameter: INodeProperties = {
	displayName: 'IP Address',
	name: 'ipAddress',
	type: 'string',
	default: '',
	required: true,
	// No leading "=": the editor shows a placeholder as it is, and a user copying it would get the "=" in the address.
	placeholder: '{{ $json.ip }}',
	description:
		'The IPv4 or IPv6 address to look up, usually an expression that reads it from the item',
	hint: 'An IPv4 or IPv6 address, such as 8.8.8.8 or 2001:4860::8888; anything else is an error before any lookup',
	displayOptions: { show: { input: ['value'] } },
};

export const moreDatabasesParameter: INodeProperties = {
	displayName: 'More Databases',
	name: 'moreDatabases',
	type: 'fixedCollection',
	placeholder: 'Add Database',
	default: {},
	typeOptions: { multipleValues: true },
	description:
		'Up to two more databases, so that one lookup gives the whole answer: at most one geolocation, one ASN and one security database, MMDB or CSV',
	options: [
		{
			name: 'databases',
			displayName: 'Database',
			values: [databaseSource, databaseNode, binaryPropertyName],
		},
	],
};

export const properties: INodeProperties[] = [
	input,
	ipAddressParameter,
	...csvFileParameters,
	databaseSource,
	databaseNode,
	binaryPropertyName,
	moreDatabasesParameter,
	{
		displayName: 'Output Shape',
		name: 'outputShape',
		type: 'options',
		default: 'asStored',
		options: [
			{
				name: 'As Stored',
				value: 'asStored',
				description:
					'The record as the database stores it, plus the matched network; with several, one key per database',
			},
			{
				name: 'Like the IP Geolocation API',
				value: 'likeTheApi',
				description:
					"The live API's fields and types; with several databases, location, connection and security together",
			},
		],
		description:
			'How each found record is output; an address the database does not cover gives found: false either way',
	},
	fileOptions,
];
