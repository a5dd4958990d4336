import { parse as oracleParse } from 'csv-parse/sync';
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { CsvParser, parseCsv } from '../../nodes/shared/csv/csv';
import { defuseFormula, undefuseFormula } from '../../nodes/shared/csv/formulas';
import { databaseFileName, databaseFileOf } from '../sandbox/ipDatabases/archives';
import { startSandbox, type Sandbox } from '../sandbox/server';
import { csvItem, FILE_NODES, runCsv, runPhoneCsv, sentBy, type CsvRun } from './csvHelpers';
import { lookUp } from './ipLookupHelpers';
import { csvText, excelEuropeanList, nastyLeadRecords, type NastyColumn } from './nastyLeads';
import { resultOf, RESULT } from './resultFileCases';

/**
 * The result file's form through n8n-core, for every node that writes one: formula defusing on by
 * default (the summary counts the cells it changed) and off on request, the byte order mark and
 * the delimiter of the input file kept by default or chosen, and every variant read back exactly
 * by the package's own reader and by csv-parse (the parser of n8n's Extract From File), the
 * defused cells undone by undefuseFormula as docs/bulk-csv.md describes.
 */

let sandbox: Sandbox;
beforeAll(async () => {
	sandbox = await startSandbox();
});
afterAll(async () => await sandbox.close());
beforeEach(() => sandbox.reset());
jest.setTimeout(120_000);

interface ResultNode extends NastyColumn {
	label: string;
	/** The value is the first column (Phone). */
	valueFirst: boolean;
	run(
		file: Buffer,
		options: IDataObject,
		continueOnFail?: boolean,
	): Promise<{ items: INodeExecutionData[]; error?: Error; requests: number }>;
}

const PHONE: ResultNode = {
	label: 'Phone',
	header: 'phone',
	value: (index) => `+1415200${7000 + index}`,
	valueFirst: true,
	async run(file, options, continueOnFail) {
		const result = await runPhoneCsv({
			sandbox,
			items: [csvItem(file)],
			parameters: RESULT,
			options,
			continueOnFail,
		});
		return { ...result, requests: sandbox.requests('phone').length };
	},
};

const SERVICE_NODES: ResultNode[] = FILE_NODES.map((node) => ({
	label: node.label,
	header: node.header,
	value: node.value,
	valueFirst: false,
	async run(file: Buffer, options: IDataObject, continueOnFail?: boolean) {
		const run: CsvRun = {
			sandbox,
			items: [csvItem(file)],
			parameters: RESULT,
			options,
			continueOnFail,
		};
		const result = await runCsv(node, run);
		return { ...result, requests: sentBy(node, sandbox).length };
	},
}));

const IP_LOOKUP: ResultNode = {
	label: 'IP Database Lookup',
	header: 'ip',
	value: FILE_NODES[1].value,
	valueFirst: false,
	async run(file, options, continueOnFail) {
		const result = await lookUp({
			file: {
				bytes: databaseFileOf('ip-geolocation', 'csv', 1),
				fileName: databaseFileName('ip-geolocation', 'csv'),
			},
			ips: [],
			csvFile: { bytes: file },
			parameters: { ...RESULT, addressColumn: 'ip', options },
			continueOnFail,
		});
		return { items: result.items, error: result.error, requests: 0 };
	},
};

const NODES = [PHONE, ...SERVICE_NODES, IP_LOOKUP];

const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

/** The result file as written, read by csv-parse and by the package's reader, which must agree. */
async function readBack(
	item: INodeExecutionData,
	delimiter: string,
): Promise<{ header: string[]; rows: string[][]; bytes: Buffer }> {
	const { header, rows, bytes } = await resultOf(item, 'result', delimiter);
	expect(parseCsv(bytes, { delimiter: 'detect' }).map((row) => row.fields)).toEqual([
		header,
		...rows,
	]);
	return { header, rows, bytes };
}

/** Cells the file holds with an apostrophe put in front. */
const defusedIn = (records: string[][]) =>
	records.flat().filter((cell) => undefuseFormula(cell) !== cell).length;

