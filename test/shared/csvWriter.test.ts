/**
 * The CSV writer and the answer flattening of a result file, tested directly (pure library code):
 * what the writer writes, csv-parse (an established parser) and the package's own reader read
 * back cell for cell; the stream hands out chunks as they fill and waits for its consumer.
 */
import { parse as oracleParse } from 'csv-parse/sync';

import {
	AnswerFlattener,
	EMAIL_ANSWER_COLUMNS,
	PHONE_ANSWER_COLUMNS,
} from '../../nodes/shared/csv/answerColumns';
import { parseCsv } from '../../nodes/shared/csv/csv';
import { csvLine, CsvStream, READY_CHUNKS } from '../../nodes/shared/csv/csvWriter';
import { headerCells } from '../../nodes/shared/csv/resultFile';
import { randomFraction } from '../sandbox/random';

const TRICKY = [
	'plain',
	'a,b',
	'say "hi"',
	'two\nlines',
	'crlf\r\nend',
	'lone\rcr',
	' lead',
	'trail ',
	'',
	'Zoë Ångström 北京 🚀',
	'"',
	',',
	'=1+2',
];

async function drain(stream: CsvStream): Promise<Buffer> {
	const parts: Buffer[] = [];
	for await (const chunk of stream.chunks()) parts.push(chunk);
	return Buffer.concat(parts);
}

describe('csvLine', () => {
	it('writes cells that csv-parse and the package reader read back exactly', () => {
		const records = [TRICKY, [...TRICKY].reverse(), ['only one']];
		const text = records.map(csvLine).join('');
		expect(oracleParse(text, { relax_column_count: true })).toEqual(records);
		expect(parseCsv(Buffer.from(text)).map((row) => row.fields)).toEqual(records);
	});

	it('quotes only what needs it', () => {
		expect(csvLine(['a', 'b c', '1.5'])).toBe('a,b c,1.5\r\n');
		expect(csvLine(['a,b', 'x"y', ' z'])).toBe('"a,b","x""y"," z"\r\n');
	});

	it('round-trips random cells of every troublesome character', () => {
		const random = randomFraction(17);
		const alphabet = ['a', ',', '"', '\r', '\n', ' ', 'é', '😀', '\r\n', 'x'];
		const records: string[][] = [];
		for (let row = 0; row < 300; row++) {
			const cells: string[] = [];
			const count = 1 + Math.floor(random() * 5);
			for (let cell = 0; cell < count; cell++) {
				let text = '';
				const length = Math.floor(random() * 8);
				for (let at = 0; at < length; at++)
					text += alphabet[Math.floor(random() * alphabet.length)];
				cells.push(text);
			}
			// A record of one empty cell is an empty line, which a bulk file may not have; the writer never writes one.
			if (cells.length === 1 && cells[0] === '') cells[0] = 'x';
			records.push(cells);
		}
		const text = records.map(csvLine).join('');
		expect(oracleParse(text, { relax_column_count: true })).toEqual(records);
	});
});

describe('CsvStream', () => {
	it('hands out 64 KB chunks while records are written, and the rest at the end', async () => {
		const stream = new CsvStream();
		const consumer = drain(stream);
		const records: string[][] = [];
		for (let index = 0; index < 5000; index++) {
			const record = [`row ${index}`, 'a, "quoted" cell\nwith a line break', 'Ünïcödé'];
			records.push(record);
			await stream.write(record);
		}
		await stream.end();
		const bytes = await consumer;
		expect(bytes.length).toBe(stream.bytesWritten);
		expect(bytes.length).toBeGreaterThan(3 * 64 * 1024);
		expect(oracleParse(bytes.toString('utf8'))).toEqual(records);
	});

	it('makes a writer wait while READY_CHUNKS full chunks are unread', async () => {
		const stream = new CsvStream();
		const big = ['x'.repeat(70 * 1024)];
		// Each record fills a chunk of its own; nobody reads them.
		for (let chunk = 0; chunk < READY_CHUNKS; chunk++) await stream.write(big);
		let second = false;
		const writing = stream.write(big).then(() => (second = true));
		await new Promise((resolve) => setImmediate(resolve));
		expect(second).toBe(false);
		const iterator = stream.chunks()[Symbol.asyncIterator]();
		expect((await iterator.next()).value).toHaveLength(70 * 1024 + 2);
		await writing;
		expect(second).toBe(true);
	});

	it("fails the consumer with the writer's error, and releases a writer when the consumer fails", async () => {
		const stream = new CsvStream();
		const consumer = drain(stream);
		stream.fail(new Error('stopped'));
		await expect(consumer).rejects.toThrow('stopped');

		const orphan = new CsvStream();
		for (let chunk = 0; chunk < READY_CHUNKS; chunk++) await orphan.write(['x'.repeat(70 * 1024)]);
		const waiting = orphan.write(['x'.repeat(70 * 1024)]);
		orphan.consumerFailed(new Error('disk full'));
		await expect(waiting).rejects.toThrow('disk full');
	});
});

