/**
 * The CSV parser's two paths (csvScanner.ts): the one-pass fast path for whole, plainly quoted
 * records and the careful state machine must give the same records, whichever of them reads a
 * record and wherever the chunks split it. Oracle: csv-parse, on random files made to mix
 * the cases where the paths hand over (quoted and unquoted fields, `""`, line breaks in quotes,
 * multi-byte UTF-8, CRLF, a BOM).
 */
import { parse as oracleParse } from 'csv-parse/sync';

import {
	CsvError,
	CsvParser,
	CsvScanner,
	csvFields,
	parseCsv,
	type CsvRecord,
	type CsvRow,
} from '../../nodes/shared/csv/csv';

const utf8 = (text: string) => new TextEncoder().encode(text);
const fieldsOf = (rows: CsvRow[]) => rows.map((row) => row.fields);

function parseInChunks(bytes: Uint8Array, splits: number[]): CsvRow[] {
	const rows: CsvRow[] = [];
	const parser = new CsvParser((row) => rows.push(row));
	let from = 0;
	for (const at of [...splits, bytes.length]) {
		// A copy per chunk, overwritten after the push: the parser must keep nothing of a chunk.
		const chunk = Uint8Array.from(bytes.subarray(from, at));
		parser.push(chunk);
		chunk.fill(0x58);
		from = at;
	}
	parser.end();
	return rows;
}

/** What the scanner hands over for each record: the path taken and its raw text when fast. */
function scanned(
	bytes: Uint8Array,
): Array<{ fields: string[]; raw: string | undefined; ascii: boolean }> {
	const records: Array<{ fields: string[]; raw: string | undefined; ascii: boolean }> = [];
	const scanner = new CsvScanner((record: CsvRecord) =>
		records.push({
			fields: csvFields(record),
			raw:
				record.rawStart >= 0
					? record.bytes.toString('utf8', record.rawStart, record.rawEnd)
					: undefined,
			ascii: record.ascii,
		}),
	);
	scanner.push(bytes);
	scanner.end();
	return records;
}

function oracle(text: string): string[][] {
	return oracleParse(text, {
		bom: true,
		relax_quotes: true,
		relax_column_count: true,
		record_delimiter: ['\r\n', '\n', '\r'],
	}) as string[][];
}

describe('CSV fast path', () => {
	test('plain and plainly quoted records take the fast path, with their text as written', () => {
		const records = scanned(utf8('a,"b, c",\n"x",Zoë,😀\r\n'));
		expect(records).toEqual([
			{ fields: ['a', 'b, c', ''], raw: 'a,"b, c",', ascii: true },
			{ fields: ['x', 'Zoë', '😀'], raw: '"x",Zoë,😀', ascii: false },
		]);
	});

	test('records needing unescaping or spanning lines take the careful path, same fields', () => {
		const records = scanned(utf8('"say ""hi""",x\n"two\nlines",y\r\n"cr\rin",z\nlast'));
		expect(records.map((record) => record.fields)).toEqual([
			['say "hi"', 'x'],
			['two\nlines', 'y'],
			['cr\rin', 'z'],
			['last'],
		]);
		expect(records.every((record) => record.raw === undefined)).toBe(true);
	});

	test('a real U+FFFD, 4-byte characters and accents cut at the right places from one decode', () => {
		const text = '😀😀,é,\ufffd,"a😀b",日本,x\n';
		expect(fieldsOf(parseCsv(utf8(text)))).toEqual([['😀😀', 'é', '\ufffd', 'a😀b', '日本', 'x']]);
	});

	test('bytes that are not UTF-8 in a fast record are an error naming its line', () => {
		const bytes = Uint8Array.from([...utf8('a,b\nok,'), 0xeb, ...utf8(',é\n')]);
		let error: unknown;
		try {
			parseCsv(bytes);
		} catch (caught) {
			error = caught;
		}
		expect(error).toBeInstanceOf(CsvError);
		expect((error as CsvError).line).toBe(2);
	});

	test('text after a closing quote is the same error on either path', () => {
		for (const text of ['a\n"b"c,d\n', 'a\n"b"c', '"b" ,x\n']) {
			expect(() => parseCsv(utf8(text))).toThrow(/has text after the closing quote/);
		}
	});

	test('a multi-byte character, a CRLF and a BOM split at every point between two chunks', () => {
		const text =
			'\ufeffnetwork,city\r\n1.0.0.0/24,Zoë 😀\r\n"2.0.0.0/24","日本, 東京"\r\n3.0.0.0/24,x\r';
		const bytes = utf8(text);
		const whole = parseCsv(bytes);
		expect(fieldsOf(whole)).toEqual(oracle(text));
		for (let at = 0; at <= bytes.length; at++) expect(parseInChunks(bytes, [at])).toEqual(whole);
		for (let at = 0; at + 7 <= bytes.length; at++)
			expect(parseInChunks(bytes, [at, at + 1, at + 3, at + 7])).toEqual(whole);
	});
});

