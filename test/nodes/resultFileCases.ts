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
	NEW_FILE_NODES,
	refusal,
	runCsv,
	runEmailCsv,
	runPhoneCsv,
	sentBy,
	type CsvRun,
	type FileNode,
} from './csvHelpers';

/**
 * Output "Result File", the same cases in n8n's two binary modes (csvResultFile.test.ts: memory,
 * csvResultFileFilesystem.test.ts: filesystem): a result file is read back from n8n's binary
 * store and parsed with csv-parse, an established parser, as the oracle; the answers are the
 * sandbox's records for the rows' values (the same functions the sandbox answers with).
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

export function defineResultFileCases(getSandbox: () => Sandbox): void {
	const sandboxOf = getSandbox;

	it('parses back to the input columns exactly, then the answer columns, other_fields and status; the summary counts the run', async () => {
		const sandbox = sandboxOf();
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
	});

	it("phone: the numbers of the first column, the chosen fields only, in the record's order", async () => {
		const sandbox = sandboxOf();
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
	});

	it('a row whose value is refused (Continue On Fail): its status says so, it is counted, and it is not sent', async () => {
		const sandbox = sandboxOf();
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
	});

	it('a row the service refuses (Continue On Fail): a service error in its status, the other rows answered', async () => {
		const sandbox = sandboxOf();
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
	});

	it('a file that breaks a rule is an error of its item, with no request and no file', async () => {
		const sandbox = sandboxOf();
		const { items, error } = await runEmailResult({
			sandbox,
			items: [csvItem('name,email\nAnn,ann@acme.io\n\nBob,bob@acme.io\n')],
		});
		expect(items).toEqual([]);
		expect(error?.message).toMatch(/row 3 is empty/);
		expect(error?.description).toMatch(/^No row of item 1's file was sent, so it cost no credit/);
		expect(sandbox.requests('email')).toEqual([]);
	});

	it('an invalid value without Continue On Fail stops the file before any request, naming the row as the file has it', async () => {
		const sandbox = sandboxOf();
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
	});

	it('the header is written before any answer: a file of many chunks comes out whole and in file order', async () => {
		const sandbox = sandboxOf();
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
	});

	it('one item per file: two files, two result items, each paired to its file', async () => {
		const sandbox = sandboxOf();
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
	});

	it('Continue (using error output): result files on the success output, with failed rows inside; a broken file on the error output', async () => {
		const sandbox = sandboxOf();
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
	});

	it('cells answered with values of every type: empty for null, JSON for arrays, true/false, numbers as written', () => {
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
	});
}

/** TRICKY_CSV with a node's values in place of the addresses: the same quoting, line ends and text around them. */
export function trickyCsv(node: FileNode): string {
	const value = (index: number) => node.value(index);
	return (
		`\ufeffname,${node.header},note\r\n` +
		`"Doe, Jane",${value(0)},"said ""call me""\r\nnext week"\r\n` +
		`Bob,${value(1)},\r\n` +
		`"Zoë ""Z"" Ünal","${value(2)}","北京 🚀\nline two"\r\n` +
		`Ann,${value(3)},plain,"an extra, unnamed cell"\n` +
		`"  spaced  ",${value(4)},"=1+2"`
	);
}

const TRICKY_ROWS = 5;
const NO_FAILURES = { invalidValue: 0, serviceError: 0, planRanOut: 0, keyRejected: 0 };

/**
 * The file cases of every node that gained a file input beside Email (csvHelpers' FILE_NODES): the
 * same reader and writer, so the same outcomes, each with its own values, column and record.
 */
