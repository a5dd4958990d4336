import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { runNode, type InputItem, type NodeRun } from '../harness/run';
import { sandboxCredential } from '../harness/sandboxCredentials';
import type { Sandbox } from '../sandbox/server';
import type { Fault, SandboxRequest } from '../sandbox/types';

/**
 * The error-output matrix (n8n's three On Error settings on every node): one case is a run of
 * items (or CSV rows) of which some fail, run under each of n8n's three "On Error" settings
 * through n8n-core's WorkflowExecute, and checked the same way for every node. Output items are
 * counted, not just ordered: an item output twice, or one missing, fails the case.
 * - Stop Workflow: the run stops with the first failure's error (naming the field and the rule),
 *   and for a failure found in the input, before any request is sent;
 * - Continue (using regular output): one output, each failure an item in line, paired to its
 *   input, shaped `{ error: <string>, description, csvRow? }` as the package always gave, its
 *   description word for word;
 * - Continue (using error output): the success output holds only answers, in order; the error
 *   output exactly the failures, paired to their input, with `error.message`,
 *   `error.description` (and `error.csvRow` for a row), merged by n8n over the input item's JSON.
 */
export type OnError = 'stopWorkflow' | 'continueRegularOutput' | 'continueErrorOutput';

export interface RunOutcome {
	items: INodeExecutionData[];
	/** The node's error output (output 1); empty unless "Continue (using error output)". */
	errorItems: INodeExecutionData[];
	error?: Error & { description?: string | null };
}

/** What one input item (or one CSV row of it) comes to: answered, or failed with a message. */
export type Unit = Answered | Failed;

interface Position {
	item: number;
	/** The CSV row number (as `csvRow.number` gives it) when the unit is a row of a file. */
	row?: number;
}

interface Answered extends Position {
	fails?: undefined;
	/** How many output items its answer makes (default 1): a Holidays or VAT answer is one per holiday or category. */
	answers?: number;
}

interface Failed extends Position {
	fails: RegExp;
	/** The error's description, word for word. */
	describedAs: string;
}

export interface Case {
	name: string;
	/** The failure path the case covers, for the matrix's summary. */
	path:
		| 'invalid input'
		| 'service error after retries'
		| 'refused key'
		| 'plan exhausted'
		| 'invalid CSV file'
		| 'invalid CSV row value'
		| 'broken or missing database'
		| 'lookup error';
	/** The sandbox service whose request log the case reads. */
	service: string;
	units: Unit[];
	/** Whether the failure is found before anything is sent (Stop Workflow then sends nothing). */
	foundInInput?: boolean;
	/** The error that stops the run, when it is not the first failing unit's. */
	stopsWith?: RegExp;
	/** What the stopping error's description must say (what was answered, and charged, in vain). */
	stopDescribes?: RegExp;
	/** Faults, quotas and the like, set before each run. */
	arrange?: (sandbox: Sandbox) => void;
	run: (sandbox: Sandbox, onError: OnError) => Promise<RunOutcome>;
	/** JSON of input item `item` that n8n must have merged into its error item (default: its mark). */
	inputJson?: (item: number) => IDataObject;
}

/** Each input item carries its own mark, so that a failed item's merge with its input shows. */
export const mark = (item: number) => `input ${item + 1}`;

/** One of the package's nodes on items built from `values`, with its credential on the sandbox. */
export function nodeRun(
	spec: Omit<NodeRun, 'credential' | 'items' | 'onError'> & {
		service: string;
		credential?: (sandbox: Sandbox) => IDataObject;
	},
	items: InputItem[],
): Case['run'] {
	const { service, credential, ...rest } = spec;
	return async (sandbox, onError) =>
		await runNode({
			...rest,
			credential: sandboxCredential(sandbox, service, credential?.(sandbox)),
			items: items.map((item, index) => ({ ...item, json: { ...item.json, mark: mark(index) } })),
			onError,
		});
}

/** A key of another service: the sandbox, as the live suite, answers 401. */
export const keyOfAnotherService = (service: string) => (sandbox: Sandbox) => ({
	apiKey: sandbox.keys[service],
});

/** The requests that carry `value` in their query or fields. */
export const carrying = (value: string) => (request: Pick<SandboxRequest, 'query' | 'fields'>) =>
	JSON.stringify([request.query, request.fields]).includes(JSON.stringify(value));

/** A fault that lasts: every retry of the picked request fails the same. */
export const lasting = (status: number): Fault => ({ kind: 'status', status, retryAfter: 0 });

/** Items each carrying one field, `{ [field]: value }`. */
export const valueItems = (field: string, values: unknown[]): InputItem[] =>
	values.map((value) => ({ json: { [field]: value } as IDataObject }));

const keyOf = (json: IDataObject, pairedItem: unknown) => {
	const row = (json.csvRow as IDataObject | undefined)?.number;
	return `${(pairedItem as { item: number }).item}${row === undefined ? '' : `/${row}`}`;
};
const unitKey = (unit: Unit) => `${unit.item}${unit.row === undefined ? '' : `/${unit.row}`}`;

/** The output items a list of units must come to, in order: one per failure, `answers` per answer. */
const expectedItems = (units: Unit[], label: (unit: Unit) => string) =>
	units.flatMap((unit) => Array<string>(unit.fails ? 1 : (unit.answers ?? 1)).fill(label(unit)));

/** The case's run under one On Error setting, on a sandbox reset and arranged for it. */
async function runCase(sandbox: Sandbox, testCase: Case, onError: OnError): Promise<RunOutcome> {
	sandbox.reset();
	testCase.arrange?.(sandbox);
	return await testCase.run(sandbox, onError);
}

const failuresOf = (testCase: Case) =>
	testCase.units.filter((unit): unit is Failed => unit.fails !== undefined);

/** Stop Workflow (default): the run stops with the first failure, naming it, and outputs nothing. */
export async function expectStopsWithTheFailure(sandbox: Sandbox, testCase: Case): Promise<void> {
	const { error, items } = await runCase(sandbox, testCase, 'stopWorkflow');
	expect(error?.message).toMatch(testCase.stopsWith ?? failuresOf(testCase)[0].fails);
	expect(items).toEqual([]);
	if (testCase.stopDescribes) expect(error?.description).toMatch(testCase.stopDescribes);
	if (testCase.foundInInput) expect(sandbox.requests(testCase.service)).toEqual([]);
}

/** Continue (using regular output): every unit's items in order, each failure a paired `{ error, description }`. */
export async function expectFailuresInLine(sandbox: Sandbox, testCase: Case): Promise<void> {
	const failures = failuresOf(testCase);
	const { error, items, errorItems } = await runCase(sandbox, testCase, 'continueRegularOutput');
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
export async function expectFailuresOnErrorOutput(sandbox: Sandbox, testCase: Case): Promise<void> {
	const failures = failuresOf(testCase);
	const successes = testCase.units.filter((unit) => !unit.fails);
	const { error, items, errorItems } = await runCase(sandbox, testCase, 'continueErrorOutput');
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
