import type { IDataObject } from 'n8n-workflow';

import {
	emailOf,
	firstTimeOnly,
	newWorkflowId,
	paidEmails,
	RETRY_ON_FAIL,
} from '../harness/retryOnFail';
import { keptAnswers as kept, keptAnswersHeld } from '../harness/keptStore';
import { hintsOf } from '../harness/hints';
import { retryExecution, runNode, type NodeRun, type RunResult } from '../harness/run';
import { sandboxCredential } from '../harness/sandboxCredentials';
import { csvItem, leadsCsv } from '../nodes/csvHelpers';
import { RESULT, resultOf } from '../nodes/resultFileCases';
import { emailRecord } from '../sandbox/services/email';
import { startSandbox, type Sandbox } from '../sandbox/server';
import type { SandboxRequest } from '../sandbox/types';

/**
 * n8n runs a node again on the same input: Retry On Fail (n8n-core's WorkflowExecute tries a node
 * up to maxTries times while it throws, and while the first item of its first output is an error
 * item), and Retry of a failed execution (a new execution in mode `retry`). Neither may pay again
 * for what an earlier run was answered: every test counts the sandbox's 200s per value. Every
 * service node, binary answers included: retryOnFailNodes.test.ts.
 */
let sandbox: Sandbox;
beforeAll(async () => {
	sandbox = await startSandbox();
});
afterAll(async () => await sandbox.close());
beforeEach(() => sandbox.reset());

const valueOf = emailOf;
const sent = () => sandbox.requests('email').map(valueOf);
const paid = () => paidEmails(sandbox);
const emails = (count: number) =>
	Array.from({ length: count }, (_, index) => `lead${index + 1}@example.com`);

/** The service refuses (400) the first request for `value`, and answers it after that. */
function refuseOnce(value: string): void {
	sandbox.faultWhen(
		'email',
		firstTimeOnly((request) => valueOf(request) === value),
		{ kind: 'status', status: 400, message: 'Bad request, once' },
	);
}

interface EmailRun {
	items: NodeRun['items'];
	parameters?: IDataObject;
	onError?: NodeRun['onError'];
	settings?: NodeRun['settings'];
	workflowId?: string;
	credential?: IDataObject;
	mode?: NodeRun['mode'];
}

const runEmail = ({
	items,
	parameters = {},
	onError,
	settings = RETRY_ON_FAIL,
	workflowId = newWorkflowId('retry-test'),
	credential,
	mode,
}: EmailRun) =>
	runNode({
		type: 'abstractEmail',
		parameters: { email: '={{ $json.email }}', ...parameters },
		credential: sandboxCredential(sandbox, 'email', credential),
		items,
		onError,
		settings,
		workflowId,
		mode,
	});
const emailItems = (values: string[]) => values.map((email) => ({ json: { email } }));
const CSV_ROWS = {
	input: 'csvFile',
	binaryPropertyName: 'data',
	emailColumn: 'email',
	options: {},
};
const CSV_RESULT = { ...CSV_ROWS, ...RESULT };

/** What failed executions of a test paid: it waits its hour for a Retry, whatever Retries succeeded since. */
let claimsLeft = 0;
afterEach(() => {
	// Runs that end normally leave nothing claimed; a failed execution's payments wait for a Retry.
	expect(keptAnswersHeld().forRetries).toBe(claimsLeft);
	claimsLeft = 0;
	kept.dropKeptAnswers();
});