describe('CSV fast and careful paths against csv-parse (oracle) on random files', () => {
	function random(seed: number) {
		return () => {
			seed = (seed + 0x6d2b79f5) | 0;
			let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
			t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
			return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
		};
	}
	// Mostly plain text (fast records), sometimes what sends a record down the careful path.
	const plain = ['a', 'b', '7', ' ', '.', '/', 'é', '日', '😀', '\ufffd', 'Zoë'];
	const rare = [',', '"', '\n', '\r', '\r\n'];

	function randomFile(next: () => number) {
		const lineEnds = [['\n'], ['\r\n'], ['\r'], ['\n', '\r\n', '\r']][Math.floor(next() * 4)];
		const records: string[][] = [];
		let text = next() < 0.3 ? '\ufeff' : '';
		const recordCount = 1 + Math.floor(next() * 30);
		const rareChance = next() * 0.1;
		for (let r = 0; r < recordCount; r++) {
			const fieldCount = 1 + Math.floor(next() * 6);
			const fields: string[] = [];
			for (let f = 0; f < fieldCount; f++) {
				let value = '';
				const length = Math.floor(next() * 10);
				for (let k = 0; k < length; k++) {
					const pool = next() < rareChance ? rare : plain;
					value += pool[Math.floor(next() * pool.length)];
				}
				fields.push(value);
			}
			const written = fields.map((value) =>
				/[,\r\n]/.test(value) || value.startsWith('"') || next() < 0.25
					? `"${value.replace(/"/g, '""')}"`
					: value,
			);
			records.push(fields);
			const last = r === recordCount - 1;
			const end = last && next() < 0.5 ? '' : lineEnds[Math.floor(next() * lineEnds.length)];
			const line =
				written.join(',') === '' && (text.endsWith('\r') || end === '') ? '""' : written.join(',');
			text += line + end;
		}
		return { text, records };
	}

	test('1,000 random files: same records as csv-parse, as generated, and in any chunking', () => {
		const next = random(20261123);
		let fast = 0;
		let careful = 0;
		for (let file = 0; file < 1000; file++) {
			const { text, records } = randomFile(next);
			const bytes = utf8(text);
			const rows = parseCsv(bytes);
			expect({ file, text, fields: fieldsOf(rows) }).toEqual({ file, text, fields: oracle(text) });
			expect(fieldsOf(rows)).toEqual(records);
			for (const record of scanned(bytes)) {
				if (record.raw === undefined) careful++;
				else fast++;
			}
			const splits = Array.from({ length: 1 + Math.floor(next() * 4) }, () =>
				Math.floor(next() * bytes.length),
			).sort((a, b) => a - b);
			expect({ file, splits, rows: parseInChunks(bytes, splits) }).toEqual({ file, splits, rows });
		}
		// Both paths were exercised, many times each.
		expect(fast).toBeGreaterThan(2000);
		expect(careful).toBeGreaterThan(1000);
	});
});
