/**
 * The shared RFC 4180 parser, tested directly (pure library code): the rules one by one, every
 * chunk split point of tricky inputs, and random files against csv-parse as an oracle.
 */
import { parse as oracleParse } from 'csv-parse/sync';

import { CsvError, CsvParser, parseCsv, type CsvRow } from '../../nodes/shared/csv/csv';
import { randomFraction } from '../sandbox/random';

const utf8 = (text: string) => new TextEncoder().encode(text);
const fieldsOf = (rows: CsvRow[]) => rows.map((row) => row.fields);

function parseInChunks(bytes: Uint8Array, splits: number[]): CsvRow[] {
	const rows: CsvRow[] = [];
	const parser = new CsvParser((row) => rows.push(row));
	let from = 0;
	for (const at of [...splits, bytes.length]) {
		parser.push(bytes.subarray(from, at));
		from = at;
	}
	parser.end();
	return rows;
}

function errorOf(run: () => unknown): CsvError {
	try {
		run();
	} catch (error) {
		expect(error).toBeInstanceOf(CsvError);
		return error as CsvError;
	}
	throw new Error('expected a CsvError');
}

describe('CSV parser rules', () => {
	test.each<[string, string, string[][]]>([
		[
			'plain records with LF',
			'a,b,c\n1,2,3\n',
			[
				['a', 'b', 'c'],
				['1', '2', '3'],
			],
		],
		[
			'CRLF record ends',
			'a,b\r\n1,2\r\n',
			[
				['a', 'b'],
				['1', '2'],
			],
		],
		[
			'a lone CR ends a record',
			'a,b\r1,2\r',
			[
				['a', 'b'],
				['1', '2'],
			],
		],
		['mixed line ends', 'a\r\nb\nc\rd', [['a'], ['b'], ['c'], ['d']]],
		[
			'last record without a line end',
			'a,b\n1,2',
			[
				['a', 'b'],
				['1', '2'],
			],
		],
		[
			'empty fields',
			',a,,\n,\n',
			[
				['', 'a', '', ''],
				['', ''],
			],
		],
		['quoted comma', '"a,b",c\n', [['a,b', 'c']]],
		['doubled quotes', '"say ""hi""",x\n', [['say "hi"', 'x']]],
		['line breaks inside quotes are kept', '"1\n2\r\n3\r4",x\n', [['1\n2\r\n3\r4', 'x']]],
		['empty quoted field', '"",""\n""', [['', ''], ['']]],
		['only a doubled quote', '""""', [['"']]],
		[
			'quote inside an unquoted field kept literally',
			'a"b,5" screen,x""\n',
			[['a"b', '5" screen', 'x""']],
		],
		['space before a quote makes an unquoted field', ' "a",b\n', [[' "a"', 'b']]],
		['empty lines are rows with one empty field', 'a\n\n\r\nb\n', [['a'], [''], [''], ['b']]],
		['UTF-8 text', 'Zoë,日本,😀\n', [['Zoë', '日本', '😀']]],
		['a BOM at the start is skipped', '\ufeffname,email\n', [['name', 'email']]],
		['a BOM elsewhere is kept', 'a\n\ufeffb\n', [['a'], ['\ufeffb']]],
		['only a BOM', '\ufeff', []],
		['empty input', '', []],
		['one line end', '\n', [['']]],
		['a U+FFFD written in the file is text', 'a\ufffdb\n', [['a\ufffdb']]],
	])('%s', (_name, input, expected) => {
		expect(fieldsOf(parseCsv(utf8(input)))).toEqual(expected);
	});

	test('record numbers, first physical lines and byte offsets', () => {
		const input = '\ufeffh1,h2\r\n"multi\r\nline",x\n\nlast,"é"';
		const rows = parseCsv(utf8(input));
		expect(rows.map(({ number, line, offset }) => ({ number, line, offset }))).toEqual([
			{ number: 1, line: 1, offset: 3 },
			{ number: 2, line: 2, offset: 10 },
			{ number: 3, line: 4, offset: 26 },
			{ number: 4, line: 5, offset: 27 },
		]);
		expect(new TextDecoder().decode(utf8(input).subarray(rows[3].offset))).toBe('last,"é"');
	});

	test('text after a closing quote is an error naming the line', () => {
		const error = errorOf(() => parseCsv(utf8('a,b\n"x\ny"z,c\n')));
		expect(error.line).toBe(3);
		expect(error.message).toMatch(/Line 3 has text after the closing quote/);
	});

	test('a quote never closed is an error naming the line it opened on', () => {
		const error = errorOf(() => parseCsv(utf8('a\nb,"open\nmore\n')));
		expect(error.line).toBe(2);
		expect(error.message).toMatch(/opened on line 2 is never closed/);
	});

	test('bytes that are not UTF-8 are an error naming the line', () => {
		const latin1 = Uint8Array.from([0x61, 0x0a, 0x5a, 0x6f, 0xeb, 0x0a]); // "a\nZoë\n" in Latin-1
		const error = errorOf(() => parseCsv(latin1));
		expect(error.line).toBe(2);
		expect(error.message).toMatch(/not valid UTF-8/);
	});
});

