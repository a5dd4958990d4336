import type { IDataObject, INode } from 'n8n-workflow';

import {
	emailOf,
	firstTimeOnly,
	newWorkflowId,
	paidEmails,
	RETRY_ON_FAIL,
} from '../harness/retryOnFail';
import { keptAnswers as kept, keptAnswersHeld } from '../harness/keptStore';
import { hintsOf } from '../harness/hints';
import {
	chainConnections,
	retryExecution,
	runNode,
	runWorkflow,
	workflowNode,
	type NodeRun,
	type RunResult,
} from '../harness/run';
import { PACKAGE_NAME } from '../harness/nodeTypes';
import { sandboxCredential } from '../harness/sandboxCredentials';
import { csvItem } from '../nodes/csvHelpers';
import { SMALL_DOWNLOAD } from '../nodes/mediaHelpers';
import { RESULT } from '../nodes/resultFileCases';
import { startSandbox, type Sandbox } from '../sandbox/server';
import type { SandboxRequest } from '../sandbox/types';

/**
 * Paid answers kept over an n8n instance's life, as one store of payments: several executions failing in
 * the same hour, a try longer than an hour, other workflows filling the memory, a download that
 * fails after its processing was charged, one domain in three forms. Each case counts what the
 * sandbox answered (and so charged) through n8n-core's WorkflowExecute, with the store's clock
 * moved instead of waited for.
 */
let sandbox: Sandbox;
let now = Date.now();
const MINUTE = 60_000;
beforeAll(async () => {
	sandbox = await startSandbox();
});
afterAll(async () => {
	kept.dropKeptAnswers();
	await sandbox.close();
});
beforeEach(() => {
	sandbox.reset();
	kept.dropKeptAnswers(() => now);
	now = Date.now();
});

const valueOf = emailOf;
const sent = () => sandbox.requests('email').map(valueOf);
const paid = () => paidEmails(sandbox);
const emails = (count: number, prefix = 'lead') =>
	Array.from({ length: count }, (_, index) => `${prefix}${index + 1}@example.com`);
const emailItems = (values: string[]) => values.map((email) => ({ json: { email } }));

interface EmailRun {
	items: NodeRun['items'];
	workflowId: string;
	mode?: NodeRun['mode'];
	settings?: NodeRun['settings'];
	parameters?: IDataObject;
}

const runEmail = ({ items, workflowId, mode, settings = {}, parameters = {} }: EmailRun) =>
	runNode({
		type: 'abstractEmail',
		parameters: { email: '={{ $json.email }}', ...parameters },
		credential: sandboxCredential(sandbox, 'email'),
		items,
		workflowId,
		mode,
		settings,
	});

/** A production run of `values` that the plan stops after `credits` answers. */
async function spentPlanRun(
	values: string[],
	credits: number,
	workflowId: string,
	mode: NodeRun['mode'] = 'trigger',
): Promise<RunResult> {
	sandbox.setQuota('email', credits);
	const run = await runEmail({ items: emailItems(values), workflowId, mode });
	expect(run.error?.message).toMatch(/credits/);
	return run;
}

