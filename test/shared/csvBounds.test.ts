/**
 * The CSV scanner's bounds (csvRecord.ts): a record of at most MAX_FIELDS cells and
 * MAX_RECORD_BYTES of text is read as before, on either path and in any chunking; one past them
 * is a CsvBoundError naming its row, before the scanner holds more than the record so far. And
 * the errors that name a first row's columns stay short, whatever that row holds.
 */
import {
	CsvBoundError,
	CsvError,
	CsvParser,
	parseCsv,
	type CsvRow,
} from '../../nodes/shared/csv/csv';
import { MAX_FIELDS, MAX_RECORD_BYTES } from '../../nodes/shared/csv/csvRecord';
import { namesListed } from '../../nodes/shared/csv/csvRows';
import { kindOfCsvHeader } from '../../nodes/shared/ipDatabases/databaseKinds';

/** The rows of `bytes` pushed in chunks of `size`, or the error that stopped them. */
function read(bytes: Buffer, size = bytes.length): CsvRow[] | Error {
	const rows: CsvRow[] = [];
	const parser = new CsvParser((row) => rows.push(row));
	try {
		for (let at = 0; at < bytes.length; at += size) parser.push(bytes.subarray(at, at + size));
		parser.end();
	} catch (error) {
		return error as Error;
	}
	return rows;
}

const file = (...lines: string[]) => Buffer.from(lines.join('\n') + '\n');
const cells = (count: number, cell = '') => new Array<string>(count).fill(cell).join(',');

/** Whole in one chunk (the fast path can take it), in 64 KiB chunks and in 1,000-byte chunks (the careful path's). */
const CHUNKINGS: Array<[string, number | undefined]> = [
	['in one chunk', undefined],
	['in 64 KiB chunks', 64 * 1024],
	['in 1,000-byte chunks', 1000],
];

describe('cells per record', () => {
	test.each(CHUNKINGS)(`${MAX_FIELDS} cells are read, %s`, (_, size) => {
		const rows = read(file('a,b', cells(MAX_FIELDS, 'x'), 'c,d'), size) as CsvRow[];
		expect(rows.map((row) => row.fields.length)).toEqual([2, MAX_FIELDS, 2]);
		expect(rows[1].fields.every((cell) => cell === 'x')).toBe(true);
	});

	test.each(CHUNKINGS)(`${MAX_FIELDS + 1} cells are refused, naming the row, %s`, (_, size) => {
		const error = read(file('a,b', 'c,d', cells(MAX_FIELDS + 1)), size);
		expect(error).toBeInstanceOf(CsvBoundError);
		expect(error).toBeInstanceOf(CsvError);
		expect((error as Error).message).toBe(
			'row 3 has more than 16,384 cells, more columns than a spreadsheet has (a line of commas?)',
		);
	});

	test('a record after a cell spanning lines is named by its row and its line', () => {
		const error = read(file('"a\nb",c', cells(MAX_FIELDS + 1)));
		expect((error as Error).message).toMatch(/^row 2 \(line 3\) has more than 16,384 cells/);
	});

	test('30 MB of commas are refused after the first cells, not read to their end', () => {
		const line = Buffer.alloc(30_000_000, ',');
		let pushed = 0;
		const parser = new CsvParser(() => undefined);
		let error: Error | undefined;
		try {
			for (let at = 0; at < line.length; at += 64 * 1024) {
				pushed += 64 * 1024;
				parser.push(line.subarray(at, at + 64 * 1024));
			}
		} catch (caught) {
			error = caught as Error;
		}
		expect(error).toBeInstanceOf(CsvBoundError);
		// Within the first chunk: a cell costs one byte here.
		expect(pushed).toBe(64 * 1024);
	});
});

describe('text per record', () => {
	const big = (bytes: number) => 'y'.repeat(bytes);

	test.each(CHUNKINGS)(`${MAX_RECORD_BYTES} bytes of cells are read, %s`, (_, size) => {
		// Half in a quoted cell with a doubled quote: the careful path's copy counts it once.
		const half = MAX_RECORD_BYTES / 2;
		const rows = read(file('a,b', `${big(half)},"${big(half - 1)}"""`), size) as CsvRow[];
		expect(rows[1].fields.map((cell) => cell.length)).toEqual([half, half]);
	});

	test.each(CHUNKINGS)('one byte more is refused, naming the row, %s', (_, size) => {
		const half = MAX_RECORD_BYTES / 2;
		const error = read(file('a,b', `${big(half)},"${big(half)}"""`), size);
		expect(error).toBeInstanceOf(CsvBoundError);
		expect((error as Error).message).toBe(
			"row 2 holds more than 4 MiB of text (4,194,304 bytes; a lead list's row holds a few KB): it runs on inside a quoted cell opened on line 2: a quote never closed?",
		);
	});

	test.each(CHUNKINGS)(
		'an unquoted cell of one byte more is refused for its missing line break, not for a quote, %s',
		(_, size) => {
			const error = read(file('a', big(MAX_RECORD_BYTES + 1)), size);
			expect((error as Error).message).toBe(
				"row 2 holds more than 4 MiB of text (4,194,304 bytes; a lead list's row holds a few KB): it runs on with no line break, outside any quoted cell: one long line, not rows of CSV?",
			);
		},
	);

	test('a quoted cell never closed is refused at the bound, not held to the end of the file', () => {
		const rows = 'a,"open\n' + 'more text,\n'.repeat(600_000);
		expect(Buffer.byteLength(rows)).toBeGreaterThan(MAX_RECORD_BYTES);
		const error = read(Buffer.from(rows), 64 * 1024);
		expect((error as Error).message).toMatch(
			/^row 1 holds more than 4 MiB of text \(.*\): it runs on inside a quoted cell opened on line 1: a quote never closed\?$/,
		);
	});

	test('a short quoted cell never closed is the error it always was', () => {
		expect(() => parseCsv(Buffer.from('a,"open\nb\n'))).toThrow(
			/A quoted field opened on line 1 is never closed/,
		);
	});
});

describe("errors naming a first row's columns", () => {
	test('list at most 20 names, each cut to 60 characters, then how many more', () => {
		const names = Array.from({ length: MAX_FIELDS }, (_, index) => `column ${index}`);
		names[3] = 'x'.repeat(70);
		const listed = namesListed(names);
		expect(listed).toMatch(/^"column 0", "column 1", "column 2", "x{60}…", "column 4", /);
		expect(listed).toMatch(/"column 19" and 16,364 more$/);
		expect(namesListed(['ip', 'asn'])).toBe('"ip", "asn"');
	});

	test("a CSV database's header of thousands of columns: a message of a few hundred characters, not megabytes", () => {
		const header = [
			'network',
			...Array.from({ length: MAX_FIELDS - 1 }, (_, index) => `c${index}`),
		];
		const { problem } = kindOfCsvHeader(header);
		expect(problem).toMatch(/^its columns \("network", "c0", .* and 16,364 more\) are none/);
		expect(problem!.length).toBeLessThan(400);
	});
});
