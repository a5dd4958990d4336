import { csvItem, NEW_FILE_NODES, refusal, type FileNode } from '../nodes/csvHelpers';
import { carrying, lasting, nodeRun, type Case } from './errorOutputMatrix';

/**
 * The error-output matrix's cases (errorOutput.test.ts runs them) for the CSV input of the service
 * nodes: a file that cannot be read fails whole, as its one item; a row fails alone, paired to its
 * file's item and carrying its row (`csvRow`: number and columns) inside `error` on the error
 * output.
 */
const phoneCsv = {
	type: 'abstractPhone',
	service: 'phone',
	parameters: { input: 'csvFile', binaryPropertyName: 'data', options: {} },
};
/** Email's CSV input, the email in a column of its own. */
export const emailCsv = {
	type: 'abstractEmail',
	service: 'email',
	parameters: { input: 'csvFile', binaryPropertyName: 'data', emailColumn: 'email', options: {} },
};
/** Paced to one request a second, so one request is in flight at a time and the quota's order is fixed. */
const oneAtATime = () => ({ requestsPerSecond: 1 });

/** The descriptions of the errors that recur: a file that cannot be read, the service's own words, a row the used-up plan kept back. */
const FILE_NOT_SENT =
	"No row of item 2's file was sent, so it cost no credit. Fix the file or the parameter and run again.";
const UNAVAILABLE = 'The service said: "Service temporarily unavailable."';
const NO_CREDITS = 'The service said: "Insufficient API credits for this request."';
const ROW_4_KEPT_BACK =
	'CSV row 4 was not sent, so it cost nothing. Add credits or upgrade the plan, then run again for what was not sent.';

const CASES: Case[] = [
	{
		name: 'Phone (CSV file): a file with an empty row between two good files',
		path: 'invalid CSV file',
		service: 'phone',
		foundInInput: true,
		units: [
			{ item: 0, row: 2 },
			{ item: 1, fails: /^Invalid CSV file .*row 3 is empty/, describedAs: FILE_NOT_SENT },
			{ item: 2, row: 2 },
		],
		run: nodeRun(phoneCsv, [
			csvItem('phone\n+14152007986\n'),
			csvItem('phone\n+33142685300\n\n+442079460018\n'),
			csvItem('phone\n+442079460018\n'),
		]),
	},
	{
		name: 'Phone (CSV file): a row without a number',
		path: 'invalid CSV row value',
		service: 'phone',
		foundInInput: true,
		units: [
			{ item: 0, row: 2 },
			{
				item: 0,
				row: 3,
				fails: /Invalid Phone \(row 3, column 1\): is required/,
				describedAs:
					'Row 3 was not sent, so it cost no credit. Fix its phone (column 1) in the file and run again.',
			},
			{ item: 0, row: 4 },
		],
		run: nodeRun(phoneCsv, [csvItem('phone,name\n+14152007986,Ann\n,Nobody\n+442079460018,Bob\n')]),
	},
	{
		name: 'Email (CSV file): text after a closing quote, between two good files',
		path: 'invalid CSV file',
		service: 'email',
		foundInInput: true,
		units: [
			{ item: 0, row: 2 },
			{
				item: 1,
				fails: /not valid CSV: Line 2 has text after the closing quote/,
				describedAs: FILE_NOT_SENT,
			},
			{ item: 2, row: 2 },
		],
		run: nodeRun(emailCsv, [
			csvItem('email\nann@acme.io\n'),
			csvItem('email\n"bob@acme.io"x\n'),
			csvItem('email\ncy@acme.io\n'),
		]),
	},
	{
		name: 'Email (CSV file): a row without an address',
		path: 'invalid CSV row value',
		service: 'email',
		foundInInput: true,
		units: [
			{ item: 0, row: 2 },
			{
				item: 0,
				row: 3,
				fails: /Invalid Email \(row 3, column 2\): is required/,
				describedAs:
					'Row 3 was not sent, so it cost no credit. Fix its email (column 2) in the file and run again.',
			},
			{ item: 0, row: 4 },
		],
		run: nodeRun(emailCsv, [csvItem('name,email\nAnn,ann@acme.io\nNobody,\nBob,bob@acme.io\n')]),
	},
	{
		name: 'Email (CSV file): the service fails on one row for as long as it is retried (503)',
		path: 'service error after retries',
		service: 'email',
		units: [
			{ item: 0, row: 2 },
			{ item: 0, row: 3, fails: /^CSV row 3: .*\(503\)/, describedAs: UNAVAILABLE },
			{ item: 0, row: 4 },
		],
		arrange: (box) => box.faultWhen('email', carrying('bob@acme.io'), lasting(503)),
		stopsWith: /^CSV row 3: .*\(503\)/,
		run: nodeRun(emailCsv, [csvItem('email\nann@acme.io\nbob@acme.io\ncy@acme.io\n')]),
	},
	{
		name: 'Phone (CSV file): one credit left for three rows',
		path: 'plan exhausted',
		service: 'phone',
		arrange: (box) => box.setQuota('phone', 1),
		stopDescribes: /Discarded: 1 row already answered \(and charged\)/,
		units: [
			{ item: 0, row: 2 },
			{ item: 0, row: 3, fails: /^CSV row 3: .*used up \(422\)/, describedAs: NO_CREDITS },
			{
				item: 0,
				row: 4,
				fails: /^CSV row 4 was not sent: the plan's API credits/,
				describedAs: ROW_4_KEPT_BACK,
			},
		],
		run: nodeRun({ ...phoneCsv, credential: oneAtATime }, [
			csvItem('phone\n+14152007986\n+442079460018\n+33142685300\n'),
		]),
	},
];