export function defineFileNodeCases(getSandbox: () => Sandbox): void {
	describe.each(NEW_FILE_NODES.map((node) => [node.label, node] as const))('%s', (_label, node) => {
		const input = () =>
			oracleParse(trickyCsv(node), {
				bom: true,
				relax_column_count: true,
				record_delimiter: ['\r\n', '\n'],
			}) as string[][];

		it('a tricky file parses back to its cells, then the answer columns, other_fields and status', async () => {
			const sandbox = getSandbox();
			const { items, error } = await runResult(node, {
				sandbox,
				items: [csvItem(trickyCsv(node))],
			});
			expect(error).toBeUndefined();
			expect(items).toHaveLength(1);
			expect(items[0].pairedItem).toEqual({ item: 0 });
			const cells = input();
			const { header, rows } = await resultOf(items[0]);
			// An answer column named like an input column (ip_address, domain, iban, vat_number) gets _2.
			const answerHeader = node.answerColumns.map((column) =>
				cells[0].includes(column) ? `${column}_2` : column,
			);
			expect(header).toEqual([...cells[0], 'column4', ...answerHeader, 'other_fields', 'status']);
			expect(rows).toEqual(
				cells
					.slice(1)
					.map((row) => [
						...defused(row),
						...new Array<string>(4 - row.length).fill(''),
						...answerCells(node.record(row[1].trim()), node.answerColumns, node.answerColumns),
						'',
						'ok',
					]),
			);
			expect(items[0].json).toMatchObject({
				rows: TRICKY_ROWS,
				firstRow: 2,
				lastRow: 6,
				answered: TRICKY_ROWS,
				failed: NO_FAILURES,
				requestsSent: TRICKY_ROWS,
				requestsSaved: 0,
				nextRow: null,
				fileRows: TRICKY_ROWS,
			});
			expect(sentBy(node, sandbox).sort()).toEqual(
				cells
					.slice(1)
					.map((row) => row[1].trim())
					.sort(),
			);
		});

		it('one item per row: the record as it came, the row beside it, paired to the file item', async () => {
			const sandbox = getSandbox();
			const { items, error } = await runCsv(node, { sandbox, items: [csvItem(trickyCsv(node))] });
			expect(error).toBeUndefined();
			const cells = input();
			const names = [...cells[0], 'column4'];
			expect(items.map((item) => item.json)).toEqual(
				cells.slice(1).map((row, index) => ({
					...node.record(row[1].trim()),
					csvRow: {
						number: index + 2,
						columns: Object.fromEntries(row.map((cell, at) => [names[at], cell])),
					},
				})),
			);
			expect(items.every((item) => (item.pairedItem as { item: number }).item === 0)).toBe(true);
		});

		it('a value refused in the last row, or an empty row after it: the file is refused whole, no request sent', async () => {
			const sandbox = getSandbox();
			const refusedLast = `${trickyCsv(node)}\r\nLast,${node.refused},\r\n`;
			const refused = await runResult(node, { sandbox, items: [csvItem(refusedLast)] });
			expect(refused.items).toEqual([]);
			expect(refused.error?.message).toMatch(refusal(node, 7));
			expect(refused.error?.description).toMatch(/^Row 7 was not sent, so it cost no credit/);
			const empty = await runResult(node, {
				sandbox,
				items: [csvItem(`${trickyCsv(node)}\r\n\r\nLast,${node.value(9)},\r\n`)],
			});
			expect(empty.error?.message).toMatch(
				/row 7 \(line 9\) is empty: a bulk CSV file has no empty rows/,
			);
			expect(sandbox.requests(node.service)).toEqual([]);
		});

		it('Continue On Fail: the refused row says so in its status and is not sent; the others are answered', async () => {
			const sandbox = getSandbox();
			const csv = `name,${node.header}\nAnn,${node.value(0)}\nNobody,${node.refused}\nBob,${node.value(1)}\n`;
			const { items, error } = await runResult(node, {
				sandbox,
				items: [csvItem(csv)],
				continueOnFail: true,
			});
			expect(error).toBeUndefined();
			const { rows } = await resultOf(items[0]);
			expect(rows.map((row) => row[row.length - 1])).toEqual([
				'ok',
				expect.stringMatching(new RegExp(`^invalid value: ${refusal(node, 3).source.slice(1)}`)),
				'ok',
			]);
			expect(items[0].json).toMatchObject({
				rows: 3,
				answered: 2,
				failed: { ...NO_FAILURES, invalidValue: 1 },
				requestsSent: 2,
			});
			expect(sentBy(node, sandbox).sort()).toEqual([node.value(0), node.value(1)].sort());
		});

		it('Header Row Auto with a position: a first row holding a value is data, a first row of names a header', async () => {
			const sandbox = getSandbox();
			const headerless = await runCsv(node, {
				sandbox,
				items: [csvItem(`Ann,${node.value(0)}\nBob,${node.value(1)}\n`)],
				parameters: { [node.columnParameter]: '2' },
			});
			expect(headerless.error).toBeUndefined();
			expect(headerless.items.map((item) => item.json.csvRow)).toEqual([
				{ number: 1, columns: { column1: 'Ann', column2: node.value(0) } },
				{ number: 2, columns: { column1: 'Bob', column2: node.value(1) } },
			]);
			const headed = await runCsv(node, {
				sandbox,
				items: [csvItem(`name,${node.header}\nAnn,${node.value(0)}\n`)],
				parameters: { [node.columnParameter]: '2' },
			});
			expect(headed.items.map((item) => item.json.csvRow)).toEqual([
				{ number: 2, columns: { name: 'Ann', [node.header]: node.value(0) } },
			]);
		});
	});
}
