import type { IDataObject } from 'n8n-workflow';

import { newWorkflowId } from '../harness/retryOnFail';
import { keptAnswers as kept, keptAnswersHeld } from '../harness/keptStore';
import { hintsOf } from '../harness/hints';
import { retryExecution, runNode, runWorkflow, type NodeRun, type RunResult } from '../harness/run';
import { sandboxCredential } from '../harness/sandboxCredentials';
import { csvItem, leadsCsv } from '../nodes/csvHelpers';
import { RESULT, resultOf } from '../nodes/resultFileCases';
import { emailRecord } from '../sandbox/services/email';
import { startSandbox, type Sandbox } from '../sandbox/server';

/**
 * A person building a workflow runs it again and again (Execute workflow, Execute step: n8n's
 * `manual` mode) on the same test data. A test run pays only for what no test run of the node
 * answered in the last hour (Reuse Answers of Test Runs, on by default); production runs (every
 * other mode) ask afresh, unless Reuse Answers For (Hours) says for how long they may reuse
 * earlier production runs' answers. Every test counts the sandbox's requests.
 */
let sandbox: Sandbox;
let now = Date.now();
beforeAll(async () => {
	sandbox = await startSandbox();
});
afterAll(async () => {
	kept.dropKeptAnswers?.();
	await sandbox.close();
});
beforeEach(() => {
	sandbox.reset();
	kept.dropKeptAnswers?.(() => now);
	now = Date.now();
});

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const sent = () => sandbox.requests('email').length;
const emails = (count: number) =>
	Array.from({ length: count }, (_, index) => `lead${index + 1}@example.com`);
const emailItems = (values: string[]) => values.map((email) => ({ json: { email } }));
const CSV_ROWS = { input: 'csvFile', binaryPropertyName: 'data', emailColumn: 'email' };

interface EmailRun {
	items: NodeRun['items'];
	workflowId: string;
	mode?: NodeRun['mode'];
	options?: IDataObject;
	parameters?: IDataObject;
	credential?: IDataObject;
	onError?: NodeRun['onError'];
}

const runEmail = ({
	items,
	workflowId,
	mode,
	options = {},
	parameters = {},
	credential,
	onError,
}: EmailRun) =>
	runNode({
		type: 'abstractEmail',
		parameters: { email: '={{ $json.email }}', ...parameters, options },
		credential: sandboxCredential(sandbox, 'email', credential),
		items,
		workflowId,
		mode,
		onError,
	});

/** Runs `run` and returns how many requests the sandbox got meanwhile, and the run. */
async function counted<R extends RunResult>(run: () => Promise<R>): Promise<[number, R]> {
	sandbox.reset();
	const result = await run();
	expect(result.error).toBeUndefined();
	return [sent(), result];
}