/** The same three failure paths for each node that gained a file input beside Email: its own values, column and rules. */
function fileNodeCases(node: FileNode): Case[] {
	const spec = {
		type: node.type,
		service: node.service,
		parameters: {
			...node.parameters,
			input: 'csvFile',
			binaryPropertyName: 'data',
			[node.columnParameter]: node.header,
			options: {},
		},
	};
	const [first, second, third] = [0, 1, 2].map((index) => node.value(index));
	const file = (...values: string[]) =>
		csvItem(
			`name,${node.header}\n${values.map((value, index) => `Lead ${index + 1},${value}`).join('\n')}\n`,
		);
	return [
		{
			name: `${node.label} (CSV file): a row with a value the node refuses`,
			path: 'invalid CSV row value',
			service: node.service,
			foundInInput: true,
			units: [
				{ item: 0, row: 2 },
				{
					item: 0,
					row: 3,
					fails: refusal(node, 3),
					describedAs: `Row 3 was not sent, so it cost no credit. Fix its ${node.valueInSentence} (column 2) in the file and run again.`,
				},
				{ item: 0, row: 4 },
			],
			run: nodeRun(spec, [file(first, node.refused, third)]),
		},
		{
			name: `${node.label} (CSV file): the service fails on one row for as long as it is retried (503)`,
			path: 'service error after retries',
			service: node.service,
			units: [
				{ item: 0, row: 2 },
				{ item: 0, row: 3, fails: /^CSV row 3: .*\(503\)/, describedAs: UNAVAILABLE },
				{ item: 0, row: 4 },
			],
			arrange: (box) => box.faultWhen(node.service, carrying(second), lasting(503)),
			stopsWith: /^CSV row 3: .*\(503\)/,
			run: nodeRun(spec, [file(first, second, third)]),
		},
		{
			name: `${node.label} (CSV file): one credit left for three rows`,
			path: 'plan exhausted',
			service: node.service,
			arrange: (box) => box.setQuota(node.service, 1),
			stopDescribes: /Discarded: 1 row already answered \(and charged\)/,
			units: [
				{ item: 0, row: 2 },
				{ item: 0, row: 3, fails: /^CSV row 3: .*used up \(422\)/, describedAs: NO_CREDITS },
				{
					item: 0,
					row: 4,
					fails: /^CSV row 4 was not sent: the plan's API credits/,
					describedAs: ROW_4_KEPT_BACK,
				},
			],
			run: nodeRun({ ...spec, credential: oneAtATime }, [file(first, second, third)]),
		},
	];
}

/** Every CSV case: the phone and email files, then the other nodes that take one. */
export const CSV_CASES: Case[] = [...CASES, ...NEW_FILE_NODES.flatMap(fileNodeCases)];
