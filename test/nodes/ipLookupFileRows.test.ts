import type { IDataObject } from 'n8n-workflow';

import { BINARY_MODES, useBinaryMode } from '../harness/run';
import { file, lookUp, type LookupRun } from './ipLookupHelpers';
import { RESULT, resultOf } from './resultFileCases';

/**
 * IP Database Lookup, Input "CSV File": the rows it reads (Start at Row, At Most Rows, Header Row,
 * the column) and what a row whose address is not one does under each On Error setting, in n8n's
 * two binary modes.
 */
jest.setTimeout(120_000);

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

describe.each(BINARY_MODES)('IP Database Lookup on a CSV file, %s binary mode', (mode) => {
	beforeAll(async () => await useBinaryMode(mode));

	describe('rows whose address is not one, per On Error setting', () => {
		it('Stop Workflow: the first bad row is named before any output, and the run fails', async () => {
			const { error, items } = await runBadLog();
			expect(error?.message).toBe(
				'Invalid IP Address (row 3, column 1 "ip"): "not-an-ip" is not an IPv4 address (such as 8.8.8.8) or an IPv6 address (such as 2001:4860::8888)',
			);
			expect(items).toEqual([]);
		});

		it('Continue (regular output), Result File: every row written, the bad ones with their reason in status', async () => {
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
		});

		it('Continue (regular output), One Item per Row: the bad rows are error items with their row, paired, in file order', async () => {
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
		});

		it('Continue (error output): row items split between the outputs; a result file stays whole on the success output', async () => {
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
		});
	});

	describe('slices: Start at Row, At Most Rows, nextRow; Header Row; the column', () => {
		it("works a file through in slices: each run from the last one's nextRow, every row once, null at the end", async () => {
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
		});

		it('Start at Row past the last row: an error that says the file is done', async () => {
			const { error } = await slice({ startAtRow: 9 });
			expect(error?.message).toBe(
				"Invalid Start at Row (startAtRow): row 9 is past the file's last row (row 8): there is nothing left to look up in this file",
			);
		});

		it('Header Row No with a position: every row is data; a column name with Header Row No is refused', async () => {
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
		});

		it('Header Row Auto: a first row that is an address is data; a column name the header lacks is named', async () => {
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
		});
	});
});