describe('Retry On Fail: a row answered 400 once, default On Error', () => {
	it('items: the second try sends only the refused item; every item answered, one 200 per value', async () => {
		const values = emails(12);
		refuseOnce(values[6]);
		const run = await runEmail({ items: emailItems(values) });
		expect(run.error).toBeUndefined();
		expect(run.items.map((item) => item.json)).toEqual(values.map((value) => emailRecord(value)));
		expect(run.items.map((item) => item.pairedItem)).toEqual(values.map((_, item) => ({ item })));
		expect(paid()).toEqual([...values].sort());
		expect(sent()).toHaveLength(values.length + 1);
		expect(hintsOf(run)).toContainEqual(
			expect.stringMatching(
				/^\d+ answers? reused from this node's earlier try \(Settings > Retry On Fail\), not paid for again$/,
			),
		);
	});

	it('CSV rows: row 121 of 200 refused once costs one request more, not 150 rows paid twice', async () => {
		const values = emails(200);
		refuseOnce(values[119]);
		const run = await runEmail({ items: [csvItem(leadsCsv(200))], parameters: CSV_ROWS });
		expect(run.error).toBeUndefined();
		expect(run.items).toHaveLength(200);
		expect(run.items.map((item) => item.json.email_address)).toEqual(values);
		expect(run.items.map((item) => (item.json.csvRow as IDataObject).number)).toEqual(
			values.map((_, index) => index + 2),
		);
		expect(paid()).toEqual([...values].sort());
		expect(sent()).toHaveLength(201);
	});

	it('a result file: the refused row says so in its status, in the one try n8n runs (a row never fails the node)', async () => {
		const values = emails(200);
		refuseOnce(values[119]);
		const run = await runEmail({ items: [csvItem(leadsCsv(200))], parameters: CSV_RESULT });
		expect(run.error).toBeUndefined();
		const { header, rows } = await resultOf(run.items[0]);
		const status = rows.map((row) => row[header.indexOf('status')]);
		expect(status.filter((cell) => cell !== 'ok')).toEqual([expect.stringMatching(/400/)]);
		expect(sent()).toHaveLength(200);
	});
});

describe('Retry On Fail: the first item is an error item under Continue (n8n runs every try)', () => {
	const firstRowEmpty = `name,email\nNobody,\n${leadsCsv(199).split('\n').slice(1).join('\n')}`;
	const values = emails(199);

	for (const onError of ['continueRegularOutput', 'continueErrorOutput'] as const) {
		it(`${onError}: items, each address paid once over the three tries`, async () => {
			const run = await runEmail({ items: emailItems(['', ...values]), onError });
			expect(run.error).toBeUndefined();
			const answered = onError === 'continueErrorOutput' ? run.items : run.items.slice(1);
			expect(answered.map((item) => item.json)).toEqual(values.map((value) => emailRecord(value)));
			expect(paid()).toEqual([...values].sort());
			expect(sent()).toHaveLength(199);
			expect(hintsOf(run)).toContain(
				"199 answers reused from this node's earlier try (Settings > Retry On Fail), not paid for again",
			);
		});

		it(`${onError}: CSV rows, 199 requests for 199 addresses, not 597`, async () => {
			const run = await runEmail({
				items: [csvItem(firstRowEmpty)],
				parameters: CSV_ROWS,
				onError,
			});
			expect(run.error).toBeUndefined();
			const answered = onError === 'continueErrorOutput' ? run.items : run.items.slice(1);
			expect(answered.map((item) => item.json.email_address)).toEqual(values);
			const failed = onError === 'continueErrorOutput' ? run.errorItems : run.items.slice(0, 1);
			expect(failed).toHaveLength(1);
			expect(paid()).toEqual([...values].sort());
			expect(sent()).toHaveLength(199);
		});

		it(`${onError}: a result file after an item that is not a file, its rows paid once`, async () => {
			const run = await runEmail({
				items: [{ json: {} }, csvItem(leadsCsv(200))],
				parameters: CSV_RESULT,
				onError,
			});
			expect(run.error).toBeUndefined();
			const file = run.items.find((item) => item.binary?.result);
			const { header, rows } = await resultOf(file!);
			expect(rows.map((row) => row[header.indexOf('status')])).toEqual(new Array(200).fill('ok'));
			expect(paid()).toEqual([...emails(200)].sort());
			expect(sent()).toHaveLength(200);
		});
	}
});

