import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { shortenRetryBudget } from '../harness/retryBudget';
import { csvItem } from '../nodes/csvHelpers';
import { startSandbox, type Sandbox } from '../sandbox/server';
import { databaseControls } from '../sandbox/services/database';
import { CSV_CASES, emailCsv } from './errorOutputCsvCases';
import { FILE_CASES } from './errorOutputFileCases';
import { LOOKUP_CASES } from './errorOutputLookupCases';
import {
	mark,
	nodeRun,
	type Case,
	type Failed,
	type OnError,
	type RunOutcome,
	type Unit,
} from './errorOutputMatrix';

/**
 * The error-output matrix: n8n's three On Error settings on every node. Each case (a run of items
 * or CSV rows of which some fail; errorOutputMatrix.ts) runs under each setting through n8n-core's
 * WorkflowExecute and is checked the same way for every node. Output items are counted, not just
 * ordered: an item output twice, or one missing, fails the case.
 * - Stop Workflow: the run stops with the first failure's error (naming the field and the rule),
 *   and for a failure found in the input, before any request is sent;
 * - Continue (using regular output): one output, each failure an item in line, paired to its
 *   input, shaped `{ error: <string>, description, csvRow? }` as the package always gave, its
 *   description word for word;
 * - Continue (using error output): the success output holds only answers, in order; the error
 *   output exactly the failures, paired to their input, with `error.message`,
 *   `error.description` (and `error.csvRow` for a row), merged by n8n over the input item's JSON.
 */
let sandbox: Sandbox;
let restoreBudget: () => void;
beforeAll(async () => {
	sandbox = await startSandbox();
	// A lasting 500 or 503 is retried for the retry budget (two minutes in the product).
	restoreBudget = shortenRetryBudget(1200);
});
beforeEach(() => databaseControls(sandbox).reset());
afterAll(async () => {
	restoreBudget();
	await sandbox.close();
});

const keyOf = (json: IDataObject, pairedItem: unknown) => {
	const row = (json.csvRow as IDataObject | undefined)?.number;
	return `${(pairedItem as { item: number }).item}${row === undefined ? '' : `/${row}`}`;
};
const unitKey = (unit: Unit) => `${unit.item}${unit.row === undefined ? '' : `/${unit.row}`}`;

/** The output items a list of units must come to, in order: one per failure, `answers` per answer. */
const expectedItems = (units: Unit[], label: (unit: Unit) => string) =>
	units.flatMap((unit) => Array<string>(unit.fails ? 1 : (unit.answers ?? 1)).fill(label(unit)));

/** The case's run under one On Error setting, on a sandbox reset and arranged for it. */
async function runCase(testCase: Case, onError: OnError): Promise<RunOutcome> {
	sandbox.reset();
	testCase.arrange?.(sandbox);
	return await testCase.run(sandbox, onError);
}

const failuresOf = (testCase: Case) =>
	testCase.units.filter((unit): unit is Failed => unit.fails !== undefined);

/** Stop Workflow (default): the run stops with the first failure, naming it, and outputs nothing. */
async function expectStopsWithTheFailure(testCase: Case): Promise<void> {
	const { error, items } = await runCase(testCase, 'stopWorkflow');
	expect(error?.message).toMatch(testCase.stopsWith ?? failuresOf(testCase)[0].fails);
	expect(items).toEqual([]);
	if (testCase.stopDescribes) expect(error?.description).toMatch(testCase.stopDescribes);
	if (testCase.foundInInput) expect(sandbox.requests(testCase.service)).toEqual([]);
}

/** Continue (using regular output): every unit's items in order, each failure a paired `{ error, description }`. */
async function expectFailuresInLine(testCase: Case): Promise<void> {
	const failures = failuresOf(testCase);
	const { error, items, errorItems } = await runCase(testCase, 'continueRegularOutput');
	expect(error).toBeUndefined();
	expect(errorItems).toEqual([]);
	const outcome = (item: INodeExecutionData) =>
		`${keyOf(item.json, item.pairedItem)}${item.json.error === undefined ? '' : ' failed'}`;
	expect(items.map(outcome)).toEqual(
		expectedItems(testCase.units, (unit) => `${unitKey(unit)}${unit.fails ? ' failed' : ''}`),
	);
	const failed = items.filter((item) => item.json.error !== undefined);
	failed.forEach((item, index) => {
		const unit = failures[index];
		expect(item.json.error).toEqual(expect.stringMatching(unit.fails));
		expect(item.json.description).toBe(unit.describedAs);
		// The package's error item, not the input item n8n passes on when a node throws.
		expect(Object.keys(item.json).sort()).toEqual(
			unit.row === undefined ? ['description', 'error'] : ['csvRow', 'description', 'error'],
		);
		if (unit.row !== undefined)
			expect(item.json.csvRow).toEqual({ number: unit.row, columns: expect.any(Object) });
	});
}

/** Continue (using error output): the answers in order on output 0, exactly the failures on output 1. */
async function expectFailuresOnErrorOutput(testCase: Case): Promise<void> {
	const failures = failuresOf(testCase);
	const successes = testCase.units.filter((unit) => !unit.fails);
	const { error, items, errorItems } = await runCase(testCase, 'continueErrorOutput');
	expect(error).toBeUndefined();
	expect(items.filter((item) => item.json.error !== undefined)).toEqual([]);
	expect(items.map((item) => keyOf(item.json, item.pairedItem))).toEqual(
		expectedItems(successes, unitKey),
	);
	expect(errorItems.map((item) => item.pairedItem)).toEqual(
		failures.map((unit) => ({ item: unit.item })),
	);
	errorItems.forEach((item, index) => {
		const unit = failures[index];
		const details = item.json.error as IDataObject;
		expect(details.message).toEqual(expect.stringMatching(unit.fails));
		expect(details.description).toBe(unit.describedAs);
		if (unit.row !== undefined)
			expect(details.csvRow).toEqual({ number: unit.row, columns: expect.any(Object) });
		// n8n merged the failure over its input item: what a "mark as failed" branch reads.
		expect(item.json).toMatchObject(testCase.inputJson?.(unit.item) ?? { mark: mark(unit.item) });
	});
}

describe.each([...LOOKUP_CASES, ...FILE_CASES, ...CSV_CASES])('$name [$path]', (testCase) => {
	it('Stop Workflow (default): the run stops with the failure, naming it', async () =>
		await expectStopsWithTheFailure(testCase));

	it('Continue (using regular output): each failure a paired { error, description } item in line', async () =>
		await expectFailuresInLine(testCase));

	it('Continue (using error output): answers in order on output 0, exactly the failures on output 1', async () =>
		await expectFailuresOnErrorOutput(testCase));
});

describe('what a failed CSV row says', () => {
	// A failed row names its row: "row 67 was not sent", not "Item 1 was not sent" (the file's item); and the
	// row is named once, not "CSV row 3: Invalid Email (row 3, column 2): ...".
	it('names the row, not the file item, in the description of its error', async () => {
		sandbox.reset();
		const run = nodeRun(emailCsv, [
			csvItem('name,email\nAnn,ann@acme.io\nNobody,\nBob,bob@acme.io\n'),
		]);
		const { errorItems } = await run(sandbox, 'continueErrorOutput');
		const error = errorItems[0].json.error as { message: string; description: string };
		expect(error.description).toMatch(/^(CSV )?[Rr]ow 3 was not sent/);
		expect(error.message).not.toMatch(/row 3.*row 3/);
	});
});
