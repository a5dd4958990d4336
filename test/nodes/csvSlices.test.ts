import type { IDataObject } from 'n8n-workflow';

import { startSandbox, type Sandbox } from '../sandbox/server';
import {
	csvItem,
	leadsCsv,
	NEW_FILE_NODES,
	refusal,
	rowsCsv,
	runEmailCsv,
	sentBy,
} from './csvHelpers';
import { resultOf, runEmailResult, runResult, sentValues } from './resultFileCases';

/**
 * Start at Row and At Most Rows: a slice of a file per execution, in both outputs. Rows are
 * numbered as the file has them (a header row is row 1, as a spreadsheet shows it); the whole
 * file's rules are still checked before any request, and the values of the slice's rows.
 */
let sandbox: Sandbox;
beforeAll(async () => {
	sandbox = await startSandbox();
});
afterAll(async () => await sandbox.close());
beforeEach(() => sandbox.reset());

const lead = (row: number) => `lead${row - 1}@example.com`; // leadsCsv: row 2 holds lead1
const rowsOf = (items: Array<{ json: IDataObject }>) =>
	items.map((item) => (item.json.csvRow as { number: number }).number);

describe('a slice of the file, as items', () => {
	it('Start at Row and At Most Rows choose the rows that are sent', async () => {
		const { items, error } = await runEmailCsv({
			sandbox,
			items: [csvItem(leadsCsv(10))],
			options: { startAtRow: 5, maxRows: 3 },
		});
		expect(error).toBeUndefined();
		expect(rowsOf(items)).toEqual([5, 6, 7]);
		expect(items.map((item) => item.json.email_address)).toEqual([lead(5), lead(6), lead(7)]);
		expect(sentValues(sandbox, 'email').sort()).toEqual([lead(5), lead(6), lead(7)]);
	});

	it('row 1 (the default) is the header row here: the slice starts at the first data row', async () => {
		const { items } = await runEmailCsv({
			sandbox,
			items: [csvItem(leadsCsv(4))],
			options: { startAtRow: 1, maxRows: 2 },
		});
		expect(rowsOf(items)).toEqual([2, 3]);
	});

	it("At Most Rows beyond the file's end sends to its last row", async () => {
		const { items } = await runEmailCsv({
			sandbox,
			items: [csvItem(leadsCsv(10))],
			options: { startAtRow: 9, maxRows: 100 },
		});
		expect(rowsOf(items)).toEqual([9, 10, 11]);
	});
});

describe('a slice of the file, as a result file', () => {
	it("holds the slice's rows; the summary gives the row to start from next", async () => {
		const { items, error } = await runEmailResult({
			sandbox,
			items: [csvItem(leadsCsv(10))],
			options: { startAtRow: 5, maxRows: 3 },
		});
		expect(error).toBeUndefined();
		const { rows } = await resultOf(items[0]);
		expect(rows.map((row) => row[1])).toEqual([lead(5), lead(6), lead(7)]);
		expect(items[0].json).toMatchObject({
			rows: 3,
			firstRow: 5,
			lastRow: 7,
			answered: 3,
			requestsSent: 3,
			nextRow: 8,
			stoppedBy: 'atMostRows',
			fileRows: 10,
		});
	});

	it("a file worked through in slices, each run starting at the last one's nextRow: every row answered once", async () => {
		const file = csvItem(leadsCsv(10));
		const answered: string[] = [];
		let startAtRow: number | null = 1;
		let runs = 0;
		while (startAtRow !== null) {
			const { items, error } = await runEmailResult({
				sandbox,
				items: [file],
				options: { startAtRow, maxRows: 4 },
			});
			expect(error).toBeUndefined();
			answered.push(...(await resultOf(items[0])).rows.map((row) => row[1]));
			startAtRow = items[0].json.nextRow as number | null;
			runs++;
		}
		expect(runs).toBe(3);
		expect(answered).toEqual(Array.from({ length: 10 }, (_, index) => lead(index + 2)));
		expect(sentValues(sandbox, 'email')).toHaveLength(10);
	});
});

