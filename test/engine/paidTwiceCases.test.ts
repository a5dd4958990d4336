import type { IDataObject } from 'n8n-workflow';

import { hintsOf } from '../harness/hints';
import { keptAnswers as kept, sandboxWithEmptyStore, keptAnswersHeld } from '../harness/keptStore';
import {
	emailOf,
	firstTimeOnly,
	newWorkflowId,
	paidEmails,
	RETRY_ON_FAIL,
} from '../harness/retryOnFail';
import { shortenRetryBudget } from '../harness/retryBudget';
import { retryExecution, runNode, type NodeRun, type RunResult } from '../harness/run';
import { sandboxCredential } from '../harness/sandboxCredentials';
import { csvItem } from '../nodes/csvHelpers';
import { RESULT, resultOf } from '../nodes/resultFileCases';
import type { Sandbox } from '../sandbox/server';
import type { SandboxRequest } from '../sandbox/types';

/**
 * The interleavings a careful reviewer found paying twice, or misstating what was paid, each as
 * a named case run through n8n-core against the sandbox (the list of the change that made paid
 * answers payments: docs/errors-and-credits.md, "Who may take a paid answer"). Each fails on the
 * store that kept one replaceable entry per request.
 */
const started = sandboxWithEmptyStore();
let sandbox: Sandbox;
beforeEach(() => (sandbox = started()));

const paid = () => paidEmails(sandbox);
const paidOf = (value: string) => paid().filter((email) => email === value).length;
const items = (...values: string[]) => values.map((email) => ({ json: { email } }));
const is = (value: string) => (request: SandboxRequest) => emailOf(request) === value;

interface EmailRun {
	values: string[];
	workflowId: string;
	mode?: NodeRun['mode'];
	settings?: NodeRun['settings'];
	onError?: NodeRun['onError'];
	options?: IDataObject;
	rate?: number;
}

const runEmail = ({
	values,
	workflowId,
	mode = 'webhook',
	settings,
	onError,
	options,
	rate,
}: EmailRun) =>
	runNode({
		type: 'abstractEmail',
		parameters: { email: '={{ $json.email }}', options: options ?? {} },
		credential: sandboxCredential(sandbox, 'email', rate ? { requestsPerSecond: rate } : {}),
		items: items(...values),
		workflowId,
		mode,
		settings: settings ?? {},
		onError,
	});

/** A promise and its resolve: the sandbox holds a request until the test lets it go. */
function gate(): { opened: Promise<void>; open: () => void } {
	let open: () => void = () => undefined;
	const opened = new Promise<void>((resolve) => (open = resolve));
	return { opened, open };
}

/** Resolves once the sandbox has answered `value` (200) `times` times. */
async function answered(value: string, times = 1): Promise<void> {
	while (paidOf(value) < times) await new Promise((resolve) => setTimeout(resolve, 5));
}

describe('case 1: two executions of one workflow at once', () => {
	it('A pays x and y then fails on z while B pays x: A keeps 2 answers, and its Retry pays z alone', async () => {
		const workflowId = newWorkflowId('overlap');
		const held = gate();
		sandbox.faultWhen('email', is('z@example.com'), {
			kind: 'delay',
			ms: 0,
			until: held.opened,
			then: { kind: 'status', status: 400, message: 'Bad request' },
		});
		const a = runEmail({ values: ['x@example.com', 'y@example.com', 'z@example.com'], workflowId });
		await answered('y@example.com');
		const b = await runEmail({ values: ['x@example.com'], workflowId });
		expect(b.error).toBeUndefined();
		held.open();
		const failed = await a;
		expect(failed.error?.description).toMatch(
			/This n8n process keeps the 2 answers this execution paid for/,
		);
		sandbox.reset();
		expect((await retryExecution(failed)).error).toBeUndefined();
		expect(paid()).toEqual(['z@example.com']);
	});

	it("Retry On Fail: B pays x while A waits between tries; A's next try takes its own x (3 charges for 3 payments, not 4)", async () => {
		const workflowId = newWorkflowId('overlap');
		sandbox.faultWhen('email', firstTimeOnly(is('z@example.com')), {
			kind: 'status',
			status: 400,
			message: 'Bad request, once',
		});
		const a = runEmail({
			values: ['x@example.com', 'y@example.com', 'z@example.com'],
			workflowId,
			settings: { ...RETRY_ON_FAIL, waitBetweenTries: 1500 },
		});
		await answered('y@example.com');
		await new Promise((resolve) => setTimeout(resolve, 200));
		expect((await runEmail({ values: ['x@example.com'], workflowId })).error).toBeUndefined();
		expect((await a).error).toBeUndefined();
		expect([paidOf('x@example.com'), paidOf('y@example.com'), paidOf('z@example.com')]).toEqual([
			2, 1, 1,
		]);
	});
});

