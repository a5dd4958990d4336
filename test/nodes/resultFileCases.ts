import { Container } from '@n8n/di';
import { parse as oracleParse } from 'csv-parse/sync';
import { BinaryDataService } from 'n8n-core';
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import {
	AnswerFlattener,
	cellOf,
	EMAIL_ANSWER_COLUMNS,
	PHONE_ANSWER_COLUMNS,
} from '../../nodes/shared/csv/answerColumns';
import { defuseFormula } from '../../nodes/shared/csv/formulas';
import type { Sandbox } from '../sandbox/server';
import { emailRecord } from '../sandbox/services/email';
import { phoneRecord } from '../sandbox/services/phone';
import {
	csvItem,
	runCsv,
	runEmailCsv,
	runPhoneCsv,
	type CsvRun,
	type FileNode,
} from './csvHelpers';

/**
 * Output "Result File": how a test reads a result file back, and Email's and Phone's cases, run in
 * n8n's two binary modes (csvResultFile.test.ts: memory, csvResultFileFilesystem.test.ts:
 * filesystem). A result file is read back from n8n's binary store and parsed with csv-parse, an
 * established parser, as the oracle; the answers are the sandbox's records for the rows' values
 * (the same functions the sandbox answers with).
 */

export const RESULT = { output: 'resultFile', resultBinaryPropertyName: 'result' };

export const runEmailResult = (run: CsvRun) =>
	runEmailCsv({ ...run, parameters: { ...RESULT, ...run.parameters } });
export const runResult = (node: FileNode, run: CsvRun) =>
	runCsv(node, { ...run, parameters: { ...RESULT, ...run.parameters } });
export const runPhoneResult = (run: CsvRun) =>
	runPhoneCsv({ ...run, parameters: { ...RESULT, ...run.parameters } });

/**
 * The result file of an output item, as csv-parse reads it (as n8n's Extract From File does:
 * a byte order mark skipped, the delimiter given): its header and its records.
 */
export async function resultOf(
	item: INodeExecutionData,
	property = 'result',
	delimiter = ',',
): Promise<{ header: string[]; rows: string[][]; bytes: Buffer }> {
	const binary = item.binary?.[property];
	if (!binary)
		throw new Error(
			`the item has no binary "${property}" (it has: ${Object.keys(item.binary ?? {}).join(', ')})`,
		);
	expect(binary.mimeType).toBe('text/csv');
	const bytes = await Container.get(BinaryDataService).getAsBuffer(binary);
	const [header, ...rows] = oracleParse(bytes, { bom: true, delimiter }) as string[][];
	return { header, rows, bytes };
}

/** Cells as a result file writes them with Defuse Formulas on (the default). */
export const defused = (cells: string[]) => cells.map(defuseFormula);

/** A record's cells in the given columns, as a result file must write them. */
export const answerCells = (
	record: IDataObject,
	columns: readonly string[],
	known: readonly string[],
) => new AnswerFlattener(columns, known).flatten(record).cells;

export const sentValues = (sandbox: Sandbox, service: 'email' | 'phone') =>
	sandbox
		.requests(service)
		.map((request) => String(request.fields[service] ?? request.query[service]));

/** Quoted commas and quotes, line breaks (CRLF, LF) in cells, non-ASCII text, a BOM, one row wider than the header. */
export const TRICKY_CSV =
	'\ufeffname,email,note\r\n' +
	'"Doe, Jane",jane.doe@acme.io,"said ""call me""\r\nnext week"\r\n' +
	'Bob,bob@gmail.com,\r\n' +
	'"Zoë ""Z"" Ünal",zoe@northwind.example,"北京 🚀\nline two"\r\n' +
	'Ann,ann@acme.io,plain,"an extra, unnamed cell"\n' +
	'"  spaced  ",info@acme.io,"=1+2"';

