import { parse as oracleParse } from 'csv-parse/sync';

import {
	cellOf,
	EMAIL_ANSWER_COLUMNS,
	PHONE_ANSWER_COLUMNS,
} from '../../nodes/shared/csv/answerColumns';
import { BINARY_MODES, useBinaryMode } from '../harness/run';
import { startSandbox, type Sandbox } from '../sandbox/server';
import { emailRecord } from '../sandbox/services/email';
import { phoneRecord } from '../sandbox/services/phone';
import { csvItem, leadsCsv } from './csvHelpers';
import {
	answerCells,
	defused,
	resultOf,
	runEmailResult,
	runPhoneResult,
	sentValues,
	TRICKY_CSV,
} from './resultFileCases';

/**
 * Output "Result File" of Email and Phone, in n8n's two binary modes: memory, where n8n keeps
 * files in the items, and filesystem, where the input file is read as a stream from n8n's binary
 * store (twice: the check, then the rows) and the result file is handed to n8n as a stream, which
 * n8n writes to its store. The other nodes that take a file: csvResultFileNodes.test.ts.
 */
let sandbox: Sandbox;
beforeAll(async () => {
	sandbox = await startSandbox();
});
afterAll(async () => await sandbox.close());
beforeEach(() => sandbox.reset());

describe.each(BINARY_MODES)('CSV input, Output: Result File (%s binary mode)', (mode) => {
	beforeAll(async () => await useBinaryMode(mode));

	it('parses back to the input columns exactly, then the answer columns, other_fields and status; the summary counts the run', async () => {
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
	});

	it("phone: the numbers of the first column, the chosen fields only, in the record's order", async () => {
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
});

describe('CSV input, Output: Result File, filesystem binary mode only', () => {
	beforeAll(async () => await useBinaryMode('filesystem'));

	it("stores the result file in n8n's binary store, not in the item", async () => {
		const { items, error } = await runEmailResult({ sandbox, items: [csvItem(leadsCsv(3000))] });
		expect(error).toBeUndefined();
		const binary = items[0].binary?.result;
		expect(binary?.id).toMatch(/^filesystem/);
		expect(binary?.data).not.toMatch(/[A-Za-z0-9+/]{100}/);
		const { rows, bytes } = await resultOf(items[0]);
		expect(binary?.bytes).toBe(bytes.length);
		expect(rows).toHaveLength(3000);
	});
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
