import type { IDataObject } from 'n8n-workflow';

import { startSandbox, type Sandbox } from '../sandbox/server';
import { csvItem, FILE_NODES, runCsv, runPhoneCsv, sentBy, type FileNode } from './csvHelpers';
import { resultOf } from './resultFileCases';

/**
 * Files whose delimiter a first-row guess gets wrong, through Phone (its first column), Email and
 * IP Geolocation (a chosen column), run through n8n-core against the sandbox: each is read as
 * written (the requests carry exactly the values, the rows their cells), or refused before any
 * request with an error naming the delimiters. A semicolon file with commas in its header, a
 * headerless one with a decimal comma or a comma in a name, a tab file with a comma in a name,
 * a `sep=;` first line; the Delimiter option; the delimiter named in column errors and the summary.
 */

let sandbox: Sandbox;
beforeAll(async () => {
	sandbox = await startSandbox();
});
afterAll(async () => await sandbox.close());
beforeEach(() => sandbox.reset());
jest.setTimeout(60_000);

interface Reader {
	label: string;
	/** The `index`-th value the node sends. */
	value(index: number): string;
	/** Runs the node over the file, its column named `column` (Phone reads its first column whatever it is). */
	run(
		file: string,
		column: string,
		options?: IDataObject,
		parameters?: IDataObject,
	): ReturnType<typeof runPhoneCsv>;
	sent(): string[];
}

const columnNode = (node: FileNode): Reader => ({
	label: node.label,
	value: node.value,
	run: (file, column, options = {}, parameters = {}) =>
		runCsv(node, {
			sandbox,
			items: [csvItem(file)],
			parameters: { [node.columnParameter]: column, ...parameters },
			options,
		}),
	sent: () => sentBy(node, sandbox),
});

const READERS: Reader[] = [
	{
		label: 'Phone',
		value: (index) => `+4930${1234560 + index}`,
		run: (file, _column, options = {}, parameters = {}) =>
			runPhoneCsv({ sandbox, items: [csvItem(file)], parameters, options }),
		sent: () =>
			sandbox
				.requests('phone')
				.map((request) => String(request.fields.phone ?? request.query.phone)),
	},
	columnNode(FILE_NODES[0]),
	columnNode(FILE_NODES[1]),
];

/** A misread file: its text for a node's two values, the column it names, and the two rows as they must come out. */
interface Case {
	name: string;
	file(value: (index: number) => string): string;
	column: string;
	rows(value: (index: number) => string): Array<{ number: number; columns: IDataObject }>;
}

const CASES: Case[] = [
	{
		name: 'a semicolon file with commas in its header and a decimal comma',
		file: (v) =>
			`Wert;Name, Vorname;Umsatz (EUR, netto)\n${v(0)};Müller, Hans;12,50\n${v(1)};Schmidt, Eva;7,25\n`,
		column: 'Wert',
		rows: (v) => [
			{
				number: 2,
				columns: { Wert: v(0), 'Name, Vorname': 'Müller, Hans', 'Umsatz (EUR, netto)': '12,50' },
			},
			{
				number: 3,
				columns: { Wert: v(1), 'Name, Vorname': 'Schmidt, Eva', 'Umsatz (EUR, netto)': '7,25' },
			},
		],
	},
	{
		name: 'a headerless semicolon file with a decimal comma',
		file: (v) => `${v(0)};Müller;12,50\n${v(1)};Schulz;3,10\n`,
		column: '1',
		rows: (v) => [
			{ number: 1, columns: { column1: v(0), column2: 'Müller', column3: '12,50' } },
			{ number: 2, columns: { column1: v(1), column2: 'Schulz', column3: '3,10' } },
		],
	},
	{
		name: 'a headerless semicolon file with a comma in a name',
		file: (v) => `${v(0)};Müller, Hans\n${v(1)};Schulz, Eva\n`,
		column: '1',
		rows: (v) => [
			{ number: 1, columns: { column1: v(0), column2: 'Müller, Hans' } },
			{ number: 2, columns: { column1: v(1), column2: 'Schulz, Eva' } },
		],
	},
	{
		name: 'a headerless tab file with a comma in a name',
		file: (v) => `${v(0)}\tDoe, Jane\n${v(1)}\tRoe, Max\n`,
		column: '1',
		rows: (v) => [
			{ number: 1, columns: { column1: v(0), column2: 'Doe, Jane' } },
			{ number: 2, columns: { column1: v(1), column2: 'Roe, Max' } },
		],
	},
	{
		name: 'a first line sep=; (as Excel writes it), honoured and not a row',
		file: (v) => `sep=;\r\nWert;Name\r\n${v(0)};Müller, Hans\r\n${v(1)};Schulz\r\n`,
		column: 'Wert',
		rows: (v) => [
			{ number: 2, columns: { Wert: v(0), Name: 'Müller, Hans' } },
			{ number: 3, columns: { Wert: v(1), Name: 'Schulz' } },
		],
	},
];