describe('test runs (manual mode) reuse what a test run of the node paid for', () => {
	const values = emails(50);

	it('the second identical test run sends nothing and gives the same items, paired; the hint says how many and from when', async () => {
		const workflowId = newWorkflowId('test-runs');
		const [first, firstRun] = await counted(
			async () => await runEmail({ items: emailItems(values), workflowId }),
		);
		expect(first).toBe(50);
		now += 4 * MINUTE;
		const [second, secondRun] = await counted(
			async () => await runEmail({ items: emailItems(values), workflowId }),
		);
		expect(second).toBe(0);
		expect(secondRun.items.map((item) => item.json)).toEqual(
			firstRun.items.map((item) => item.json),
		);
		expect(secondRun.items.map((item) => item.json)).toEqual(
			values.map((value) => emailRecord(value)),
		);
		expect(secondRun.items.map((item) => item.pairedItem)).toEqual(
			values.map((_, item) => ({ item })),
		);
		expect(hintsOf(secondRun)).toContain(
			'50 of 50 answers reused from a test run 4 minutes ago: no credit (turn Reuse Answers of Test Runs off in Options to ask afresh)',
		);
		expect(hintsOf(firstRun).join('\n')).not.toMatch(/reused/);
	});

	it('a changed item sends one request; the others come from the earlier test run', async () => {
		const workflowId = newWorkflowId('test-runs');
		await runEmail({ items: emailItems(values), workflowId });
		const changed = [...values];
		changed[17] = 'changed@example.com';
		const [second, run] = await counted(
			async () => await runEmail({ items: emailItems(changed), workflowId }),
		);
		expect(second).toBe(1);
		expect(
			sandbox.requests('email').map((request) => request.query.email ?? request.fields.email),
		).toEqual(['changed@example.com']);
		expect(run.items.map((item) => item.json)).toEqual(changed.map((value) => emailRecord(value)));
		expect(hintsOf(run)).toContainEqual(
			expect.stringMatching(
				/^49 of 50 answers reused from a test run less than a minute ago: no credit/,
			),
		);
	});

	it('answers of several test runs: the hint says how many runs and how long ago', async () => {
		const workflowId = newWorkflowId('test-runs');
		await runEmail({ items: emailItems(values.slice(0, 10)), workflowId });
		now += 8 * MINUTE;
		await runEmail({ items: emailItems(values.slice(10, 20)), workflowId });
		now += 4 * MINUTE;
		const [third, run] = await counted(
			async () => await runEmail({ items: emailItems(values.slice(0, 30)), workflowId }),
		);
		expect(third).toBe(10);
		expect(hintsOf(run)).toContainEqual(
			expect.stringMatching(
				/^20 of 30 answers reused from 2 test runs 4 to 12 minutes ago: no credit/,
			),
		);
	});

	it('another credential, another node or another workflow sends every request', async () => {
		const workflowId = newWorkflowId('test-runs');
		const first = await runEmail({ items: emailItems(values), workflowId });
		const [same] = await counted(
			async () => await runEmail({ items: emailItems(values), workflowId }),
		);
		expect(same).toBe(0);
		sandbox.addKey('email', 'another-email-key');
		const [otherKey] = await counted(
			async () =>
				await runEmail({
					items: emailItems(values),
					workflowId,
					credential: { apiKey: 'another-email-key' },
				}),
		);
		expect(otherKey).toBe(50);
		const [otherWorkflow] = await counted(
			async () =>
				await runEmail({ items: emailItems(values), workflowId: newWorkflowId('test-runs') }),
		);
		expect(otherWorkflow).toBe(50);
		// The same workflow, its node replaced by another (n8n gives a new node a new id).
		sandbox.reset();
		const nodes = first.workflowJson.nodes.map((node) =>
			node.name === 'Node' ? { ...node, id: 'another node' } : node,
		);
		const otherNode = await retryLikeNewNode({
			...first,
			workflowJson: { ...first.workflowJson, nodes },
		});
		expect(otherNode).toBe(50);
	});

	it('an hour later, a test run pays again', async () => {
		const workflowId = newWorkflowId('test-runs');
		await runEmail({ items: emailItems(values), workflowId });
		now += 59 * MINUTE;
		const [within] = await counted(
			async () => await runEmail({ items: emailItems(values.slice(0, 5)), workflowId }),
		);
		expect(within).toBe(0);
		now += 2 * MINUTE;
		const [after] = await counted(
			async () => await runEmail({ items: emailItems(values), workflowId }),
		);
		expect(after).toBe(50);
	});

	it('Reuse Answers of Test Runs off: the run neither takes nor keeps', async () => {
		const workflowId = newWorkflowId('test-runs');
		const off = { reuseTestRunAnswers: false };
		const [first] = await counted(
			async () => await runEmail({ items: emailItems(values), workflowId, options: off }),
		);
		expect(first).toBe(50);
		expect(keptAnswersHeld().forNextRuns).toBe(0);
		await runEmail({ items: emailItems(values), workflowId });
		expect(keptAnswersHeld().forNextRuns).toBe(50);
		const [second, run] = await counted(
			async () => await runEmail({ items: emailItems(values), workflowId, options: off }),
		);
		expect(second).toBe(50);
		expect(hintsOf(run).join('\n')).not.toMatch(/reused/);
	});

	it('CSV rows: the second test run of a 200-row file sends nothing, every row as before', async () => {
		const workflowId = newWorkflowId('test-runs');
		const file = () => [csvItem(leadsCsv(200))];
		const [first, firstRun] = await counted(
			async () => await runEmail({ items: file(), workflowId, parameters: CSV_ROWS }),
		);
		expect(first).toBe(200);
		const [second, run] = await counted(
			async () => await runEmail({ items: file(), workflowId, parameters: CSV_ROWS }),
		);
		expect(second).toBe(0);
		expect(run.items.map((item) => item.json)).toEqual(firstRun.items.map((item) => item.json));
		expect(run.items.map((item) => (item.json.csvRow as IDataObject).number)).toEqual(
			emails(200).map((_, index) => index + 2),
		);
		expect(hintsOf(run)).toContainEqual(
			expect.stringMatching(/^200 of 200 answers reused from a test run/),
		);
	});

	it('a result file: the second test run sends nothing, writes the same file, and its summary counts the reused rows', async () => {
		const workflowId = newWorkflowId('test-runs');
		const file = () => [csvItem(leadsCsv(120))];
		const parameters = { ...CSV_ROWS, ...RESULT };
		const [first, firstRun] = await counted(
			async () => await runEmail({ items: file(), workflowId, parameters }),
		);
		expect(first).toBe(120);
		expect(firstRun.items[0].json).toMatchObject({
			answered: 120,
			requestsSent: 120,
			answersReused: 0,
		});
		const [second, run] = await counted(
			async () => await runEmail({ items: file(), workflowId, parameters }),
		);
		expect(second).toBe(0);
		expect(run.items[0].json).toMatchObject({
			rows: 120,
			answered: 120,
			requestsSent: 0,
			requestsSaved: 0,
			answersReused: 120,
		});
		expect(await resultOf(run.items[0])).toEqual(await resultOf(firstRun.items[0]));
	});
});

