import { useBinaryMode } from '../harness/run';
import {
	expectGeoLite2CityLikePerItem,
	expectLogLikePerItemOnThreeDatabases,
	expectOneItemPerRowLikePerItem,
	expectTrickyFileLikePerItem,
	LOG_FORMS,
	OUTPUT_SHAPES,
	TRICKY_FILE_FORMS,
} from './ipLookupFileCases';
import {
	expectBadRowsAsErrorItemsInLine,
	expectBadRowsInStatus,
	expectBadRowsOnErrorOutput,
	expectFirstBadRowStopsTheRun,
	expectHeaderRowAutoByContent,
	expectHeaderRowNoByPosition,
	expectSlicesCoverEveryRowOnce,
	expectStartPastLastRowRefused,
} from './ipLookupFileRowCases';

/**
 * IP Database Lookup, Input "CSV File", in n8n's filesystem binary mode: the log is read as a
 * stream from n8n's binary store (twice: its shape, then its rows), and the result file is handed
 * to n8n as a stream, which n8n writes to its store.
 */
jest.setTimeout(120_000);
beforeAll(async () => await useBinaryMode('filesystem'));

describe('IP Database Lookup on a CSV file (filesystem binary mode)', () => {
	it.each(TRICKY_FILE_FORMS)(
		'a tricky file (%s, %s): parses back to the input cells, then the per-item answer, other_fields and status',
		async (format, outputShape) => await expectTrickyFileLikePerItem(format, outputShape),
	);

	it.each(LOG_FORMS)(
		'a log of 1,500 lines against three databases (geolocation %s, %s): every row equal to the per-item lookup of its address',
		async (format, outputShape) => await expectLogLikePerItemOnThreeDatabases(format, outputShape),
	);

	it.each(OUTPUT_SHAPES)(
		"MaxMind's GeoLite2 City (%s): every row equal to the per-item lookup",
		async (outputShape) => await expectGeoLite2CityLikePerItem(outputShape),
	);

	it("One Item per Row: each row is the per-item answer plus csvRow, paired to the file's item", async () =>
		await expectOneItemPerRowLikePerItem());

	describe('rows whose address is not one, per On Error setting', () => {
		it('Stop Workflow: the first bad row is named before any output, and the run fails', async () =>
			await expectFirstBadRowStopsTheRun());

		it('Continue (regular output), Result File: every row written, the bad ones with their reason in status', async () =>
			await expectBadRowsInStatus());

		it('Continue (regular output), One Item per Row: the bad rows are error items with their row, paired, in file order', async () =>
			await expectBadRowsAsErrorItemsInLine());

		it('Continue (error output): row items split between the outputs; a result file stays whole on the success output', async () =>
			await expectBadRowsOnErrorOutput());
	});

	describe('slices: Start at Row, At Most Rows, nextRow; Header Row; the column', () => {
		it("works a file through in slices: each run from the last one's nextRow, every row once, null at the end", async () =>
			await expectSlicesCoverEveryRowOnce());

		it('Start at Row past the last row: an error that says the file is done', async () =>
			await expectStartPastLastRowRefused());

		it('Header Row No with a position: every row is data; a column name with Header Row No is refused', async () =>
			await expectHeaderRowNoByPosition());

		it('Header Row Auto: a first row that is an address is data; a column name the header lacks is named', async () =>
			await expectHeaderRowAutoByContent());
	});
});
