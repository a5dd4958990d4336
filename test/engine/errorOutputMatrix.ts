import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { runNode, type InputItem, type NodeRun } from '../harness/run';
import { sandboxCredential } from '../harness/sandboxCredentials';
import type { Sandbox } from '../sandbox/server';
import type { Fault, SandboxRequest } from '../sandbox/types';

/**
 * The error-output matrix's cases, as errorOutput.test.ts runs them: one case is a run of items
 * (or CSV rows) of which some fail, and what each unit comes to. The lookup nodes' cases are in
 * errorOutputLookupCases.ts, the file nodes' in errorOutputFileCases.ts, the CSV input's in
 * errorOutputCsvCases.ts.
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

export interface Answered extends Position {
	fails?: undefined;
	/** How many output items its answer makes (default 1): a Holidays or VAT answer is one per holiday or category. */
	answers?: number;
}

export interface Failed extends Position {
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