describe('Retry of an execution that a spent plan stopped', () => {
	it('items: the retry, after credits are added, pays only for what was not answered', async () => {
		claimsLeft = 6;
		const values = emails(10);
		sandbox.setQuota('email', 6);
		const failed = await runEmail({ items: emailItems(values), settings: {} });
		expect(failed.error?.message).toMatch(/credits/);
		expect(failed.error?.description).toMatch(
			/Discarded: 6 items already answered \(and charged\) in this run.*This n8n process keeps the 6 answers this execution paid for, each for an hour from its payment: a Retry of this execution \(in the executions list\) within that hour reuses them instead of paying again\. In queue mode a Retry runs on a worker, and a test run on main unless OFFLOAD_MANUAL_EXECUTIONS_TO_WORKERS=true: the Retry of a test run on main will pay again\./,
		);
		expect(keptAnswersHeld().forRetries).toBe(6);
		sandbox.setQuota('email', 100);
		const retried = await retryExecution(failed);
		expect(retried.error).toBeUndefined();
		expect(retried.output('Node').map((item) => item.json)).toEqual(
			values.map((value) => emailRecord(value)),
		);
		expect(retried.output('Node').map((item) => item.pairedItem)).toEqual(
			values.map((_, item) => ({ item })),
		);
		expect(paid()).toEqual([...values].sort());
		expect(hintsOf(retried)).toContain(
			'6 answers reused from a failed test run of this node (a Retry takes them for an hour), not paid for again',
		);
	});

	it('CSV rows: 120 of 200 answered before the plan ran out are not paid again by the retry', async () => {
		claimsLeft = 120;
		const values = emails(200);
		sandbox.setQuota('email', 120);
		const failed = await runEmail({ items: [csvItem(leadsCsv(200))], parameters: CSV_ROWS });
		expect(failed.error?.description).toMatch(
			/Discarded: 120 rows already answered .*keeps the 120 answers this execution paid for, each for an hour/,
		);
		sandbox.setQuota('email', 1000);
		const retried = await retryExecution(failed);
		expect(retried.error).toBeUndefined();
		expect(retried.output('Node').map((item) => item.json.email_address)).toEqual(values);
		expect(paid()).toEqual([...values].sort());
	});
});

describe('a request refused on every try', () => {
	it('fails the run as today, after maxTries; its neighbours are paid once', async () => {
		claimsLeft = 14;
		const values = emails(8);
		sandbox.faultWhen('email', (request: SandboxRequest) => valueOf(request) === values[3], {
			kind: 'status',
			status: 400,
		});
		const run = await runEmail({ items: emailItems(values) });
		expect(run.error?.message).toMatch(/400/);
		expect(sent().filter((value) => value === values[3])).toHaveLength(3);
		expect(paid()).toEqual(values.filter((_, index) => index !== 3).sort());
		// The last try failed: its answers wait for a Retry of the execution, not for a new production run.
		expect(keptAnswersHeld().forRetries).toBe(7);
		const again = await runEmail({
			items: emailItems(values),
			settings: {},
			workflowId: run.options.workflowId,
			mode: 'trigger',
		});
		expect(again.error?.message).toMatch(/400/);
		expect(paid()).toHaveLength(14);
		sandbox.reset();
		const retried = await retryExecution(run);
		expect(retried.error).toBeUndefined();
		expect(paid()).toEqual([values[3]]);
		// The production run failed too, after paying the same 7: its Retry takes them in turn, and
		// the first execution's still wait their hour (a Retry's success ends no other's claim).
		expect(keptAnswersHeld().forRetries).toBe(14);
		const retriedAgain = await retryExecution(again);
		expect(retriedAgain.error).toBeUndefined();
		expect(paid()).toEqual([values[3], values[3]]);
	});

	it('with Send Repeated Values Once off, each repeat keeps its own answer: one 200 per item', async () => {
		const values = [
			'a@example.com',
			'b@example.com',
			'a@example.com',
			'c@example.com',
			'a@example.com',
		];
		refuseOnce('c@example.com');
		const run = await runEmail({
			items: emailItems(values),
			parameters: { options: { sendRepeatsOnce: false } },
		});
		expect(run.error).toBeUndefined();
		expect(run.items.map((item) => item.json)).toEqual(values.map((value) => emailRecord(value)));
		expect(paid()).toEqual([...values].sort());
	});
});