describe('failed executions of one node, each with its own Retry', () => {
	it("two executions fail after paying the same 3: the Retry of the first leaves the second's for its own Retry (2 paid, not 5)", async () => {
		const workflowId = newWorkflowId('kept');
		const values = emails(5);
		const first = await spentPlanRun(values, 3, workflowId);
		const second = await spentPlanRun(values, 3, workflowId);
		sandbox.reset();
		expect((await retryExecution(first)).error).toBeUndefined();
		expect(paid()).toEqual(values.slice(3));
		sandbox.reset();
		const retried = await retryExecution(second);
		expect(retried.error).toBeUndefined();
		expect(paid()).toEqual(values.slice(3));
		expect(hintsOf(retried)).toContain(
			'3 answers reused from a failed execution of this node (a Retry takes them for an hour), not paid for again',
		);
	});

	it("the second failed execution's error counts its own 2 kept answers, not the node's 5", async () => {
		const workflowId = newWorkflowId('kept');
		await spentPlanRun(emails(5), 3, workflowId);
		const second = await spentPlanRun(emails(5, 'other'), 2, workflowId);
		expect(second.error?.description).toMatch(
			/Discarded: 2 items already answered \(and charged\) in this run.* This n8n process keeps the 2 answers this execution paid for, each for an hour from its payment/,
		);
	});

	it('each answer waits an hour from its own payment: a later failure does not keep older answers alive', async () => {
		const workflowId = newWorkflowId('kept');
		const [a, b, c, d, e, f] = emails(6);
		const first = await spentPlanRun([a, b, c, d, e], 3, workflowId);
		now += 50 * MINUTE;
		sandbox.reset();
		sandbox.faultWhen('email', (request) => valueOf(request) === f, {
			kind: 'status',
			status: 400,
			message: 'Bad request',
		});
		const second = await runEmail({ items: emailItems([d, e, f]), workflowId, mode: 'trigger' });
		expect(second.error?.message).toMatch(/400|Bad request/);
		expect(paid()).toEqual([d, e]);
		now += 20 * MINUTE;
		sandbox.reset();
		const retried = await retryExecution(first);
		expect(retried.error).toBeUndefined();
		// a, b, c were paid 70 minutes ago: asked again; d and e, 20 minutes ago, taken.
		expect(paid()).toEqual([a, b, c]);
		expect(hintsOf(retried)).toContain(
			'2 answers reused from a failed execution of this node (a Retry takes them for an hour), not paid for again',
		);
	});

	it("a Retry takes a failed test run's answers too, and its hint says they were a test run's", async () => {
		const workflowId = newWorkflowId('kept');
		const [a, b, c, d] = emails(4);
		await spentPlanRun([a, b, c], 2, workflowId, 'manual');
		const production = await spentPlanRun([a, b, c, d], 0, workflowId);
		sandbox.reset();
		const retried = await retryExecution(production);
		expect(retried.error).toBeUndefined();
		expect(paid()).toEqual([c, d]);
		expect(hintsOf(retried)).toContain(
			'2 answers reused from a failed test run of this node (a Retry takes them for an hour), not paid for again',
		);
	});
});

describe('Retry On Fail over a try longer than an hour', () => {
	for (const mode of ['trigger', 'manual'] as const) {
		it(`${mode}: 10 leads, 7 minutes a request, the last refused once: 11 requests, each lead paid once`, async () => {
			const values = emails(10);
			// Every request moves the store's clock 7 minutes: the try lasts 70 minutes.
			const sevenMinutesLater = () => {
				now += 7 * MINUTE;
				return false;
			};
			sandbox.faultWhen('email', sevenMinutesLater, { kind: 'status', status: 500 });
			sandbox.faultWhen(
				'email',
				firstTimeOnly((request) => valueOf(request) === values[9]),
				{ kind: 'status', status: 400, message: 'Bad request, once' },
			);
			const run = await runEmail({
				items: emailItems(values),
				workflowId: newWorkflowId('long-try'),
				mode,
				settings: RETRY_ON_FAIL,
			});
			expect(run.error).toBeUndefined();
			expect(sent()).toHaveLength(11);
			expect(paid()).toEqual([...values].sort());
		});
	}
});

describe('one memory budget, full', () => {
	let previous = 0;
	beforeEach(() => {
		previous = kept.setKeptAnswersBudget(30_000);
	});
	afterEach(() => kept.setKeptAnswersBudget(previous));

	it("a kept answer counts the memory its text takes: a byte a character, two once one is beyond Latin-1 (V8's strings)", async () => {
		const sizeOfAnswer = async (email: string) => {
			kept.dropKeptAnswers(() => now);
			const run = await runEmail({ items: emailItems([email]), workflowId: newWorkflowId('size') });
			expect(run.error).toBeUndefined();
			return { size: keptAnswersHeld().size, text: JSON.stringify(run.items[0].json).length };
		};
		const latin = await sizeOfAnswer('müller@example.com');
		expect(latin.size).toBeLessThan(2 * latin.text);
		const japanese = await sizeOfAnswer('ユーザー名前@example.com');
		expect(japanese.size).toBeGreaterThanOrEqual(2 * japanese.text);
	});

	it('a test run of 10 new leads after a 200-lead run keeps its answers: repeating it pays nothing', async () => {
		const workflowId = newWorkflowId('budget');
		await runEmail({ items: emailItems(emails(200)), workflowId });
		sandbox.reset();
		const fresh = emails(10, 'new');
		await runEmail({ items: emailItems(fresh), workflowId });
		expect(sent()).toHaveLength(10);
		sandbox.reset();
		const again = await runEmail({ items: emailItems(fresh), workflowId });
		expect(again.error).toBeUndefined();
		expect(sent()).toHaveLength(0);
	});

	it('in that state, Retry On Fail pays 10 leads once: 11 requests, the last refused once', async () => {
		const workflowId = newWorkflowId('budget');
		await runEmail({ items: emailItems(emails(200)), workflowId });
		sandbox.reset();
		const fresh = emails(10, 'new');
		sandbox.faultWhen(
			'email',
			firstTimeOnly((request) => valueOf(request) === fresh[9]),
			{ kind: 'status', status: 400, message: 'Bad request, once' },
		);
		const run = await runEmail({ items: emailItems(fresh), workflowId, settings: RETRY_ON_FAIL });
		expect(run.error).toBeUndefined();
		expect(sent()).toHaveLength(11);
	});

	it("another workflow's test run does not push out what a Retry On Fail waiting between tries will take: 11 requests, not 20", async () => {
		const values = emails(10);
		let refused: () => void = () => undefined;
		const refusal = new Promise<void>((resolve) => (refused = resolve));
		sandbox.faultWhen(
			'email',
			firstTimeOnly(
				(request: SandboxRequest) => valueOf(request) === values[9] && (refused(), true),
			),
			{ kind: 'status', status: 400, message: 'Bad request, once' },
		);
		const waiting = runEmail({
			items: emailItems(values),
			workflowId: newWorkflowId('waiting'),
			mode: 'trigger',
			settings: { ...RETRY_ON_FAIL, waitBetweenTries: 5000 },
		});
		await refusal;
		const other = await runEmail({
			items: emailItems(emails(200, 'other')),
			workflowId: newWorkflowId('other'),
		});
		expect(other.error).toBeUndefined();
		const run = await waiting;
		expect(run.error).toBeUndefined();
		expect(sent().filter((value) => values.includes(value))).toHaveLength(11);
	});
});

