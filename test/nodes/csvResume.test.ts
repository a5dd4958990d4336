import { startSandbox, type Sandbox } from '../sandbox/server';
import { csvItem, NEW_FILE_NODES, rowsCsv, sentBy } from './csvHelpers';
import { resultOf, runEmailResult, runResult, sentValues } from './resultFileCases';

/**
 * A plan that runs out in the middle of a file (the engine stops sending), and the file
 * finished by a second run from the summary's next row; and a file whose rows repeat values,
 * sent once per distinct value. Rows are numbered as the file has them: this file has no header
 * row, so row N is the N-th lead.
 */
let sandbox: Sandbox;
beforeAll(async () => {
	sandbox = await startSandbox();
});
afterAll(async () => await sandbox.close());
beforeEach(() => sandbox.reset());

const address = (row: number) => `lead${row}@example.com`;
const headerless = (count: number) =>
	Array.from(
		{ length: count },
		(_, index) => `"Lead ${index + 1}, Esq.",${address(index + 1)}\r\n`,
	).join('');
const parameters = { emailColumn: '2' };
const options = { headerRow: 'no' };

describe('a plan that runs out at row 300 of 1,000, and the second run', () => {
	it('rows 1-300 answered, the rest not sent, next row 301; the second run from 301 finishes with no row sent twice', async () => {
		const file = csvItem(headerless(1000));
		sandbox.setQuota('email', 300);
		const first = await runEmailResult({
			sandbox,
			items: [file],
			parameters,
			options,
			continueOnFail: true,
		});
		expect(first.error).toBeUndefined();
		const firstRows = (await resultOf(first.items[0])).rows;
		expect(firstRows).toHaveLength(1000);
		const status = (row: string[]) => row[row.length - 1];
		expect(firstRows.slice(0, 300).every((row) => status(row) === 'ok')).toBe(true);
		expect(firstRows.slice(300).every((row) => /plan's credits ran out/.test(status(row)))).toBe(
			true,
		);
		expect(firstRows.slice(300).every((row) => row.slice(2, -1).every((cell) => cell === ''))).toBe(
			true,
		);
		expect(first.items[0].json).toMatchObject({
			rows: 1000,
			answered: 300,
			failed: { invalidValue: 0, serviceError: 0, planRanOut: 700 },
			nextRow: 301,
		});
		const answeredFirst = new Set(
			sandbox
				.requests('email')
				.filter((request) => request.status === 200)
				.map((request) => String(request.fields.email ?? request.query.email)),
		);
		expect(answeredFirst).toEqual(
			new Set(Array.from({ length: 300 }, (_, index) => address(index + 1))),
		);

		sandbox.reset();
		const second = await runEmailResult({
			sandbox,
			items: [file],
			parameters,
			options: { ...options, startAtRow: first.items[0].json.nextRow },
			continueOnFail: true,
		});
		expect(second.error).toBeUndefined();
		const secondRows = (await resultOf(second.items[0])).rows;
		expect(secondRows.map((row) => row[1])).toEqual(
			Array.from({ length: 700 }, (_, index) => address(index + 301)),
		);
		expect(secondRows.every((row) => status(row) === 'ok')).toBe(true);
		expect(second.items[0].json).toMatchObject({
			rows: 700,
			firstRow: 301,
			lastRow: 1000,
			answered: 700,
			requestsSent: 700,
			nextRow: null,
		});
		const sentSecond = sentValues(sandbox, 'email');
		expect(sentSecond.filter((value) => answeredFirst.has(value))).toEqual([]);
		expect(sentSecond).toHaveLength(700);
	});
});

describe('rows that repeat a value', () => {
	it('send one request per distinct value; every row gets the answer; the summary counts the requests saved', async () => {
		const csv = 'email\nann@acme.io\nbob@acme.io\nann@acme.io\nann@acme.io\nbob@acme.io\n';
		const { items, error } = await runEmailResult({ sandbox, items: [csvItem(csv)] });
		expect(error).toBeUndefined();
		const { rows } = await resultOf(items[0]);
		expect(rows.map((row) => [row[0], row[1], row[row.length - 1]])).toEqual([
			['ann@acme.io', 'ann@acme.io', 'ok'],
			['bob@acme.io', 'bob@acme.io', 'ok'],
			['ann@acme.io', 'ann@acme.io', 'ok'],
			['ann@acme.io', 'ann@acme.io', 'ok'],
			['bob@acme.io', 'bob@acme.io', 'ok'],
		]);
		expect(items[0].json).toMatchObject({
			rows: 5,
			answered: 5,
			requestsSent: 2,
			requestsSaved: 3,
		});
		expect(sentValues(sandbox, 'email').sort()).toEqual(['ann@acme.io', 'bob@acme.io']);
	});
});

describe('a result file under the default On Error setting', () => {
	it('still comes out when the plan runs out: the rows not sent say so, and the summary gives the row to start from', async () => {
		sandbox.setQuota('email', 300);
		const run = await runEmailResult({
			sandbox,
			items: [csvItem(headerless(1000))],
			parameters,
			options,
		});
		expect(run.error).toBeUndefined();
		expect(run.items[0].json).toMatchObject({ rows: 1000, answered: 300, nextRow: 301 });
		const { rows } = await resultOf(run.items[0]);
		expect(rows.slice(300).every((row) => /plan's credits ran out/.test(row[row.length - 1]))).toBe(
			true,
		);
	});

	it('a rejected key stops the sending after one request: every other row is not sent, and costs nothing', async () => {
		const run = await runEmailResult({
			sandbox,
			items: [csvItem(headerless(50))],
			parameters,
			options,
			credential: { apiKey: sandbox.keys.phone, requestsPerSecond: 1 },
		});
		expect(run.error).toBeUndefined();
		expect(sandbox.requests('email')).toHaveLength(1);
		expect(run.items[0].json).toMatchObject({
			rows: 50,
			answered: 0,
			failed: { serviceError: 0, keyRejected: 50 },
			requestsSent: 1,
			nextRow: 1,
		});
		expect((await resultOf(run.items[0])).rows[0].at(-1)).toMatch(
			/^not answered: the API key was rejected \(The API key was rejected \(401\)/,
		);
		const { rows } = await resultOf(run.items[0]);
		expect(rows[1][rows[1].length - 1]).toBe('not sent: the API key was rejected (no credit used)');
	});
});

describe('two files in one run', () => {
	it("each summary counts its own file's requests and the requests its repeats saved", async () => {
		const run = await runEmailResult({
			sandbox,
			items: [
				csvItem('email\nann@acme.io\nann@acme.io\nbob@acme.io\n'),
				csvItem('email\ncy@acme.io\n'),
			],
		});
		expect(run.error).toBeUndefined();
		expect(run.items.map((item) => [item.json.requestsSent, item.json.requestsSaved])).toEqual([
			[2, 1],
			[1, 0],
		]);
	});
});

describe.each(NEW_FILE_NODES.map((node) => [node.label, node] as const))(
	'%s: a plan that runs out at row 31 of 100, and the second run',
	(_label, node) => {
		it('rows 2-31 answered, the rest not sent, next row 32; the second run from 32 finishes with no row sent twice', async () => {
			const file = csvItem(rowsCsv(node, 100));
			sandbox.setQuota(node.service, 30);
			const first = await runResult(node, { sandbox, items: [file] });
			expect(first.error).toBeUndefined();
			const firstRows = (await resultOf(first.items[0])).rows;
			const status = (row: string[]) => row[row.length - 1];
			expect(firstRows.slice(0, 30).every((row) => status(row) === 'ok')).toBe(true);
			expect(firstRows.slice(30).every((row) => /plan's credits ran out/.test(status(row)))).toBe(
				true,
			);
			expect(first.items[0].json).toMatchObject({
				rows: 100,
				answered: 30,
				failed: { planRanOut: 70 },
				nextRow: 32,
			});
			const answeredFirst = new Set(
				sandbox
					.requests(node.service)
					.filter((request) => request.status === 200)
					.map(node.sent),
			);
			expect(answeredFirst).toEqual(
				new Set(Array.from({ length: 30 }, (_, index) => node.value(index))),
			);

			sandbox.reset();
			const second = await runResult(node, {
				sandbox,
				items: [file],
				options: { startAtRow: first.items[0].json.nextRow },
			});
			expect(second.error).toBeUndefined();
			expect((await resultOf(second.items[0])).rows.map((row) => row[1])).toEqual(
				Array.from({ length: 70 }, (_, index) => node.value(index + 30)),
			);
			expect(second.items[0].json).toMatchObject({
				rows: 70,
				firstRow: 32,
				lastRow: 101,
				answered: 70,
				requestsSent: 70,
				nextRow: null,
			});
			const sentSecond = sentBy(node, sandbox);
			expect(sentSecond.filter((value) => answeredFirst.has(value))).toEqual([]);
			expect(sentSecond).toHaveLength(70);
		});
	},
);

describe.each(NEW_FILE_NODES.map((node) => [node.label, node] as const))(
	'%s: rows that repeat a value',
	(_label, node) => {
		it('send one request per distinct value (Send Repeated Values Once); off, one per row', async () => {
			const csv = `${node.header}\n${[0, 1, 0, 0, 1].map((index) => node.value(index)).join('\n')}\n`;
			const once = await runResult(node, { sandbox, items: [csvItem(csv)] });
			expect(once.items[0].json).toMatchObject({
				rows: 5,
				answered: 5,
				requestsSent: 2,
				requestsSaved: 3,
			});
			sandbox.reset();
			const each = await runResult(node, {
				sandbox,
				items: [csvItem(csv)],
				options: { sendRepeatsOnce: false },
			});
			expect(each.items[0].json).toMatchObject({
				rows: 5,
				answered: 5,
				requestsSent: 5,
				requestsSaved: 0,
			});
			expect(sentBy(node, sandbox)).toHaveLength(5);
		});
	},
);