describe('CSV parser chunking', () => {
	const tricky = [
		'\ufeffname,"quoted, ""comma"""\r\n"multi\r\nline\rcr\nlf",Zoë 😀\r\n\r\nlast,"x"',
		'a,"b""",""""\r\n"",,\r\n"é\r\n"\r',
		'"a"\r"b"\n"c"\r\n,\r\n',
		'\ufeff',
		'\ufeffa',
		'ab',
	];

	test.each(tricky.map((text) => [JSON.stringify(text), text]))(
		'every split point of %s',
		(_name, text) => {
			const bytes = utf8(text);
			const whole = parseCsv(bytes);
			for (let at = 0; at <= bytes.length; at++) {
				expect(parseInChunks(bytes, [at])).toEqual(whole);
			}
			for (let a = 0; a <= bytes.length; a++) {
				for (let b = a; b <= bytes.length; b++) {
					expect(parseInChunks(bytes, [a, b])).toEqual(whole);
				}
			}
			const everyByte = Array.from({ length: bytes.length }, (_, k) => k);
			expect(parseInChunks(bytes, everyByte)).toEqual(whole);
		},
	);

	test('errors name the same line however the input is split', () => {
		const bytes = utf8('a\r\n"b\r\nc"d\n');
		for (let at = 0; at <= bytes.length; at++) {
			expect(errorOf(() => parseInChunks(bytes, [at])).line).toBe(3);
		}
	});

	test('a UTF-8 sequence split between chunks decodes whole', () => {
		const bytes = utf8('😀,"😀"\n');
		for (let at = 0; at <= bytes.length; at++) {
			expect(fieldsOf(parseInChunks(bytes, [at]))).toEqual([['😀', '😀']]);
		}
	});
});

describe('CSV parser against csv-parse (oracle) on random files', () => {
	const alphabet = [
		'a',
		'b',
		'Z',
		'0',
		' ',
		',',
		'"',
		'\n',
		'\r',
		'\r\n',
		'é',
		'日',
		'😀',
		'\ufffd',
		'\t',
		';',
	];

	function randomFile(next: () => number) {
		const lineEnds = [['\n'], ['\r\n'], ['\r'], ['\n', '\r\n', '\r']][Math.floor(next() * 4)];
		const records: string[][] = [];
		let text = next() < 0.2 ? '\ufeff' : '';
		const starts: Array<{ line: number; offset: number }> = [];
		const recordCount = 1 + Math.floor(next() * 12);
		for (let r = 0; r < recordCount; r++) {
			const fieldCount = next() < 0.1 ? 1 : 1 + Math.floor(next() * 5);
			const fields: string[] = [];
			for (let f = 0; f < fieldCount; f++) {
				let value = '';
				const length = Math.floor(next() * 8);
				for (let k = 0; k < length; k++) value += alphabet[Math.floor(next() * alphabet.length)];
				fields.push(value);
			}
			// An unquoted field may hold neither a separator nor a line break, nor start with a quote.
			const written = fields.map((value) =>
				/[,\r\n]/.test(value) || value.startsWith('"') || next() < 0.3
					? `"${value.replace(/"/g, '""')}"`
					: value,
			);
			starts.push({ line: text.split(/\r\n|\n|\r/).length, offset: Buffer.byteLength(text) });
			records.push(fields);
			const last = r === recordCount - 1;
			const end = last && next() < 0.5 ? '' : lineEnds[Math.floor(next() * lineEnds.length)];
			// An empty line right after a CR, or at the very end, would not be one: write it as "".
			const line =
				written.join(',') === '' && (text.endsWith('\r') || end === '') ? '""' : written.join(',');
			text += line + end;
		}
		return { text, records, starts };
	}

	test('500 random files: same records as csv-parse and as generated, in any chunking', () => {
		const next = randomFraction(20261122);
		for (let file = 0; file < 500; file++) {
			const { text, records, starts } = randomFile(next);
			const bytes = utf8(text);
			const rows = parseCsv(bytes);
			const oracle = oracleParse(text, {
				bom: true,
				relax_quotes: true,
				relax_column_count: true,
				record_delimiter: ['\r\n', '\n', '\r'],
			}) as string[][];
			expect({ file, text, fields: fieldsOf(rows) }).toEqual({ file, text, fields: oracle });
			expect(fieldsOf(rows)).toEqual(records);
			expect(rows.map(({ line, offset }) => ({ line, offset }))).toEqual(starts);
			const splits = [Math.floor(next() * bytes.length), Math.floor(next() * bytes.length)].sort(
				(a, b) => a - b,
			);
			expect(parseInChunks(bytes, splits)).toEqual(rows);
		}
	});
});