describe("paid means answered: Image Processing's processing, then its download", () => {
	const images = ['a', 'b', 'c'].map((name) => ({
		json: { url: `https://cdn.example.com/${name}.png` },
	}));
	const runImages = (settings: NodeRun['settings'] = {}, downloadResult = true) =>
		runNode({
			type: 'abstractImages',
			parameters: { ...SMALL_DOWNLOAD, downloadResult },
			credential: sandboxCredential(sandbox, 'images'),
			items: images,
			settings,
			workflowId: newWorkflowId('images'),
		});
	const processed = () =>
		sandbox.requests('images').filter((request) => request.status === 200).length;

	it("Stop Workflow: the error counts the 3 processings charged, the refused download's included", async () => {
		sandbox.refuseDownloads((path) => path.endsWith('/c.png'));
		const run = await runImages();
		expect(run.error?.message).toMatch(/403/);
		expect(processed()).toBe(3);
		expect(run.error?.description).toMatch(
			/Discarded: 3 items already answered \(and charged\) in this run/,
		);
	});

	it('Retry On Fail: the next try downloads what was processed, without processing it again (3 processings for 3 images)', async () => {
		let refusals = 1;
		sandbox.refuseDownloads((path) => path.endsWith('/c.png') && refusals-- > 0);
		const run = await runImages(RETRY_ON_FAIL);
		expect(run.error).toBeUndefined();
		expect(processed()).toBe(3);
		expect(run.items.map((item) => Object.keys(item.binary ?? {}))).toEqual([
			['small'],
			['small'],
			['small'],
		]);
	});

	it('the file a download adds to a kept answer counts against the budget: an answer that no longer fits stays without it', async () => {
		await runImages({}, false);
		const withoutFiles = keptAnswersHeld().size;
		kept.dropKeptAnswers(() => now);
		await runImages();
		const withFiles = keptAnswersHeld().size;
		kept.dropKeptAnswers(() => now);
		// Room for the three answers and half their files (n8n's memory mode: the bytes in the item).
		const budget = Math.round((withoutFiles + withFiles) / 2);
		const previous = kept.setKeptAnswersBudget(budget);
		try {
			const run = await runImages();
			expect(run.error).toBeUndefined();
			// A paid answer is not dropped to make room for a file it can download again for free.
			expect(keptAnswersHeld()).toMatchObject({ answers: 3 });
			expect(keptAnswersHeld().size).toBeLessThanOrEqual(budget);
		} finally {
			kept.setKeptAnswersBudget(previous);
		}
	});
});

interface FedTwice {
	first?: string[];
	second?: string[];
	settings?: Partial<INode>;
}