/** The workflow of `result` run again as a test run, as it now is (its nodes may have changed). */
async function retryLikeNewNode(result: RunResult): Promise<number> {
	sandbox.reset();
	const run = await runWorkflow(result.workflowJson, result.options);
	expect(run.error).toBeUndefined();
	return sent();
}

describe('production runs ask afresh unless told', () => {
	const values = emails(50);

	for (const mode of ['trigger', 'webhook'] as const) {
		it(`a ${mode} run after a test run sends every request, twice`, async () => {
			const workflowId = newWorkflowId('production');
			await runEmail({ items: emailItems(values), workflowId });
			const [first] = await counted(
				async () => await runEmail({ items: emailItems(values), workflowId, mode }),
			);
			expect(first).toBe(50);
			const [second] = await counted(
				async () => await runEmail({ items: emailItems(values), workflowId, mode }),
			);
			expect(second).toBe(50);
			// The test run's answers were there all along: the next test run takes them.
			const [test] = await counted(
				async () => await runEmail({ items: emailItems(values), workflowId }),
			);
			expect(test).toBe(0);
		});
	}

	it("Reuse Answers For (Hours): a production run within the window sends nothing, after it every request; test runs' answers are never taken", async () => {
		const workflowId = newWorkflowId('production');
		const options = { reuseAnswersForHours: 2 };
		await runEmail({ items: emailItems(values), workflowId });
		const [first] = await counted(
			async () =>
				await runEmail({ items: emailItems(values), workflowId, mode: 'webhook', options }),
		);
		expect(first).toBe(50);
		now += 90 * MINUTE;
		const [within, run] = await counted(
			async () =>
				await runEmail({ items: emailItems(values), workflowId, mode: 'webhook', options }),
		);
		expect(within).toBe(0);
		expect(run.items.map((item) => item.json)).toEqual(values.map((value) => emailRecord(value)));
		expect(hintsOf(run)).toContain(
			'50 of 50 answers reused from an earlier run 90 minutes ago: no credit (Options > Reuse Answers For (Hours))',
		);
		// A shorter window set later counts from when the answer was paid.
		const [shorter] = await counted(
			async () =>
				await runEmail({
					items: emailItems(values),
					workflowId,
					mode: 'trigger',
					options: { reuseAnswersForHours: 1 },
				}),
		);
		expect(shorter).toBe(50);
		now += 2 * HOUR + MINUTE;
		const [after] = await counted(
			async () =>
				await runEmail({ items: emailItems(values), workflowId, mode: 'webhook', options }),
		);
		expect(after).toBe(50);
		// Test runs take none of the production runs' answers.
		const [test] = await counted(
			async () => await runEmail({ items: emailItems(values), workflowId }),
		);
		expect(test).toBe(50);
	});

	it("a Retry of a failed production run takes the failed run's answers, and no test run's", async () => {
		const workflowId = newWorkflowId('production');
		const values10 = emails(10);
		await runEmail({ items: emailItems(values10), workflowId });
		sandbox.reset();
		sandbox.setQuota('email', 3);
		const failed = await runEmail({ items: emailItems(values10), workflowId, mode: 'trigger' });
		expect(failed.error?.message).toMatch(/credits/);
		expect(failed.error?.description).toMatch(
			/^.*Discarded: 3 items already answered \(and charged\) in this run, as n8n/,
		);
		sandbox.setQuota('email', 100);
		sandbox.reset();
		const retried = await retryExecution(failed);
		expect(retried.error).toBeUndefined();
		expect(sent()).toBe(7);
		expect(hintsOf(retried)).toContain(
			'3 answers reused from a failed execution of this node (a Retry takes them for an hour), not paid for again',
		);
		// The test run's answers were there all along: the next test run takes them.
		const [test] = await counted(
			async () => await runEmail({ items: emailItems(values10), workflowId }),
		);
		expect(test).toBe(0);
	});

	it('an hour count that is not a number of at least 0 fails before any request, naming the option', async () => {
		const run = await runEmail({
			items: emailItems(values),
			workflowId: newWorkflowId('production'),
			mode: 'trigger',
			options: { reuseAnswersForHours: -1 },
		});
		expect(run.error?.message).toMatch(
			/Reuse Answers For \(Hours\) \(reuseAnswersForHours\).*at least 0/,
		);
		expect(sent()).toBe(0);
	});
});

