import { parse as oracleParse } from 'csv-parse/sync';

import { BINARY_MODES, useBinaryMode } from '../harness/run';
import { startSandbox, type Sandbox } from '../sandbox/server';
import { csvItem, NEW_FILE_NODES, refusal, runCsv, sentBy, type FileNode } from './csvHelpers';
import { answerCells, defused, resultOf, runResult } from './resultFileCases';

/**
 * Output "Result File" and One Item per Row for every node that gained a file input beside Email
 * (csvHelpers' NEW_FILE_NODES): the same reader and writer as Email's, so the same outcomes, each
 * with its own values, column and record, in n8n's two binary modes.
 */
let sandbox: Sandbox;
beforeAll(async () => {
	sandbox = await startSandbox();
});
afterAll(async () => await sandbox.close());
beforeEach(() => sandbox.reset());

/** TRICKY_CSV with a node's values in place of the addresses: the same quoting, line ends and text around them. */
function trickyCsv(node: FileNode): string {
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

/** A node's tricky file as csv-parse reads it: the header, then the rows. */
const inputCells = (node: FileNode) =>
	oracleParse(trickyCsv(node), {
		bom: true,
		relax_column_count: true,
		record_delimiter: ['\r\n', '\n'],
	}) as string[][];

describe.each(BINARY_MODES)('CSV input of the other nodes (%s binary mode)', (mode) => {
	beforeAll(async () => await useBinaryMode(mode));

	describe.each(NEW_FILE_NODES.map((node) => [node.label, node] as const))('%s', (_label, node) => {
		it('a tricky file parses back to its cells, then the answer columns, other_fields and status', async () => {
			const { items, error } = await runResult(node, {
				sandbox,
				items: [csvItem(trickyCsv(node))],
			});
			expect(error).toBeUndefined();
			expect(items).toHaveLength(1);
			expect(items[0].pairedItem).toEqual({ item: 0 });
			const cells = inputCells(node);
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
			const { items, error } = await runCsv(node, { sandbox, items: [csvItem(trickyCsv(node))] });
			expect(error).toBeUndefined();
			const cells = inputCells(node);
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
});