describe.each(READERS.map((reader) => [reader.label, reader] as const))(
	'%s reads each file as written',
	(_label, reader) => {
		it.each(CASES.map((entry) => [entry.name, entry] as const))('%s', async (_name, entry) => {
			const { items, error } = await reader.run(entry.file(reader.value), entry.column);
			expect(error).toBeUndefined();
			expect(reader.sent().sort()).toEqual([reader.value(0), reader.value(1)].sort());
			expect(items.map((item) => item.json.csvRow)).toEqual(entry.rows(reader.value));
		});

		it('a file two delimiters fit equally is refused before any request, naming both; Delimiter reads it', async () => {
			const file = `${reader.value(0)};Müller,Hans\n${reader.value(1)};Schulz,Eva\n`;
			const refused = await reader.run(file, '1');
			expect(refused.items).toEqual([]);
			expect(refused.error?.message).toBe(
				'Invalid CSV file in Input Binary Field (binaryPropertyName): its delimiter cannot be told from its first 2 rows: read with a comma or with a semicolon, each has 2 columns. Set Options > Delimiter to the one the file uses',
			);
			expect(reader.sent()).toEqual([]);
			const { items, error } = await reader.run(file, '1', { delimiter: 'semicolon' });
			expect(error).toBeUndefined();
			expect(reader.sent().sort()).toEqual([reader.value(0), reader.value(1)].sort());
			expect(items.map((item) => (item.json.csvRow as IDataObject).columns)).toEqual([
				{ column1: reader.value(0), column2: 'Müller,Hans' },
				{ column1: reader.value(1), column2: 'Schulz,Eva' },
			]);
		});

		it('the result file summary names the delimiter and where it came from', async () => {
			const file = CASES[4].file(reader.value);
			const { items, error } = await reader.run(
				file,
				'Wert',
				{},
				{ output: 'resultFile', resultBinaryPropertyName: 'result' },
			);
			expect(error).toBeUndefined();
			expect(items[0].json).toMatchObject({
				rows: 2,
				firstRow: 2,
				nextRow: null,
				delimiter: 'semicolon',
				delimiterFrom: 'sepLine',
			});
			// Written with the input's delimiter (Result File Delimiter: Same as Input File), no sep= line.
			const { header } = await resultOf(items[0], 'result', ';');
			expect(header.slice(0, 2)).toEqual(['Wert', 'Name']);
		});
	},
);

describe('an error about a column names the delimiter the file was read with', () => {
	const [, email, geo] = READERS;

	it.each([email, geo].map((reader) => [reader.label, reader] as const))(
		'%s: a column name the header lacks',
		async (_label, reader) => {
			const { error } = await reader.run(`Wert;Name\n${reader.value(0)};Ann\n`, 'email');
			expect(error?.message).toMatch(
				/the file's first row has no column named "email" \(it has: "Wert", "Name"\); read as a semicolon file, the delimiter found from its first rows \(Options > Delimiter sets another\)$/,
			);
			expect(reader.sent()).toEqual([]);
		},
	);

	it.each([email, geo].map((reader) => [reader.label, reader] as const))(
		'%s: a row without the column, the delimiter given',
		async (_label, reader) => {
			const { error } = await reader.run(`Name;Wert\nAnn;${reader.value(0)}\nBob\n`, 'Wert', {
				delimiter: 'semicolon',
			});
			expect(error?.message).toMatch(
				/row 3 has no column 2 \("Wert"\): it has 1 column, read as a semicolon file, as Options > Delimiter says$/,
			);
			expect(reader.sent()).toEqual([]);
		},
	);

	it('a sep= line against the Delimiter option is refused before any request', async () => {
		const { error } = await email.run(`sep=;\nWert;Name\n${email.value(0)};Ann\n`, 'Wert', {
			delimiter: 'comma',
		});
		expect(error?.message).toBe(
			'Invalid CSV file in Input Binary Field (binaryPropertyName): its first line says sep=; (semicolon), but Delimiter is comma: set Delimiter to Detect or to semicolon',
		);
		expect(email.sent()).toEqual([]);
	});
});