describe('case 2: a successful Retry gives back no claim it did not hold', () => {
	it('A paid a, A2 paid b; the Retry of A takes b from A2, and the Retry of A2 then pays d alone', async () => {
		const workflowId = newWorkflowId('claims');
		sandbox.setQuota('email', 1);
		const a = await runEmail({
			values: ['a@example.com', 'b@example.com', 'c@example.com'],
			workflowId,
		});
		sandbox.setQuota('email', 1);
		const a2 = await runEmail({ values: ['b@example.com', 'd@example.com'], workflowId });
		expect([a.error?.message, a2.error?.message]).toEqual([
			expect.stringMatching(/credits/),
			expect.stringMatching(/credits/),
		]);
		sandbox.reset();
		expect((await retryExecution(a)).error).toBeUndefined();
		expect(paid()).toEqual(['c@example.com']);
		sandbox.reset();
		expect((await retryExecution(a2)).error).toBeUndefined();
		expect(paid()).toEqual(['d@example.com']);
	});
});

describe('case 3: a result file cut by a spent plan, resumed as the docs say', () => {
	it('a row answered late (429, Retry-After 1): the resume from nextRow, skipping skipRows, pays no row twice', async () => {
		const values = Array.from({ length: 8 }, (_, index) => `row${index + 1}@example.com`);
		const file = csvItem(`email\n${values.join('\n')}\n`);
		const parameters = {
			input: 'csvFile',
			binaryPropertyName: 'data',
			emailColumn: 'email',
			...RESULT,
		};
		// Row 3 (values[1]) answers late: held until rows 4 to 7 are answered, then refused once with
		// a 429 (Retry-After: 1); its retry meets the spent plan.
		const later = (async () => {
			for (const value of values.slice(2, 6)) await answered(value);
		})();
		sandbox.faultWhen('email', firstTimeOnly(is(values[1])), {
			kind: 'delay',
			ms: 0,
			until: later,
			then: { kind: 'status', status: 429, retryAfter: 1 },
		});
		sandbox.setQuota('email', 5);
		const run = (options: IDataObject) =>
			runNode({
				type: 'abstractEmail',
				parameters: { ...parameters, options },
				credential: sandboxCredential(sandbox, 'email'),
				items: [file],
				workflowId: newWorkflowId('resume'),
				mode: 'trigger',
			});
		const first = await run({});
		const summary = first.items[0].json;
		expect(summary).toMatchObject({
			answered: 5,
			nextRow: 3,
			skipRows: '4-7',
			stoppedBy: 'planRanOut',
		});
		const answeredFirst = new Set(paid());
		sandbox.reset();
		const second = await run({ startAtRow: summary.nextRow, skipRows: summary.skipRows });
		expect(second.error).toBeUndefined();
		const paidSecond = paid();
		expect(paidSecond.filter((value) => answeredFirst.has(value))).toEqual([]);
		expect([...answeredFirst, ...paidSecond].sort()).toEqual([...values].sort());
		const rows = (await resultOf(second.items[0])).rows;
		expect(rows.every((row) => row[row.length - 1] === 'ok')).toBe(true);
	});
});

describe('case 4: a repeated value after the plan runs out', () => {
	it("[a,b,c,a,d] at 1/s, the plan spent at c: item 4 has item 1's answer; only c and d are not sent", async () => {
		sandbox.setQuota('email', 2);
		const run = await runEmail({
			values: ['a@example.com', 'b@example.com', 'c@example.com', 'a@example.com', 'd@example.com'],
			workflowId: newWorkflowId('repeat'),
			onError: 'continueErrorOutput',
			rate: 1,
		});
		expect(run.items.map((item) => item.json.email_address)).toEqual([
			'a@example.com',
			'b@example.com',
			'a@example.com',
		]);
		expect(run.errorItems.map((item) => (item.json.error as IDataObject).message)).toEqual([
			expect.stringMatching(/used up \(422\)/),
			expect.stringMatching(/^Item 5 was not sent/),
		]);
	});
});

