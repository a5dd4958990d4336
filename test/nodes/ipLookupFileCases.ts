import { readFileSync } from 'fs';
import path from 'path';

import { parse as oracleParse } from 'csv-parse/sync';
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { addressPool, logAddresses } from '../sandbox/ipDatabases/accessLog';
import { ROOT } from '../harness/nodeTypes';
import { databaseFileOf, databaseFileName } from '../sandbox/ipDatabases/archives';
import { rowsOf, type DatabaseId, type FormatId } from '../sandbox/ipDatabases/records';
import { edgeAddresses, lookUp, type DatabaseFileSpec, type LookupRun } from './ipLookupHelpers';
import { defused, resultOf } from './resultFileCases';

/**
 * IP Database Lookup, Input "CSV File", in n8n's two binary modes (ipLookupFile.test.ts: memory,
 * ipLookupFileFilesystem.test.ts: filesystem), through n8n-core. The oracle of every row is the
 * node's own per-item lookup of the same address (As Stored and Like the API, one database and
 * three), the oracle of the file's text csv-parse.
 */

const file = (database: DatabaseId, format: FormatId, build = 1): DatabaseFileSpec => ({
	bytes: databaseFileOf(database, format, build),
	fileName: databaseFileName(database, format),
});

const RESULT = { output: 'resultFile', resultBinaryPropertyName: 'result' };

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
export const TRICKY_LOG =
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
export const TRICKY_FILE_FORMS = [
	['mmdb', 'asStored'],
	['csv', 'asStored'],
	['mmdb', 'likeTheApi'],
	['csv', 'likeTheApi'],
] as const;
export const LOG_FORMS = [
	['mmdb', 'asStored'],
	['csv', 'likeTheApi'],
	['csv', 'asStored'],
	['mmdb', 'likeTheApi'],
] as const;
export const OUTPUT_SHAPES = ['asStored', 'likeTheApi'] as const;

/** A log with rows whose address is not one: row 3 not an address, row 4 empty, row 6 out of range. */
const BAD_LOG = 'ip\n8.8.8.8\nnot-an-ip\n\n2001:4860::8888\n999.1.1.1\n';
const runBadLog = (onError?: LookupRun['onError'], parameters: IDataObject = RESULT) =>
	lookUp({
		file: file('ip-geolocation', 'csv'),
		ips: [],
		csvFile: { bytes: BAD_LOG },
		parameters: { addressColumn: 'ip', ...parameters },
		onError,
	});

/** A log of seven addresses, worked through in slices. */
const SLICED_LOG =
	'ip\n' +
	[
		'8.8.8.8',
		'1.1.1.1',
		'10.0.0.1',
		'2001:4860::8888',
		'185.220.101.4',
		'104.16.132.7',
		'9.9.9.9',
	].join('\n') +
	'\n';
const slice = (options: IDataObject, parameters: IDataObject = {}) =>
	lookUp({
		file: file('ip-geolocation', 'mmdb'),
		ips: [],
		csvFile: { bytes: SLICED_LOG },
		parameters: { ...RESULT, addressColumn: 'ip', ...parameters, options },
	});

/** A tricky file parses back to the input cells, then the per-item answer, other_fields and status. */
export async function expectTrickyFileLikePerItem(
	format: FormatId,
	outputShape: OutputShape,
): Promise<void> {
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
}

/** A log of 1,500 lines against three databases: every row equal to the per-item lookup of its address. */
export async function expectLogLikePerItemOnThreeDatabases(
	format: FormatId,
	outputShape: OutputShape,
): Promise<void> {
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
}