describe.each(NODES.map((node) => [node.label, node] as const))(
	'%s: Output Result File',
	(_label, node) => {
		const records = nastyLeadRecords(node, 40, node.valueFirst);

		it('defuses by default: every input cell as written, with an apostrophe where a spreadsheet would run it; the summary counts them', async () => {
			const { items, error } = await node.run(csvText(records), {});
			expect(error).toBeUndefined();
			const { header, rows, bytes } = await readBack(items[0], ',');
			expect(bytes.subarray(0, 3).equals(BOM)).toBe(false);
			const width = records[0].length;
			expect(header.slice(0, width)).toEqual(records[0].map(defuseFormula));
			expect(rows.map((row) => row.slice(0, width))).toEqual(
				records.slice(1).map((record) => record.map(defuseFormula)),
			);
			expect(rows.map((row) => row.slice(0, width).map(undefuseFormula))).toEqual(records.slice(1));
			expect(rows.every((row) => row[row.length - 1] === 'ok')).toBe(true);
			const inInput = records.flat().filter((cell) => defuseFormula(cell) !== cell).length;
			expect(inInput).toBeGreaterThan(40);
			expect(items[0].json.defusedCells).toBe(defusedIn([header, ...rows]));
			expect(items[0].json.defusedCells).toBeGreaterThanOrEqual(inInput);
		});

		it('Defuse Formulas off: every cell exactly as in the input, none counted', async () => {
			const { items, error } = await node.run(csvText(records), { defuseFormulas: false });
			expect(error).toBeUndefined();
			const { header, rows } = await readBack(items[0], ',');
			const width = records[0].length;
			expect([header.slice(0, width), ...rows.map((row) => row.slice(0, width))]).toEqual(records);
			expect(items[0].json.defusedCells).toBe(0);
		});

		it('an Excel-exported European list (byte order mark, semicolons) comes back with both, every accented name as written', async () => {
			const input = excelEuropeanList(node, 40, node.valueFirst);
			const { items, error } = await node.run(input, {});
			expect(error).toBeUndefined();
			const { header, rows, bytes } = await readBack(items[0], ';');
			expect(bytes.subarray(0, 3).equals(BOM)).toBe(true);
			const parser = new CsvParser(() => undefined, { delimiter: 'detect' });
			parser.push(bytes);
			parser.end();
			expect(String.fromCharCode(parser.delimiter)).toBe(';');
			const cells = oracleParse(input, { bom: true, delimiter: ';' }) as string[][];
			expect(header.slice(0, 3)).toEqual(cells[0]);
			// The amounts (-0,5 as Excel writes a signed number with a decimal comma) are data: left as they are.
			expect(rows.map((row) => row.slice(0, 3))).toEqual(cells.slice(1));
			expect(items[0].json).toMatchObject({ rows: 40, answered: 40, defusedCells: 0 });
		});

		it('a byte order mark and a tab chosen for a plain comma file', async () => {
			const { items, error } = await node.run(csvText(records), {
				byteOrderMark: 'yes',
				resultDelimiter: 'tab',
			});
			expect(error).toBeUndefined();
			const { rows, bytes } = await readBack(items[0], '\t');
			expect(bytes.subarray(0, 3).equals(BOM)).toBe(true);
			expect(rows.map((row) => row.slice(0, 5).map(undefuseFormula))).toEqual(records.slice(1));
		});
	},
);

describe('Email: every variant of the form reads back exactly', () => {
	const email = SERVICE_NODES[0];
	const records = nastyLeadRecords(email, 40);
	const variants = (['sameAsInput', 'comma', 'semicolon', 'tab'] as const).flatMap((delimiter) =>
		(['sameAsInput', 'yes', 'no'] as const).flatMap((byteOrderMark) =>
			[true, false].map((defuseFormulas) => [delimiter, byteOrderMark, defuseFormulas] as const),
		),
	);

	it.each(variants)(
		'delimiter %s, byte order mark %s, defuse %s (input: semicolons and a byte order mark)',
		async (delimiter, byteOrderMark, defuseFormulas) => {
			const { items, error } = await email.run(csvText(records, ';', true), {
				resultDelimiter: delimiter,
				byteOrderMark,
				defuseFormulas,
			});
			expect(error).toBeUndefined();
			const written = { sameAsInput: ';', comma: ',', semicolon: ';', tab: '\t' }[delimiter];
			const { header, rows, bytes } = await readBack(items[0], written);
			expect(bytes.subarray(0, 3).equals(BOM)).toBe(byteOrderMark !== 'no');
			const input = [header.slice(0, 5), ...rows.map((row) => row.slice(0, 5))];
			expect(input).toEqual(
				defuseFormulas ? records.map((record) => record.map(defuseFormula)) : records,
			);
			if (defuseFormulas)
				expect(input.map((record) => record.map(undefuseFormula))).toEqual(records);
		},
	);

	it('a value no option knows: an error naming the field and its values, before any request', async () => {
		const { items, error, requests } = await email.run(csvText(records), {
			resultDelimiter: 'pipe',
		});
		expect(items).toEqual([]);
		expect(error?.message).toBe(
			'Invalid Result File Delimiter (resultDelimiter): must be sameAsInput, comma, semicolon or tab, got "pipe"',
		);
		expect(requests).toBe(0);
		const input = await email.run(csvText(records), { delimiter: 'pipe' });
		expect(input.error?.message).toBe(
			'Invalid Delimiter (delimiter): must be detect, comma, semicolon or tab, got "pipe"',
		);
		expect(input.requests).toBe(0);
	});

	it('One Item per Row reads a semicolon file by its own delimiter', async () => {
		const { items, error } = await runCsv(FILE_NODES[0], {
			sandbox,
			items: [csvItem(excelEuropeanList(email, 2))],
		});
		expect(error).toBeUndefined();
		expect(items.map((item) => item.json.csvRow)).toEqual([
			{ number: 2, columns: { Name: 'Müller', email: email.value(0), Betrag: '-0,5' } },
			{ number: 3, columns: { Name: 'Zoë Ångström', email: email.value(1), Betrag: '-1,5' } },
		]);
	});
});

describe('IP Database Lookup: a bad form option', () => {
	it('is an error of the whole file, which says no row was looked up', async () => {
		const { items, error } = await IP_LOOKUP.run(csvText(nastyLeadRecords(IP_LOOKUP, 3)), {
			byteOrderMark: 'maybe',
		});
		expect(items).toEqual([]);
		expect(error?.message).toBe(
			'Invalid Byte Order Mark (byteOrderMark): must be sameAsInput, yes or no, got "maybe"',
		);
		expect((error as Error & { description?: string }).description).toBe(
			"No row of item 1's file was looked up. Fix the file or the parameter and run again.",
		);
	});
});
