import { readFileSync } from 'fs';
import path from 'path';

import { parse as oracleParse } from 'csv-parse/sync';
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { addressPool, logAddresses } from '../sandbox/ipDatabases/accessLog';
import { ROOT } from '../harness/nodeTypes';
import { rowsOf, type FormatId } from '../sandbox/ipDatabases/records';
import { BINARY_MODES, useBinaryMode } from '../harness/run';
import { edgeAddresses, file, lookUp, type LookupRun } from './ipLookupHelpers';
import { defused, RESULT, resultOf } from './resultFileCases';

/**
 * IP Database Lookup, Input "CSV File", through n8n-core in n8n's two binary modes: memory (the
 * files in the items) and filesystem (the log read as a stream from n8n's binary store, twice:
 * its shape, then its rows; the result file handed to n8n as a stream, which n8n writes to its
 * store). The oracle of every row is the node's own per-item lookup of the same address (As
 * Stored and Like the API, one database and three), the oracle of the file's text csv-parse. The
 * rows a file is read in, and bad rows, are ipLookupFileRows.test.ts's.
 */
jest.setTimeout(120_000);

/** Geolocation (MMDB or CSV) in "Database File", ASN and security in two more nodes. */
const threeDatabases = (
	format: FormatId,
): Pick<LookupRun, 'file' | 'moreFiles'> & { parameters: IDataObject } => ({
	file: file('ip-geolocation', format),
	moreFiles: {
		'ASN File': file('ip-asn', format === 'mmdb' ? 'csv' : 'mmdb'),
		'Security File': file('ip-security', format),
	},
	parameters: {
		moreDatabases: {
			databases: ['ASN File', 'Security File'].map((name) => ({
				databaseSource: 'fromNode',
				databaseNode: `={{ $('${name}').first() }}`,
				binaryPropertyName: 'data',
			})),
		},
	},
});

/** A value as the result file writes it: text as is, null as empty, objects as JSON. */
const cell = (value: unknown) =>
	value === null || value === undefined
		? ''
		: typeof value === 'string'
			? value
			: typeof value === 'object'
				? JSON.stringify(value)
				: String(value);

function leaf(json: IDataObject, dotted: string): unknown {
	let value: unknown = json;
	for (const key of dotted.split('.'))
		value = value !== null && typeof value === 'object' ? (value as IDataObject)[key] : undefined;
	return value;
}

/** The answer part of a result row for a per-item answer: its columns, then other_fields (the keys no column holds). */
function answerCells(json: IDataObject, columns: string[]): string[] {
	const other = Object.fromEntries(
		Object.entries(json).filter(
			([key]) => !columns.some((column) => column === key || column.startsWith(`${key}.`)),
		),
	);
	return [
		...columns.map((column) => cell(leaf(json, column))),
		Object.keys(other).length > 0 ? JSON.stringify(other) : '',
	];
}

/** The per-item answers of the addresses, by address: the oracle. */
async function perItem(
	run: Omit<LookupRun, 'ips'>,
	addresses: string[],
): Promise<Map<string, IDataObject>> {
	const distinct = [...new Set(addresses)];
	const { items, error } = await lookUp({ ...run, ips: distinct });
	expect(error).toBeUndefined();
	expect(items).toHaveLength(distinct.length);
	return new Map(distinct.map((address, index) => [address, items[index].json]));
}

/** The result file's rows checked against the input's cells and the per-item answers; returns the answer columns. */
async function expectRowsEqualPerItem(
	item: INodeExecutionData,
	input: string[][],
	width: number,
	addressAt: number,
	answers: Map<string, IDataObject>,
): Promise<string[]> {
	const { header, rows } = await resultOf(item);
	const columns = header.slice(width, -2);
	expect(header.slice(-2)).toEqual(['other_fields', 'status']);
	expect(rows).toHaveLength(input.length);
	rows.forEach((row, index) => {
		const cells = [...input[index], ...new Array<string>(width - input[index].length).fill('')];
		const json = answers.get(input[index][addressAt].trim())!;
		expect(row).toEqual(defused([...cells, ...answerCells(json, columns), 'ok']));
	});
	return columns;
}

const LOG_ADDRESSES = (() => {
	const covered = (['ip-geolocation', 'ip-asn', 'ip-security'] as const).flatMap((database) =>
		rowsOf(database, 1).flatMap((row) => edgeAddresses(row.network)),
	);
	return [...logAddresses(1500, addressPool(300, covered, 7), 11)];
})();

/** A log as CSV: time, client address, request (quoted, a comma in it). */
const logCsv = (addresses: string[]) =>
	'time,client,request\n' +
	addresses
		.map(
			(address, index) =>
				`2026-11-${String((index % 28) + 1).padStart(2, '0')}T10:00:00Z,${address},"GET /page?id=${index}, HTTP/1.1"\n`,
		)
		.join('');

/** Quoted commas and quotes, line breaks in cells, non-ASCII, a BOM, CRLF and LF, a row wider than the header, a spaced address, a last row without a line end. */
const TRICKY_LOG =
	'\ufeffwho,ip,note\r\n' +
	'"Doe, Jane",8.8.8.8,"said ""hi""\r\nnext line"\r\n' +
	'Bob,2001:4860:4860::8888,\n' +
	'"Zoë ""Z"" Ünal",185.220.101.4,"北京 🚀\nline two"\r\n' +
	'Ann,10.0.0.7,plain,"an extra, unnamed cell"\n' +
	'Eve, 104.16.132.7 ,"=1+2"';