describe('AnswerFlattener', () => {
	const record = {
		email_address: 'ada@example.com',
		suggested_correction: null,
		email_deliverability: {
			status: 'deliverable',
			is_smtp_valid: true,
			mx_records: ['mx1', 'mx2'],
			brand_new: 'x',
		},
		email_quality: { score: 0.87, minimum_age: 12 },
		email_breaches: {
			breached_domains: [{ domain: 'a.com', date_breached: '2020-01-01T00:00:00Z' }],
		},
		email_risk: null,
		added_section: { nested: 1 },
	};

	it('puts the known fields of the record in their dotted columns and everything else in other_fields', () => {
		const flattener = new AnswerFlattener(EMAIL_ANSWER_COLUMNS, EMAIL_ANSWER_COLUMNS);
		const { cells, other } = flattener.flatten(record);
		const cell = (column: string) => cells[EMAIL_ANSWER_COLUMNS.indexOf(column)];
		expect(cells).toHaveLength(EMAIL_ANSWER_COLUMNS.length);
		expect(cell('email_address')).toBe('ada@example.com');
		expect(cell('suggested_correction')).toBe('');
		expect(cell('email_deliverability.status')).toBe('deliverable');
		expect(cell('email_deliverability.is_smtp_valid')).toBe('true');
		expect(cell('email_deliverability.mx_records')).toBe('["mx1","mx2"]');
		expect(cell('email_quality.score')).toBe('0.87');
		expect(JSON.parse(cell('email_breaches.breached_domains'))).toEqual(
			record.email_breaches.breached_domains,
		);
		expect(JSON.parse(other)).toEqual({
			'email_deliverability.brand_new': 'x',
			added_section: { nested: 1 },
		});
	});

	it('leaves out unpicked fields without taking them for unknown ones', () => {
		const picked = ['email_deliverability.status', 'email_quality.score'];
		const { cells, other } = new AnswerFlattener(picked, EMAIL_ANSWER_COLUMNS).flatten(record);
		expect(cells).toEqual(['deliverable', '0.87']);
		expect(JSON.parse(other)).toEqual({
			'email_deliverability.brand_new': 'x',
			added_section: { nested: 1 },
		});
	});

	it('gives an empty other_fields cell for a record of known fields alone', () => {
		const { other } = new AnswerFlattener(PHONE_ANSWER_COLUMNS, PHONE_ANSWER_COLUMNS).flatten({
			phone_number: '14152007986',
			phone_carrier: { name: 'T-Mobile', mcc: 310 },
		});
		expect(other).toBe('');
	});
});

describe('the result file header', () => {
	it('keeps the input names, pads to the widest row, and never repeats an input name', () => {
		const flattener = new AnswerFlattener(['email_address'], EMAIL_ANSWER_COLUMNS);
		expect(
			headerCells({ header: ['name', 'status', 'other_fields', 'status_2'], width: 5, flattener }),
		).toEqual([
			'name',
			'status',
			'other_fields',
			'status_2',
			'column5',
			'email_address',
			'other_fields_2',
			'status_3',
		]);
		expect(headerCells({ header: undefined, width: 2, flattener })).toEqual([
			'column1',
			'column2',
			'email_address',
			'other_fields',
			'status',
		]);
	});
});