describe("one memory budget with the retries' answers", () => {
	it('the oldest answers are dropped first: the next test run pays only for those', async () => {
		const previous = kept.setKeptAnswersBudget(30_000);
		try {
			const workflowId = newWorkflowId('budget');
			const values = emails(200);
			await runEmail({ items: emailItems(values), workflowId });
			const held = keptAnswersHeld();
			expect(held.size).toBeLessThanOrEqual(30_000);
			expect(held.forNextRuns).toBeGreaterThan(0);
			expect(held.forNextRuns).toBeLessThan(200);
			const [second] = await counted(
				async () => await runEmail({ items: emailItems(values), workflowId }),
			);
			expect(second).toBe(200 - held.forNextRuns);
			const resent = new Set(
				sandbox
					.requests('email')
					.map((request) => String(request.query.email ?? request.fields.email)),
			);
			expect(resent.has('lead1@example.com')).toBe(true);
			expect(resent.has('lead200@example.com')).toBe(false);
		} finally {
			kept.setKeptAnswersBudget(previous);
		}
	});
});

describe('every figure about money is exact', () => {
	const companyRun = (
		domains: string[],
		apiKey?: string,
		onError: NodeRun['onError'] = 'continueRegularOutput',
	) =>
		runNode({
			type: 'abstractCompany',
			parameters: { domain: '={{ $json.domain }}', options: {} },
			credential: sandboxCredential(sandbox, 'company', apiKey ? { apiKey } : {}),
			items: domains.map((domain) => ({ json: { domain } })),
			onError,
		});

	it('3 items of one domain with a rejected key: no "answered with" figure, nothing counted as saved', async () => {
		const run = await companyRun(['stripe.com', 'stripe.com', 'stripe.com'], 'not-a-key');
		expect(run.error).toBeUndefined();
		expect(hintsOf(run).join('\n')).not.toMatch(/answered with/);
	});

	it('2 good items, a repeat of one, and 4 repeats of a refused value: 3 answered with 2 paid requests, 3 sent', async () => {
		sandbox.faultWhen('company', (request) => request.query.domain === 'refused.io', {
			kind: 'status',
			status: 400,
			message: 'Bad request',
		});
		const run = await companyRun([
			'stripe.com',
			'refused.io',
			'acme.io',
			'refused.io',
			'stripe.com',
			'refused.io',
			'refused.io',
		]);
		expect(run.error).toBeUndefined();
		expect(sandbox.requests('company')).toHaveLength(3);
		expect(hintsOf(run)).toContain(
			'3 items answered with 2 paid requests (3 sent): repeated values were sent once (turn Send Repeated Values Once off in Options for a fresh answer each)',
		);
	});

	it('4 identical items then a failing one: 1 item charged, 3 shared its answer at no charge', async () => {
		sandbox.faultWhen('company', (request) => request.query.domain === 'refused.io', {
			kind: 'status',
			status: 400,
			message: 'Bad request',
		});
		const run = await companyRun(
			['stripe.com', 'stripe.com', 'stripe.com', 'stripe.com', 'refused.io'],
			undefined,
			'stopWorkflow',
		);
		expect(run.error?.message).toMatch(/400|Bad request/);
		expect(run.error?.description).toMatch(
			/Discarded: 1 item already answered \(and charged\) in this run, and 3 items more answered at no charge \(3 shared the answer of a repeated value\), as n8n keeps no output/,
		);
	});

	it('a test run that stops on an error after reusing answers: the reused ones are said to cost nothing', async () => {
		const workflowId = newWorkflowId('figures');
		const values = emails(5);
		await runEmail({ items: emailItems(values), workflowId });
		sandbox.faultWhen(
			'email',
			(request) => (request.query.email ?? request.fields.email) === 'new@example.com',
			{ kind: 'status', status: 400, message: 'Bad request' },
		);
		const run = await runEmail({ items: emailItems([...values, 'new@example.com']), workflowId });
		expect(run.error?.description).toMatch(
			/Discarded: 5 items answered at no charge in this run \(5 reused an answer an earlier test run paid for\), as n8n/,
		);
	});
});