describe('every figure true by cause', () => {
	const workflowId = () => newWorkflowId('figures');
	const one = 'same@example.com';

	it('three repeats of one reused answer: one reused, two shared by cause, none "answered with 0 requests"', async () => {
		const id = workflowId();
		await runEmail({ items: emailItems([one]), workflowId: id });
		sandbox.reset();
		const run = await runEmail({ items: emailItems([one, one, one]), workflowId: id });
		expect(sent()).toHaveLength(0);
		expect(hintsOf(run)).toContain(
			'1 of 3 answers reused from a test run less than a minute ago: no credit (turn Reuse Answers of Test Runs off in Options to ask afresh)',
		);
		expect(hintsOf(run)).toContain(
			'2 items shared the answer of a repeated value: repeated values were sent once (turn Send Repeated Values Once off in Options for a fresh answer each)',
		);
		expect(hintsOf(run).join('\n')).not.toMatch(/answered with/);
	});

	it('two items of one value: "answered with 1 request", not "1 requests"', async () => {
		const run = await runEmail({ items: emailItems([one, one]), workflowId: workflowId() });
		expect(hintsOf(run)).toContain(
			'2 items answered with 1 request: repeated values were sent once (turn Send Repeated Values Once off in Options for a fresh answer each)',
		);
	});

	/**
	 * Start -> First and Second, each its addresses as items (one, by default) -> Node: n8n runs
	 * Node twice in one execution, on First's items, then on Second's.
	 */
	const fedTwice = async (
		mode: NodeRun['mode'],
		options: IDataObject = {},
		{ first = [one], second = [one], settings = {} }: FedTwice = {},
	) => {
		const items = (name: string, x: number, values: string[]) => [
			workflowNode(name, 'n8n-nodes-base.set', x, {
				mode: 'raw',
				jsonOutput: JSON.stringify({ list: values.map((email) => ({ email })) }),
			}),
			workflowNode(`${name} items`, 'n8n-nodes-base.splitOut', x + 100, {
				fieldToSplitOut: 'list',
			}),
		];
		const node = workflowNode(
			'Node',
			`${PACKAGE_NAME}.abstractEmail`,
			600,
			{ email: '={{ $json.email }}', options },
			{ credentials: { abstractEmailApi: { id: 'cred', name: 'Sandbox' } }, ...settings },
		);
		const connections = {
			...chainConnections(['Start', 'First', 'First items', 'Node']),
			...chainConnections(['Second', 'Second items', 'Node']),
			Start: {
				main: [
					[
						{ node: 'First', type: 'main' as const, index: 0 },
						{ node: 'Second', type: 'main' as const, index: 0 },
					],
				],
			},
		};
		const run = await runWorkflow(
			{
				nodes: [
					workflowNode('Start', 'n8n-nodes-base.manualTrigger', 0),
					...items('First', 200, first),
					...items('Second', 400, second),
					node,
				],
				connections,
			},
			{
				credentials: [
					{
						id: 'cred',
						name: 'Sandbox',
						type: 'abstractEmailApi',
						data: sandboxCredential(sandbox, 'email').data as Record<string, string>,
					},
				],
				mode,
			},
		);
		expect(run.error).toBeUndefined();
		expect(run.run.data.resultData.runData.Node).toHaveLength(2);
		return run;
	};

	it("a node fed twice in one execution, Retry On Fail off: its second run says it reused this execution's answer, not a try's", async () => {
		const run = await fedTwice('manual');
		expect(sent()).toHaveLength(1);
		expect(hintsOf(run, 'Node', 1)).toEqual([
			"1 answer reused from this node's earlier run in this execution, not paid for again",
		]);
	});

	// The rules' table (docs/errors-and-credits.md): a later run of the node in the execution is not a
	// try; in production only Reuse Answers For (Hours) keeps the earlier run's answers for it.
	it('fed twice in one production execution: the second run pays again, unless Reuse Answers For (Hours) keeps the answer', async () => {
		await fedTwice('webhook');
		expect(sent()).toHaveLength(2);
		sandbox.reset();
		const run = await fedTwice('webhook', { reuseAnswersForHours: 1 });
		expect(sent()).toHaveLength(1);
		expect(hintsOf(run, 'Node', 1)).toEqual([
			"1 answer reused from this node's earlier run in this execution, not paid for again",
		]);
	});

	// n8n-core counts the tries of each run of a node (WorkflowExecute: its retry loop per run); the
	// store counting them per execution made the second run's first try its last: b and c paid twice.
	it('fed twice, Retry On Fail (2 tries) with Continue: the second run has tries of its own, and its next try takes what its first paid', async () => {
		const once = 'once@example.com';
		sandbox.faultWhen(
			'email',
			firstTimeOnly((request) => valueOf(request) === once),
			{
				kind: 'status',
				status: 400,
				message: 'Bad request, once',
			},
		);
		// The first run's answer is kept an hour, so the store still holds the execution when the
		// second run starts; the second run's answers are kept for its tries alone.
		const hours = '={{ $json.email === "same@example.com" ? 1 : 0 }}';
		const run = await fedTwice(
			'webhook',
			{ reuseAnswersForHours: hours },
			{
				second: [once, 'b@example.com', 'c@example.com'],
				settings: {
					retryOnFail: true,
					maxTries: 2,
					waitBetweenTries: 10,
					onError: 'continueRegularOutput',
				},
			},
		);
		expect(paid()).toEqual(['b@example.com', 'c@example.com', once, one]);
		expect(hintsOf(run, 'Node', 1)).toEqual([
			"2 answers reused from this node's earlier try (Settings > Retry On Fail), not paid for again",
		]);
	});
});