describe('a value cell holding a semicolon or a tab is cells joined: refused before any request, naming the delimiter', () => {
	it.each(READERS.map((reader) => [reader.label, reader] as const))(
		'%s, a file whose first rows read as a comma file',
		async (_label, reader) => {
			// Comma: two cells in each row; semicolon: two, then three. So it is read as a comma file.
			const { items, error } = await reader.run(
				`${reader.value(0)};Müller,Berlin\n${reader.value(1)};Schulz;Eva,Hamburg\n`,
				'1',
			);
			expect(items).toEqual([]);
			expect(error?.message).toMatch(
				/\(row [12], column 1\): holds a semicolon, so it is more than one cell: the file was read as a comma file, the delimiter found from its first rows \(Options > Delimiter sets another\)\. Set Options > Delimiter to the delimiter the file uses$/,
			);
			expect(reader.sent()).toEqual([]);
		},
	);
});

describe('the joined-cell guard stays out of the way of a delimiter that is not a guess', () => {
	const phone = READERS[0];
	const joined = (v: (index: number) => string) => [`${v(0)};Müller`, `${v(1)};Schulz`];

	it.each(READERS.map((reader) => [reader.label, reader] as const))(
		'%s: Options > Delimiter chosen, a cell with a semicolon is the cell the person said it is',
		async (_label, reader) => {
			const { error } = await reader.run(`${joined(reader.value).join('\n')}\n`, '1', {
				delimiter: 'comma',
			});
			// The node's own rules still apply (an IP address with ";Müller" is none), not the guard's.
			expect(error?.message ?? '').not.toMatch(/more than one cell/);
		},
	);

	it('Phone: Options > Delimiter chosen, the cells are sent as the file holds them', async () => {
		const { items, error } = await phone.run(`${joined(phone.value).join('\n')}\n`, '1', {
			delimiter: 'comma',
		});
		expect(error).toBeUndefined();
		expect(items).toHaveLength(2);
		expect(phone.sent()).toEqual(joined(phone.value));
	});

	it("Phone: a file's sep=, line says the delimiter, so its cells are sent as it holds them", async () => {
		const { error } = await phone.run(`sep=,\n${joined(phone.value).join(',x\n')},x\n`, '1');
		expect(error).toBeUndefined();
		expect(phone.sent()).toEqual(joined(phone.value));
	});

	it('Phone: numbers with RFC 3966 parameters (;ext= ;isub= ;phone-context=) in a comma file are sent as written', async () => {
		const numbers = [
			'tel:+1-201-555-0123;ext=1234',
			'+12015550123;ext=1234',
			'+1 (201) 555-0123;isub=1234',
			'tel:7042;phone-context=example.com',
			'tel:+44-20-7946-0958;ext=22;phone-context=+44',
		];
		const file = numbers.map((number, index) => `${number},Lead ${index}`).join('\n') + '\n';
		const { items, error } = await phone.run(file, '1');
		expect(error).toBeUndefined();
		expect(items).toHaveLength(numbers.length);
		expect(phone.sent()).toEqual(numbers);
	});

	it('Phone: a number followed by another cell after a semicolon is still cells joined', async () => {
		const { error } = await phone.run('+12015550123;ext,a\n+12015550124;Müller;Eva,b\n', '1');
		expect(error?.message).toMatch(
			/\(row 1, column 1\): holds a semicolon, so it is more than one cell/,
		);
		expect(phone.sent()).toEqual([]);
	});
});