describe('case 5: Send Repeated Values Once changed before a Retry', () => {
	it('the Retry of the saved workflow takes a, b and c (the same requests) and pays d alone', async () => {
		sandbox.setQuota('email', 3);
		const failed = await runEmail({
			values: ['a@example.com', 'b@example.com', 'c@example.com', 'd@example.com'],
			workflowId: newWorkflowId('repeats-option'),
		});
		expect(failed.error?.message).toMatch(/credits/);
		sandbox.reset();
		const nodes = failed.workflowJson.nodes.map((node) =>
			node.name === 'Node'
				? { ...node, parameters: { ...node.parameters, options: { sendRepeatsOnce: false } } }
				: node,
		);
		const retried = await retryExecution({
			...failed,
			workflowJson: { ...failed.workflowJson, nodes },
		});
		expect(retried.error).toBeUndefined();
		expect(paid()).toEqual(['d@example.com']);
	});
});

describe('case 6: a full budget', () => {
	let previous = 0;
	afterEach(() => kept.setKeptAnswersBudget(previous));

	it('repeats off: what the run will take is not dropped for its own payments; it sends what the estimate says', async () => {
		previous = kept.setKeptAnswersBudget(kept.KEPT_ANSWERS_BUDGET);
		const workflowId = newWorkflowId('budget');
		const values = Array.from({ length: 6 }, (_, index) => `lead${index + 1}@example.com`);
		const options = { sendRepeatsOnce: false };
		await runEmail({ values, workflowId, mode: 'manual', options });
		kept.setKeptAnswersBudget(keptAnswersHeld().size);
		const again = { values: ['new@example.com', ...values], workflowId, mode: 'manual' as const };
		const estimate = await runEmail({ ...again, options: { ...options, estimateOnly: true } });
		expect(estimate.items[0].json.requestsToSend).toBe(1);
		sandbox.reset();
		expect((await runEmail({ ...again, options, rate: 1 })).error).toBeUndefined();
		expect(paid()).toEqual(['new@example.com']);
	});

	it("Retry On Fail with Continue, the first item refused once: the next try takes the first try's 4 answers (5 charges for 5 leads)", async () => {
		previous = kept.setKeptAnswersBudget(kept.KEPT_ANSWERS_BUDGET);
		const values = Array.from({ length: 5 }, (_, index) => `lead${index + 1}@example.com`);
		// The budget holds 4 answers of this size: the first try's.
		await runEmail({ values: values.slice(1), workflowId: newWorkflowId('size'), mode: 'manual' });
		kept.setKeptAnswersBudget(keptAnswersHeld().size);
		kept.dropKeptAnswers();
		sandbox.reset();
		sandbox.faultWhen('email', firstTimeOnly(is(values[0])), {
			kind: 'status',
			status: 400,
			message: 'Bad request, once',
		});
		const run = await runEmail({
			values,
			workflowId: newWorkflowId('budget'),
			settings: RETRY_ON_FAIL,
			onError: 'continueRegularOutput',
			rate: 1,
		});
		expect(run.items.map((item) => item.json.email_address)).toEqual(values);
		expect(paid()).toEqual([...values].sort());
	});
});

/** Image Processing from a URL, its result downloaded: one unit, one processing, one download. */
const imageNode = (settings: NodeRun['settings'] = {}) =>
	runNode({
		type: 'abstractImages',
		parameters: {
			source: 'url',
			url: 'https://cdn.example.com/a.png',
			resizeStrategy: 'exact',
			width: 10,
			height: 10,
			downloadResult: true,
		},
		credential: sandboxCredential(sandbox, 'images'),
		settings,
		workflowId: newWorkflowId('images'),
	});
const processings = () =>
	sandbox.requests('images').filter((request) => request.status === 200).length;

describe('case 7: Image Processing, the processed file gone', () => {
	// The storage's ways of saying a file is not served: expired (403), removed (404), gone (410).
	for (const status of [403, 404, 410] as const) {
		it(`Retry On Fail, the storage answers ${status}: the kept link is dropped and the image processed again, once`, async () => {
			let refused: string | undefined;
			sandbox.refuseDownloads((path) => (refused ??= path) === path, status);
			const run = await imageNode(RETRY_ON_FAIL);
			expect(run.error).toBeUndefined();
			expect(processings()).toBe(2);
			expect(Object.keys(run.items[0].binary ?? {})).toEqual(['data']);
		});

		it(`a Retry of the failed execution, the storage answers ${status}: the failed execution's link is dropped and the image processed again, once`, async () => {
			let refused: string | undefined;
			sandbox.refuseDownloads((path) => (refused ??= path) === path, status);
			const failed = await imageNode();
			expect(failed.error?.message).toMatch(new RegExp(`\\(${status}\\)`));
			expect(processings()).toBe(1);
			const retried = await retryExecution(failed);
			expect(retried.error).toBeUndefined();
			expect(processings()).toBe(2);
			expect(Object.keys(retried.output('Node')[0]?.binary ?? {})).toEqual(['data']);
		});
	}
});