describe('kept answers are seen by no one else', () => {
	const values = emails(6);
	const failedRun = async () => {
		sandbox.setQuota('email', 3);
		const failed = await runEmail({ items: emailItems(values), settings: {} });
		expect(failed.error?.message).toMatch(/credits/);
		sandbox.setQuota('email', 100);
		return failed;
	};
	/** Runs `rerun`, then the genuine retry that takes (and so clears) the kept answers. */
	const paidBy = async (failed: RunResult, rerun: () => Promise<RunResult>) => {
		sandbox.reset();
		const run = await rerun();
		expect(run.error).toBeUndefined();
		const count = paid().length;
		sandbox.reset();
		await retryExecution(failed);
		expect(paid()).toEqual(values.slice(3).sort());
		return count;
	};

	it('another workflow', async () => {
		claimsLeft = 3;
		const failed = await failedRun();
		expect(
			await paidBy(
				failed,
				async () => await retryExecution(failed, { workflowId: 'another workflow' }),
			),
		).toBe(6);
	});

	it('another node of the same workflow', async () => {
		claimsLeft = 3;
		const failed = await failedRun();
		const nodes = failed.workflowJson.nodes.map((node) =>
			node.name === 'Node' ? { ...node, id: 'another node' } : node,
		);
		expect(
			await paidBy(
				failed,
				async () =>
					await retryExecution({ ...failed, workflowJson: { ...failed.workflowJson, nodes } }),
			),
		).toBe(6);
	});

	it('another credential (another key of the same service)', async () => {
		claimsLeft = 3;
		const failed = await failedRun();
		sandbox.addKey('email', 'another-email-key');
		const credentials = failed.options.credentials.map((credential) => ({
			...credential,
			data: { ...credential.data, apiKey: 'another-email-key' },
		}));
		expect(await paidBy(failed, async () => await retryExecution(failed, { credentials }))).toBe(6);
	});

	it('a new production run of the same workflow (not a Retry)', async () => {
		claimsLeft = 3;
		const failed = await failedRun();
		expect(
			await paidBy(
				failed,
				async () =>
					await runEmail({
						items: emailItems(values),
						settings: {},
						workflowId: failed.options.workflowId,
						mode: 'trigger',
					}),
			),
		).toBe(6);
	});

	it('a new test run of the same workflow takes what the failed test run paid for, as test runs do', async () => {
		claimsLeft = 3;
		const failed = await failedRun();
		expect(
			await paidBy(
				failed,
				async () =>
					await runEmail({
						items: emailItems(values),
						settings: {},
						workflowId: failed.options.workflowId,
					}),
			),
		).toBe(3);
	});
});

describe('the memory budget', () => {
	it('drops the oldest answers first, counted by size; the retry reuses what is still kept', async () => {
		const previous = kept.setKeptAnswersBudget(20_000);
		try {
			sandbox.setQuota('email', 120);
			const failed = await runEmail({
				items: [csvItem(leadsCsv(200))],
				parameters: CSV_ROWS,
				settings: {},
			});
			const held = keptAnswersHeld();
			expect(held.size).toBeLessThanOrEqual(20_000);
			expect(held.answers).toBeGreaterThan(0);
			expect(held.answers).toBeLessThan(120);
			claimsLeft = held.answers;
			expect(failed.error?.description).toMatch(
				new RegExp(`keeps the ${held.answers} answers this execution paid for, each for an hour`),
			);
			sandbox.setQuota('email', 1000);
			sandbox.reset();
			const retried = await retryExecution(failed);
			expect(retried.error).toBeUndefined();
			// The newest answers were kept: the retry pays for the oldest ones again, and the rest.
			expect(paid()).toHaveLength(200 - held.answers);
			expect(paid()).not.toContain('lead120@example.com');
			expect(paid()).toContain('lead1@example.com');
		} finally {
			kept.setKeptAnswersBudget(previous);
		}
	});
});