describe("a slice does not skip the whole file's rules", () => {
	const refused = async (csv: string, options: IDataObject) => {
		const { items, error } = await runEmailResult({ sandbox, items: [csvItem(csv)], options });
		expect(items).toEqual([]);
		expect(sandbox.requests('email')).toEqual([]);
		return error;
	};

	it('an empty row after the slice', async () => {
		const error = await refused(`${leadsCsv(10)}\n`, { startAtRow: 2, maxRows: 3 });
		expect(error?.message).toMatch(/row 12 is empty/);
	});

	it('more than 50,000 rows, the slice being the first three', async () => {
		const error = await refused(leadsCsv(50_001), { maxRows: 3 });
		expect(error?.message).toMatch(/more than 50,000 rows/);
	});

	it('a row without the column, before the slice', async () => {
		const error = await refused('name,email\nAnn\nBob,bob@acme.io\nCy,cy@acme.io\n', {
			startAtRow: 3,
		});
		expect(error?.message).toMatch(/row 2 has no column 2 \("email"\)/);
	});

	it('a start past the last row is an error that says the file is done, naming the option', async () => {
		const error = await refused(leadsCsv(3), { startAtRow: 5 });
		expect(error?.message).toBe(
			"Invalid Start at Row (startAtRow): row 5 is past the file's last row (row 4): there is nothing left to send in this file",
		);
		expect(error?.description).toMatch(/^No row of item 1's file was sent/);
	});

	it('a start or a count that is not a whole number from 1', async () => {
		expect((await refused(leadsCsv(3), { startAtRow: 0 }))?.message).toMatch(
			/Invalid Start at Row \(startAtRow\): must be a whole number from 1, got 0/,
		);
		expect((await refused(leadsCsv(3), { maxRows: 2.5 }))?.message).toMatch(
			/Invalid At Most Rows \(maxRows\): must be a whole number from 1, got 2.5/,
		);
	});

	it("an empty start (a done file's nextRow is null) is an error, not the file's first row again", async () => {
		const error = await refused(leadsCsv(3), { startAtRow: null });
		expect(error?.message).toMatch(
			/^Invalid Start at Row \(startAtRow\): is empty: .*nextRow is null when the file is done/,
		);
	});

	it('but a value outside the slice is not checked: it is not sent in this run', async () => {
		const { items, error } = await runEmailResult({
			sandbox,
			items: [csvItem('name,email\nAnn,ann@acme.io\nNobody,\n')],
			options: { maxRows: 1 },
		});
		expect(error).toBeUndefined();
		expect(items[0].json).toMatchObject({ rows: 1, answered: 1, nextRow: 3 });
	});
});

describe.each(NEW_FILE_NODES.map((node) => [node.label, node] as const))(
	'%s: slices and the row limit',
	(_label, node) => {
		it("a file worked through in slices of 4, each run starting at the last one's nextRow: every row answered once", async () => {
			const file = csvItem(rowsCsv(node, 10));
			const answered: string[] = [];
			let startAtRow: number | null = 1;
			const slices: unknown[] = [];
			while (startAtRow !== null) {
				const { items, error } = await runResult(node, {
					sandbox,
					items: [file],
					options: { startAtRow, maxRows: 4 },
				});
				expect(error).toBeUndefined();
				answered.push(...(await resultOf(items[0])).rows.map((row) => row[1]));
				slices.push([items[0].json.firstRow, items[0].json.lastRow]);
				startAtRow = items[0].json.nextRow as number | null;
			}
			expect(slices).toEqual([
				[2, 5],
				[6, 9],
				[10, 11],
			]);
			expect(answered).toEqual(Array.from({ length: 10 }, (_, index) => node.value(index)));
			expect(sentBy(node, sandbox)).toHaveLength(10);
		});

		it('more than 50,000 rows are refused before any request, the slice being the first three', async () => {
			const { items, error } = await runResult(node, {
				sandbox,
				items: [csvItem(rowsCsv(node, 50_001))],
				options: { maxRows: 3 },
			});
			expect(items).toEqual([]);
			expect(error?.message).toMatch(
				/more than 50,000 rows \(row 50002 is row 50,001 of data\); split it into files of at most 50,000 rows/,
			);
			expect(sandbox.requests(node.service)).toEqual([]);
		});

		it('a value outside the slice is not checked (it is not sent in this run); one inside is', async () => {
			const csv = `name,${node.header}\nAnn,${node.value(0)}\nNobody,${node.refused}\n`;
			const first = await runResult(node, {
				sandbox,
				items: [csvItem(csv)],
				options: { maxRows: 1 },
			});
			expect(first.items[0].json).toMatchObject({ rows: 1, answered: 1, nextRow: 3 });
			const second = await runResult(node, {
				sandbox,
				items: [csvItem(csv)],
				options: { startAtRow: 3 },
			});
			expect(second.error?.message).toMatch(refusal(node, 3));
			expect(sentBy(node, sandbox)).toEqual([node.value(0)]);
		});
	},
);