/** Parses back to the input columns exactly, then the answer columns, other_fields and status; the summary counts the run. */
export async function expectTrickyFileParsesBack(sandbox: Sandbox): Promise<void> {
	const { items, error } = await runEmailResult({ sandbox, items: [csvItem(TRICKY_CSV)] });
	expect(error).toBeUndefined();
	expect(items).toHaveLength(1);
	expect(items[0].pairedItem).toEqual({ item: 0 });
	const input = oracleParse(TRICKY_CSV, {
		bom: true,
		relax_column_count: true,
		record_delimiter: ['\r\n', '\n'],
	}) as string[][];
	const { header, rows } = await resultOf(items[0]);
	expect(header).toEqual([
		...input[0],
		'column4',
		...EMAIL_ANSWER_COLUMNS,
		'other_fields',
		'status',
	]);
	expect(rows).toHaveLength(5);
	rows.forEach((row, index) => {
		const cells = input[index + 1];
		expect(row.slice(0, 4)).toEqual(
			defused([...cells, ...new Array<string>(4 - cells.length).fill('')]),
		);
		expect(row.slice(4, 4 + EMAIL_ANSWER_COLUMNS.length)).toEqual(
			answerCells(emailRecord(cells[1]), EMAIL_ANSWER_COLUMNS, EMAIL_ANSWER_COLUMNS),
		);
		expect(row.slice(-2)).toEqual(['', 'ok']);
	});
	expect(
		rows
			.map((row) => row[header.indexOf('email_deliverability.mx_records')])
			.every((cell) => Array.isArray(JSON.parse(cell))),
	).toBe(true);
	expect(items[0].json).toEqual({
		rows: 5,
		firstRow: 2,
		lastRow: 6,
		answered: 5,
		failed: { invalidValue: 0, serviceError: 0, planRanOut: 0, keyRejected: 0 },
		requestsSent: 5,
		answersPaid: 5,
		requestsSaved: 0,
		answersReused: 0,
		nextRow: null,
		fileRows: 5,
		delimiter: 'comma',
		delimiterFrom: 'detected',
		defusedCells: 1,
	});
	expect(items[0].binary?.result.fileName).toBe('leads-results.csv');
	expect(sandbox.requests('email')).toHaveLength(5);
}

/** Phone: the numbers of the first column, the chosen fields only, in the record's order. */
export async function expectPhoneChosenFieldsInOrder(sandbox: Sandbox): Promise<void> {
	const picked = [
		'phone_validation.is_valid',
		'phone_carrier.name',
		'phone_breaches.breached_domains',
	];
	const csv = 'phone,owner\n+14152007986,"Jane, CEO"\n+442071838750,Zoë\n';
	const { items, error } = await runPhoneResult({
		sandbox,
		items: [csvItem(csv)],
		options: { resultFields: picked },
	});
	expect(error).toBeUndefined();
	const { header, rows } = await resultOf(items[0]);
	const inOrder = PHONE_ANSWER_COLUMNS.filter((column) => picked.includes(column));
	expect(header).toEqual(['phone', 'owner', ...inOrder, 'other_fields', 'status']);
	expect(rows).toEqual([
		[
			'+14152007986',
			'Jane, CEO',
			...answerCells(phoneRecord('+14152007986'), inOrder, PHONE_ANSWER_COLUMNS),
			'',
			'ok',
		],
		[
			'+442071838750',
			'Zoë',
			...answerCells(phoneRecord('+442071838750'), inOrder, PHONE_ANSWER_COLUMNS),
			'',
			'ok',
		],
	]);
}

/** A row whose value is refused (Continue On Fail): its status says so, it is counted, and it is not sent. */
export async function expectRefusedRowInStatus(sandbox: Sandbox): Promise<void> {
	const csv = 'name,email\nAnn,ann@acme.io\nNobody,   \nBob,bob@acme.io\n';
	const { items, error } = await runEmailResult({
		sandbox,
		items: [csvItem(csv)],
		continueOnFail: true,
	});
	expect(error).toBeUndefined();
	expect(items).toHaveLength(1);
	const { rows } = await resultOf(items[0]);
	expect(rows.map((row) => row[row.length - 1])).toEqual([
		'ok',
		expect.stringMatching(/^invalid value: Invalid Email \(row 3, column 2\)/),
		'ok',
	]);
	expect(rows[1].slice(0, 2)).toEqual(['Nobody', '   ']);
	expect(items[0].json).toMatchObject({
		rows: 3,
		answered: 2,
		failed: { invalidValue: 1, serviceError: 0, planRanOut: 0, keyRejected: 0 },
		requestsSent: 2,
	});
	expect(sentValues(sandbox, 'email').sort()).toEqual(['ann@acme.io', 'bob@acme.io']);
}

/** A row the service refuses (Continue On Fail): a service error in its status, the other rows answered. */
export async function expectServiceErrorInStatus(sandbox: Sandbox): Promise<void> {
	sandbox.inject('email', {
		kind: 'status',
		status: 400,
		message: 'Bad request for this address.',
	});
	const csv = 'email\nann@acme.io\n';
	const { items, error } = await runEmailResult({
		sandbox,
		items: [csvItem(csv)],
		continueOnFail: true,
	});
	expect(error).toBeUndefined();
	const { rows } = await resultOf(items[0]);
	expect(rows[0][rows[0].length - 1]).toMatch(/^service error: .*400/);
	expect(items[0].json).toMatchObject({
		rows: 1,
		answered: 0,
		failed: { invalidValue: 0, serviceError: 1, planRanOut: 0, keyRejected: 0 },
	});
}