describe('case 7: Image Processing, the processed file not served for a while', () => {
	let restoreBudget: () => void;
	beforeAll(() => (restoreBudget = shortenRetryBudget(1500)));
	afterAll(() => restoreBudget());

	it('a Retry of the execution whose download the storage refused with 503: the kept link is downloaded again, the image not processed again', async () => {
		sandbox.refuseDownloads(() => true, 503);
		const failed = await imageNode();
		expect(failed.error?.message).toMatch(/503/);
		const downloads = () => sandbox.requests('storage').length;
		const refusedDownloads = downloads();
		expect(refusedDownloads).toBeGreaterThan(0);

		sandbox.refuseDownloads(() => false);
		const retried = await retryExecution(failed);
		expect(retried.error).toBeUndefined();
		expect(processings()).toBe(1);
		expect(downloads()).toBe(refusedDownloads + 1);
		expect(Object.keys(retried.output('Node')[0]?.binary ?? {})).toEqual(['data']);
	});
});

describe('case 8: figures by cause', () => {
	it('Retry On Fail on [a,a,a,bad]: 1 item charged, 2 shared, not "3 items already answered (and charged)"', async () => {
		sandbox.faultWhen('email', is('bad@example.com'), { kind: 'status', status: 400 });
		const run = await runEmail({
			values: ['a@example.com', 'a@example.com', 'a@example.com', 'bad@example.com'],
			workflowId: newWorkflowId('figures'),
			settings: RETRY_ON_FAIL,
		});
		expect(run.error?.description).toMatch(
			/Discarded: 1 item already answered \(and charged\) in this run, and 2 items more answered at no charge \(2 shared the answer of a repeated value\)/,
		);
	});

	it('a result file under Retry On Fail says this execution paid its 3 rows, not that it reused them', async () => {
		const file = csvItem('email\na@example.com\nb@example.com\nc@example.com\n');
		const run = await runNode({
			type: 'abstractEmail',
			parameters: { input: 'csvFile', binaryPropertyName: 'data', emailColumn: 'email', ...RESULT },
			credential: sandboxCredential(sandbox, 'email'),
			// The first item has no file: its error item makes n8n run the node again.
			items: [{ json: {} }, file],
			settings: RETRY_ON_FAIL,
			onError: 'continueRegularOutput',
			workflowId: newWorkflowId('figures'),
		});
		expect(paid()).toEqual(['a@example.com', 'b@example.com', 'c@example.com']);
		expect(run.items[1].json).toMatchObject({ requestsSent: 0, answersPaid: 3, answersReused: 0 });
	});

	it('pacing off: the repeat of a value refused with 422 was not sent, and the hint counts it', async () => {
		sandbox.setQuota('email', 2);
		const run = await runEmail({
			values: ['a@example.com', 'b@example.com', 'c@example.com', 'c@example.com'],
			workflowId: newWorkflowId('figures'),
			onError: 'continueRegularOutput',
		});
		expect(run.items[3].json.error).toMatch(/^Item 4 was not sent/);
		expect(hintsOf(run).join('\n')).toMatch(/1 item after it was not sent and cost nothing/);
	});

	it('a file stopped at its first row counts rows, not items', async () => {
		sandbox.setQuota('email', 0);
		const run = await runNode({
			type: 'abstractEmail',
			parameters: { input: 'csvFile', binaryPropertyName: 'data', emailColumn: 'email' },
			credential: sandboxCredential(sandbox, 'email', { requestsPerSecond: 1 }),
			items: [csvItem('email\na@example.com\nb@example.com\nc@example.com\nd@example.com\n')],
			onError: 'continueRegularOutput',
			workflowId: newWorkflowId('figures'),
		});
		expect(hintsOf(run).join('\n')).toMatch(/at CSV row 2: 3 rows after it were not sent/);
	});

	it('a Retry that took from one failed execution says one, though another run paid the same since', async () => {
		const workflowId = newWorkflowId('figures');
		sandbox.setQuota('email', 2);
		const failed: RunResult = await runEmail({
			values: ['a@example.com', 'b@example.com', 'x@example.com'],
			workflowId,
		});
		sandbox.setQuota('email', 100);
		expect((await runEmail({ values: ['a@example.com'], workflowId })).error).toBeUndefined();
		const retried = await retryExecution(failed);
		expect(hintsOf(retried)).toContain(
			'2 answers reused from a failed execution of this node (a Retry takes them for an hour), not paid for again',
		);
	});
});