describe('a request key holds what is sent, nothing of presentation', () => {
	const runCompany = (items: IDataObject[], parameters: IDataObject, workflowId: string) =>
		runNode({
			type: 'abstractCompany',
			parameters: { domain: '={{ $json.domain }}', ...parameters },
			credential: sandboxCredential(sandbox, 'company'),
			items: items.map((json) => ({ json })),
			workflowId,
		});

	it('Company Enrichment: stripe.com, ada@stripe.com and https://stripe.com send one request; each item names what it was given', async () => {
		const run = await runCompany(
			[{ domain: 'stripe.com' }, { domain: 'ada@stripe.com' }, { domain: 'https://stripe.com' }],
			{ options: {} },
			newWorkflowId('company'),
		);
		expect(run.error).toBeUndefined();
		expect(sandbox.requests('company')).toHaveLength(1);
		expect(run.items.map((item) => item.json.lookupDomain)).toEqual([
			undefined,
			'stripe.com',
			'stripe.com',
		]);
		expect(new Set(run.items.map((item) => item.json.name))).toHaveProperty('size', 1);
	});

	it('Company Enrichment: after a test run of a file of email addresses, its Result File pays nothing', async () => {
		const workflowId = newWorkflowId('company');
		const file = () => csvItem('domain\nada@stripe.com\nbob@acme.io\n');
		const csv = {
			input: 'csvFile',
			binaryPropertyName: 'data',
			domainColumn: 'domain',
			options: {},
		};
		const items = await runNode({
			type: 'abstractCompany',
			parameters: csv,
			credential: sandboxCredential(sandbox, 'company'),
			items: [file()],
			workflowId,
		});
		expect(items.error).toBeUndefined();
		expect(sandbox.requests('company')).toHaveLength(2);
		sandbox.reset();
		const result = await runNode({
			type: 'abstractCompany',
			parameters: { ...csv, ...RESULT },
			credential: sandboxCredential(sandbox, 'company'),
			items: [file()],
			workflowId,
		});
		expect(result.error).toBeUndefined();
		expect(sandbox.requests('company')).toHaveLength(0);
		expect(result.items[0].json).toMatchObject({ answered: 2, answersReused: 2 });
	});

	it("Website Screenshot: another Timeout or output field takes the test run's capture, in the new field", async () => {
		const workflowId = newWorkflowId('screenshot');
		const shoot = (parameters: IDataObject) =>
			runNode({
				type: 'abstractScreenshot',
				parameters: { url: 'https://example.com/', ...parameters },
				credential: sandboxCredential(sandbox, 'screenshot'),
				workflowId,
			});
		const first = await shoot({ options: {} });
		expect(first.error).toBeUndefined();
		expect(sandbox.requests('screenshot')).toHaveLength(1);
		sandbox.reset();
		const second = await shoot({ binaryPropertyName: 'capture', options: { timeout: 60 } });
		expect(second.error).toBeUndefined();
		expect(sandbox.requests('screenshot')).toHaveLength(0);
		expect(Object.keys(second.items[0].binary ?? {})).toEqual(['capture']);
		expect(second.items[0].binary?.capture.data).toBe(first.items[0].binary?.data.data);
	});

	it('Avatars: one name for two output fields is one request, and each item has the avatar in its own field; a later test run in a third field pays nothing', async () => {
		const workflowId = newWorkflowId('avatars');
		const avatars = (fields: string[]) =>
			runNode({
				type: 'abstractAvatars',
				parameters: { name: 'Ada Lovelace', binaryPropertyName: '={{ $json.field }}' },
				credential: sandboxCredential(sandbox, 'avatars'),
				items: fields.map((field) => ({ json: { field } })),
				workflowId,
			});
		const first = await avatars(['avatar', 'picture']);
		expect(first.error).toBeUndefined();
		expect(sandbox.requests('avatars')).toHaveLength(1);
		expect(first.items.map((item) => Object.keys(item.binary ?? {}))).toEqual([
			['avatar'],
			['picture'],
		]);
		sandbox.reset();
		const second = await avatars(['photo']);
		expect(second.error).toBeUndefined();
		expect(sandbox.requests('avatars')).toHaveLength(0);
		expect(Object.keys(second.items[0].binary ?? {})).toEqual(['photo']);
	});
});