/** The tricky log as csv-parse reads it: its rows, and the address of each. */
const trickyRows = (
	oracleParse(TRICKY_LOG, {
		bom: true,
		relax_column_count: true,
		record_delimiter: ['\r\n', '\n'],
	}) as string[][]
).slice(1);
const trickyAddresses = trickyRows.map((row) => row[1].trim());

type OutputShape = 'asStored' | 'likeTheApi';

/** The forms the tricky file and the log are looked up in: geolocation file format, Output Shape. */
const TRICKY_FILE_FORMS = [
	['mmdb', 'asStored'],
	['csv', 'asStored'],
	['mmdb', 'likeTheApi'],
	['csv', 'likeTheApi'],
] as const;
const LOG_FORMS = [
	['mmdb', 'asStored'],
	['csv', 'likeTheApi'],
	['csv', 'asStored'],
	['mmdb', 'likeTheApi'],
] as const;
const OUTPUT_SHAPES = ['asStored', 'likeTheApi'] as const;

describe.each(BINARY_MODES)('IP Database Lookup on a CSV file, %s binary mode', (mode) => {
	beforeAll(async () => await useBinaryMode(mode));

	it.each(TRICKY_FILE_FORMS)(
		'a tricky file (%s, %s): parses back to the input cells, then the per-item answer, other_fields and status',
		async (format, outputShape) => {
			const run = { file: file('ip-geolocation', format), parameters: { outputShape } };
			const answers = await perItem(run, trickyAddresses);
			const { items, error } = await lookUp({
				...run,
				ips: [],
				csvFile: { bytes: TRICKY_LOG },
				parameters: { ...run.parameters, ...RESULT, addressColumn: 'ip' },
			});
			expect(error).toBeUndefined();
			expect(items).toHaveLength(1);
			expect(items[0].pairedItem).toEqual({ item: 0 });
			const columns = await expectRowsEqualPerItem(items[0], trickyRows, 4, 1, answers);
			const { header } = await resultOf(items[0]);
			expect(header.slice(0, 4)).toEqual(['who', 'ip', 'note', 'column4']);
			expect(columns).toContain(outputShape === 'asStored' ? 'city' : 'timezone.name');
			expect(items[0].json).toEqual({
				rows: 5,
				firstRow: 2,
				lastRow: 6,
				answered: 5,
				failed: { invalidValue: 0, serviceError: 0, planRanOut: 0, keyRejected: 0 },
				nextRow: null,
				fileRows: 5,
				delimiter: 'comma',
				delimiterFrom: 'detected',
				defusedCells: 1,
				lookups: 5,
			});
		},
	);

	it.each(LOG_FORMS)(
		'a log of 1,500 lines against three databases (geolocation %s, %s): every row equal to the per-item lookup of its address',
		async (format, outputShape) => {
			const run = {
				...threeDatabases(format),
				parameters: { ...threeDatabases(format).parameters, outputShape },
			};
			const answers = await perItem(run, LOG_ADDRESSES);
			const { items, error } = await lookUp({
				...run,
				ips: [],
				csvFile: { bytes: logCsv(LOG_ADDRESSES) },
				parameters: { ...run.parameters, ...RESULT, addressColumn: 'client' },
			});
			expect(error).toBeUndefined();
			const input = (oracleParse(logCsv(LOG_ADDRESSES)) as string[][]).slice(1);
			await expectRowsEqualPerItem(items[0], input, 3, 1, answers);
			// The log repeats its addresses: each distinct one is looked up once.
			expect(items[0].json.lookups).toBe(new Set(LOG_ADDRESSES).size);
		},
	);

	it.each(OUTPUT_SHAPES)(
		"MaxMind's GeoLite2 City (%s): every row equal to the per-item lookup",
		async (outputShape) => {
			const city = {
				bytes: readFileSync(path.join(ROOT, 'node_modules/geolite2/dbs/GeoLite2-City.mmdb')),
				fileName: 'GeoLite2-City.mmdb',
			};
			const addresses = [
				...logAddresses(
					1000,
					addressPool(
						400,
						[
							'81.2.69.160',
							'89.160.20.112',
							'2a02:26f0::1f',
							'175.16.199.1',
							'2001:4860:4860::8888',
						],
						5,
					),
					3,
				),
			];
			const answers = await perItem({ file: city, parameters: { outputShape } }, addresses);
			const found = [...answers.values()].filter((json) => json.found !== false);
			expect(found.length).toBeGreaterThan(50);
			const { items, error } = await lookUp({
				file: city,
				ips: [],
				csvFile: { bytes: logCsv(addresses) },
				parameters: { outputShape, ...RESULT, addressColumn: 2 },
			});
			expect(error).toBeUndefined();
			await expectRowsEqualPerItem(
				items[0],
				(oracleParse(logCsv(addresses)) as string[][]).slice(1),
				3,
				1,
				answers,
			);
		},
	);

	it("One Item per Row: each row is the per-item answer plus csvRow, paired to the file's item", async () => {
		const run = { file: file('ip-asn', 'mmdb') };
		const answers = await perItem(run, trickyAddresses);
		const { items, error } = await lookUp({
			...run,
			ips: [],
			csvFile: { bytes: TRICKY_LOG },
			parameters: { addressColumn: 'ip' },
		});
		expect(error).toBeUndefined();
		expect(items.map((item) => item.json)).toEqual(
			trickyRows.map((row, index) => ({
				...answers.get(trickyAddresses[index]),
				csvRow: {
					number: index + 2,
					columns: {
						who: row[0],
						ip: row[1],
						note: row[2],
						...(row[3] !== undefined ? { column4: row[3] } : {}),
					},
				},
			})),
		);
		expect(items.every((item) => (item.pairedItem as { item: number }).item === 0)).toBe(true);
	});
});