/** MaxMind's GeoLite2 City: every row equal to the per-item lookup. */
export async function expectGeoLite2CityLikePerItem(outputShape: OutputShape): Promise<void> {
	const city = {
		bytes: readFileSync(path.join(ROOT, 'node_modules/geolite2/dbs/GeoLite2-City.mmdb')),
		fileName: 'GeoLite2-City.mmdb',
	};
	const addresses = [
		...logAddresses(
			1000,
			addressPool(
				400,
				['81.2.69.160', '89.160.20.112', '2a02:26f0::1f', '175.16.199.1', '2001:4860:4860::8888'],
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
}

/** One Item per Row: each row is the per-item answer plus csvRow, paired to the file's item. */
export async function expectOneItemPerRowLikePerItem(): Promise<void> {
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
}

/** Stop Workflow: the first bad row is named before any output, and the run fails. */
export async function expectFirstBadRowStopsTheRun(): Promise<void> {
	const { error, items } = await runBadLog();
	expect(error?.message).toBe(
		'Invalid IP Address (row 3, column 1 "ip"): "not-an-ip" is not an IPv4 address (such as 8.8.8.8) or an IPv6 address (such as 2001:4860::8888)',
	);
	expect(items).toEqual([]);
}

/** Continue (regular output), Result File: every row written, the bad ones with their reason in status. */
export async function expectBadRowsInStatus(): Promise<void> {
	const { error, items } = await runBadLog('continueRegularOutput');
	expect(error).toBeUndefined();
	const { rows } = await resultOf(items[0]);
	expect(rows.map((row) => [row[0], row[row.length - 1]])).toEqual([
		['8.8.8.8', 'ok'],
		[
			'not-an-ip',
			'invalid value: Invalid IP Address (row 3, column 1 "ip"): "not-an-ip" is not an IPv4 address (such as 8.8.8.8) or an IPv6 address (such as 2001:4860::8888)',
		],
		[
			'',
			'invalid value: Invalid IP Address (row 4, column 1 "ip"): is required: the IPv4 or IPv6 address to look up',
		],
		['2001:4860::8888', 'ok'],
		[
			'999.1.1.1',
			expect.stringMatching(
				/^invalid value: Invalid IP Address \(row 6, column 1 "ip"\): "999.1.1.1" is not/,
			),
		],
	]);
	expect(items[0].json).toMatchObject({
		rows: 5,
		answered: 2,
		failed: { invalidValue: 3 },
		nextRow: null,
	});
}

/** Continue (regular output), One Item per Row: the bad rows are error items with their row, paired, in file order. */
export async function expectBadRowsAsErrorItemsInLine(): Promise<void> {
	const { error, items } = await runBadLog('continueRegularOutput', {});
	expect(error).toBeUndefined();
	expect(
		items.map((item) =>
			item.json.error ? `error: ${String(item.json.error).slice(0, 35)}` : item.json.ip_address,
		),
	).toEqual([
		'8.8.8.8',
		'error: Invalid IP Address (row 3, column 1',
		'error: Invalid IP Address (row 4, column 1',
		'2001:4860::8888',
		'error: Invalid IP Address (row 6, column 1',
	]);
	expect(items[1].json).toMatchObject({
		csvRow: { number: 3, columns: { ip: 'not-an-ip' } },
		description: expect.stringMatching(/^Row 3 was not looked up/),
	});
}

/** Continue (error output): row items split between the outputs; a result file stays whole on the success output. */
export async function expectBadRowsOnErrorOutput(): Promise<void> {
	const rowItems = await runBadLog('continueErrorOutput', {});
	expect(rowItems.items.map((item) => item.json.ip_address)).toEqual([
		'8.8.8.8',
		'2001:4860::8888',
	]);
	expect(rowItems.errors.map((item) => (item.json.error as IDataObject).csvRow)).toEqual([
		{ number: 3, columns: { ip: 'not-an-ip' } },
		{ number: 4, columns: { ip: '' } },
		{ number: 6, columns: { ip: '999.1.1.1' } },
	]);
	const resultFile = await runBadLog('continueErrorOutput');
	expect(resultFile.errors).toEqual([]);
	expect((await resultOf(resultFile.items[0])).rows).toHaveLength(5);
}

/** Works a file through in slices: each run from the last one's nextRow, every row once, null at the end. */
export async function expectSlicesCoverEveryRowOnce(): Promise<void> {
	const seen: string[] = [];
	let startAtRow = 1;
	for (let run = 0; run < 10 && startAtRow !== null; run++) {
		const { items, error } = await slice({ startAtRow, maxRows: 3 });
		expect(error).toBeUndefined();
		seen.push(...(await resultOf(items[0])).rows.map((row) => row[0]));
		startAtRow = items[0].json.nextRow as number;
	}
	expect(startAtRow).toBeNull();
	expect(seen).toEqual(SLICED_LOG.trim().split('\n').slice(1));
}

/** Start at Row past the last row: an error that says the file is done. */
export async function expectStartPastLastRowRefused(): Promise<void> {
	const { error } = await slice({ startAtRow: 9 });
	expect(error?.message).toBe(
		"Invalid Start at Row (startAtRow): row 9 is past the file's last row (row 8): there is nothing left to look up in this file",
	);
}

/** Header Row No with a position: every row is data; a column name with Header Row No is refused. */
export async function expectHeaderRowNoByPosition(): Promise<void> {
	const { items } = await slice(
		{ headerRow: 'no', startAtRow: 2, maxRows: 1 },
		{ addressColumn: '1' },
	);
	expect((await resultOf(items[0])).header[0]).toBe('column1');
	expect((await resultOf(items[0])).rows.map((row) => row[0])).toEqual(['8.8.8.8']);
	const refused = await slice({ headerRow: 'no' });
	expect(refused.error?.message).toMatch(
		/^Invalid Address Column \(addressColumn\): "ip" is a column name, but Header Row is No/,
	);
}

/** Header Row Auto: a first row that is an address is data; a column name the header lacks is named. */
export async function expectHeaderRowAutoByContent(): Promise<void> {
	const bare = await lookUp({
		file: file('ip-geolocation', 'mmdb'),
		ips: [],
		csvFile: { bytes: '8.8.8.8\n1.1.1.1\n' },
		parameters: { ...RESULT, addressColumn: '1' },
	});
	expect(bare.items[0].json).toMatchObject({ rows: 2, firstRow: 1, fileRows: 2 });
	const missing = await slice({}, { addressColumn: 'client' });
	expect(missing.error?.message).toBe(
		'Invalid Address Column (addressColumn): the file\'s first row has no column named "client" (it has: "ip"); read as a comma file, the delimiter found from its first rows (Options > Delimiter sets another)',
	);
}