/** A file that breaks a rule is an error of its item, with no request and no file. */
export async function expectBrokenFileIsItsItemsError(sandbox: Sandbox): Promise<void> {
	const { items, error } = await runEmailResult({
		sandbox,
		items: [csvItem('name,email\nAnn,ann@acme.io\n\nBob,bob@acme.io\n')],
	});
	expect(items).toEqual([]);
	expect(error?.message).toMatch(/row 3 is empty/);
	expect(error?.description).toMatch(/^No row of item 1's file was sent, so it cost no credit/);
	expect(sandbox.requests('email')).toEqual([]);
}

/** An invalid value without Continue On Fail stops the file before any request, naming the row as the file has it. */
export async function expectInvalidValueStopsTheFile(sandbox: Sandbox): Promise<void> {
	const { error } = await runEmailResult({
		sandbox,
		items: [csvItem('name,email\nAnn,ann@acme.io\nNobody,\n')],
	});
	expect(error?.message).toMatch(/Invalid Email \(row 3, column 2\)/);
	expect(error?.description).toBe(
		'Row 3 was not sent, so it cost no credit. Fix its email (column 2) in the file and run again.',
	);
	expect(error?.description).not.toMatch(/Item \d/);
	expect(sandbox.requests('email')).toEqual([]);
}

/** The header is written before any answer: a file of many chunks comes out whole and in file order. */
export async function expectManyChunksWholeAndInOrder(sandbox: Sandbox): Promise<void> {
	const count = 2500;
	let csv = 'name,email,note\r\n';
	const note = '"a note, with ""quotes""\nand a line break; Ünïcödé"';
	for (let index = 1; index <= count; index++)
		csv += `Lead ${index},lead${index}@example.com,${note}\r\n`;
	const { items, error } = await runEmailResult({ sandbox, items: [csvItem(csv)] });
	expect(error).toBeUndefined();
	const { rows, bytes } = await resultOf(items[0]);
	expect(bytes.length).toBeGreaterThan(4 * 64 * 1024);
	expect(rows.map((row) => row[1])).toEqual(
		Array.from({ length: count }, (_, index) => `lead${index + 1}@example.com`),
	);
	expect(
		rows.every(
			(row) =>
				row[2] === 'a note, with "quotes"\nand a line break; Ünïcödé' &&
				row[row.length - 1] === 'ok',
		),
	).toBe(true);
	expect(items[0].json).toMatchObject({
		rows: count,
		answered: count,
		requestsSent: count,
		nextRow: null,
	});
}

/** One item per file: two files, two result items, each paired to its file. */
export async function expectOneResultItemPerFile(sandbox: Sandbox): Promise<void> {
	const { items, error } = await runEmailResult({
		sandbox,
		items: [csvItem('email\nann@acme.io\n'), csvItem('email\nbob@acme.io\ncy@acme.io\n')],
	});
	expect(error).toBeUndefined();
	expect(items.map((item) => [item.pairedItem, item.json.rows])).toEqual([
		[{ item: 0 }, 1],
		[{ item: 1 }, 2],
	]);
	expect((await resultOf(items[1])).rows.map((row) => row[0])).toEqual([
		'bob@acme.io',
		'cy@acme.io',
	]);
}

/** Continue (using error output): result files on the success output, with failed rows inside; a broken file on the error output. */
export async function expectResultFilesAndBrokenFileSplit(sandbox: Sandbox): Promise<void> {
	const { items, errorItems, error } = await runEmailResult({
		sandbox,
		items: [
			csvItem('name,email\nAnn,ann@acme.io\nNobody,   \n'),
			csvItem('email\nbob@acme.io\n\ncy@acme.io\n'),
		],
		onError: 'continueErrorOutput',
	});
	expect(error).toBeUndefined();
	expect(items).toHaveLength(1);
	expect(items[0].json).toMatchObject({
		rows: 2,
		answered: 1,
		failed: { invalidValue: 1, serviceError: 0, planRanOut: 0, keyRejected: 0 },
	});
	expect(errorItems).toHaveLength(1);
	expect(errorItems[0].pairedItem).toEqual({ item: 1 });
	expect(JSON.stringify(errorItems[0].json)).toMatch(/row 3 is empty/);
	expect(sentValues(sandbox, 'email')).toEqual(['ann@acme.io']);
}

/** Cells answered with values of every type: empty for null, JSON for arrays, true/false, numbers as written. */
export function expectCellsOfEveryType(): void {
	expect([null, undefined, 'x', 0.5, 12, true, false, ['a'], { a: 1 }].map(cellOf)).toEqual([
		'',
		'',
		'x',
		'0.5',
		'12',
		'true',
		'false',
		'["a"]',
		'{"a":1}',
	]);
}
