import { startSandbox, type Sandbox } from '../sandbox/server';
import { NEW_FILE_NODES } from './csvHelpers';
import * as fileNode from './fileNodeResultCases';
import {
	expectBrokenFileIsItsItemsError,
	expectCellsOfEveryType,
	expectInvalidValueStopsTheFile,
	expectManyChunksWholeAndInOrder,
	expectOneResultItemPerFile,
	expectPhoneChosenFieldsInOrder,
	expectRefusedRowInStatus,
	expectResultFilesAndBrokenFileSplit,
	expectServiceErrorInStatus,
	expectTrickyFileParsesBack,
} from './resultFileCases';

/** Output "Result File" in n8n's default binary mode, where n8n keeps files in the items. */
let sandbox: Sandbox;
beforeAll(async () => {
	sandbox = await startSandbox();
});
afterAll(async () => await sandbox.close());
beforeEach(() => sandbox.reset());

describe('CSV input, Output: Result File (memory binary mode)', () => {
	it('parses back to the input columns exactly, then the answer columns, other_fields and status; the summary counts the run', async () =>
		await expectTrickyFileParsesBack(sandbox));

	it("phone: the numbers of the first column, the chosen fields only, in the record's order", async () =>
		await expectPhoneChosenFieldsInOrder(sandbox));

	it('a row whose value is refused (Continue On Fail): its status says so, it is counted, and it is not sent', async () =>
		await expectRefusedRowInStatus(sandbox));

	it('a row the service refuses (Continue On Fail): a service error in its status, the other rows answered', async () =>
		await expectServiceErrorInStatus(sandbox));

	it('a file that breaks a rule is an error of its item, with no request and no file', async () =>
		await expectBrokenFileIsItsItemsError(sandbox));

	it('an invalid value without Continue On Fail stops the file before any request, naming the row as the file has it', async () =>
		await expectInvalidValueStopsTheFile(sandbox));

	it('the header is written before any answer: a file of many chunks comes out whole and in file order', async () =>
		await expectManyChunksWholeAndInOrder(sandbox));

	it('one item per file: two files, two result items, each paired to its file', async () =>
		await expectOneResultItemPerFile(sandbox));

	it('Continue (using error output): result files on the success output, with failed rows inside; a broken file on the error output', async () =>
		await expectResultFilesAndBrokenFileSplit(sandbox));

	it('cells answered with values of every type: empty for null, JSON for arrays, true/false, numbers as written', () =>
		expectCellsOfEveryType());

	describe('the other nodes that take a file', () => {
		describe.each(NEW_FILE_NODES.map((node) => [node.label, node] as const))(
			'%s',
			(_label, node) => {
				it('a tricky file parses back to its cells, then the answer columns, other_fields and status', async () =>
					await fileNode.expectTrickyFileParsesBack(sandbox, node));

				it('one item per row: the record as it came, the row beside it, paired to the file item', async () =>
					await fileNode.expectOneItemPerRow(sandbox, node));

				it('a value refused in the last row, or an empty row after it: the file is refused whole, no request sent', async () =>
					await fileNode.expectRefusedFileSendsNothing(sandbox, node));

				it('Continue On Fail: the refused row says so in its status and is not sent; the others are answered', async () =>
					await fileNode.expectRefusedRowInStatus(sandbox, node));

				it('Header Row Auto with a position: a first row holding a value is data, a first row of names a header', async () =>
					await fileNode.expectHeaderRowAutoByPosition(sandbox, node));
			},
		);
	});
});
