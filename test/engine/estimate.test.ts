import { readFileSync } from 'fs';
import path from 'path';

import type { IDataObject } from 'n8n-workflow';

import { sandboxWithEmptyStore, keptAnswers as kept, keptAnswersHeld } from '../harness/keptStore';
import { newWorkflowId } from '../harness/retryOnFail';
import { hintsOf } from '../harness/hints';
import { retryExecution, runNode, type NodeRun, type RunResult } from '../harness/run';
import { ROOT } from '../harness/root';
import { sandboxCredential } from '../harness/sandboxCredentials';
import { csvItem } from '../nodes/csvHelpers';
import { CASES, valueItems, type NodeCase } from './serviceNodeCases';

/**
 * Options > Estimate Credits Only, on every node that spends credits: the estimate sends nothing
 * and counts what a run would send; the real run that follows, on the same input with nothing
 * changed, sends exactly that many requests (the sandbox counts them). The input holds what
 * changes the figure: repeated values, a value the node refuses, an answer a test run paid for,
 * and for Company Enrichment a webmail address it skips.
 */
const sandbox = sandboxWithEmptyStore();

type OnError = NonNullable<NodeRun['onError']>;

const isCompany = (testCase: NodeCase) => testCase.type === 'abstractCompany';

const run = (
	testCase: NodeCase,
	values: string[],
	workflowId: string,
	options: IDataObject = {},
	onError: OnError = 'stopWorkflow',
) =>
	runNode({
		type: testCase.type,
		parameters: {
			...testCase.parameters,
			options: { ...((testCase.parameters.options as IDataObject) ?? {}), ...options },
		},
		credential: sandboxCredential(sandbox(), testCase.service),
		items: (testCase.items ?? valueItems)(values),
		workflowId,
		onError,
	});

/** Runs `go` and returns how many requests the service got meanwhile, and the run. */
async function counted<R>(service: string, go: () => Promise<R>): Promise<[number, R]> {
	sandbox().reset();
	const result = await go();
	return [sandbox().requests(service).length, result];
}

const summaryOf = (result: RunResult & { items: Array<{ json: IDataObject }> }) => {
	expect(result.error).toBeUndefined();
	expect(result.items).toHaveLength(1);
	return result.items[0].json;
};

for (const testCase of CASES) {
	describe(testCase.name, () => {
		const [first, second, third] = testCase.values;
		// A test run paid for the first value; the second and third repeat; one value is refused; Company skips a webmail address.
		const values = [
			first,
			second,
			second,
			third,
			testCase.invalid,
			third,
			...(isCompany(testCase) ? ['ann@gmail.com'] : []),
		];

		for (const onError of ['continueRegularOutput', 'continueErrorOutput'] as const) {
			it(`On Error ${onError}: the estimate sends nothing, and the real run sends the requests it counted`, async () => {
				const workflowId = newWorkflowId('estimate');
				expect((await run(testCase, [first], workflowId)).error).toBeUndefined();
				const [estimateRequests, estimate] = await counted(
					testCase.service,
					async () => await run(testCase, values, workflowId, { estimateOnly: true }, onError),
				);
				expect(estimateRequests).toBe(0);
				const summary = summaryOf(estimate);
				expect(summary).toMatchObject({
					items: (testCase.items ?? valueItems)(values).length,
					distinctValues: 3,
					requestsToSend: 2,
					notSent: { repeats: 2, reused: 1, skipped: isCompany(testCase) ? 1 : 0, refused: 1 },
					reusedFrom: { testRuns: 1 },
				});
				expect(summary.refusedReasons).toHaveLength(1);
				expect(estimate.errorItems).toHaveLength(0);
				const [realRequests, real] = await counted(
					testCase.service,
					async () => await run(testCase, values, workflowId, {}, onError),
				);
				expect(real.error).toBeUndefined();
				expect(realRequests).toBe(summary.requestsToSend);
			});
		}

		it('On Error Stop Workflow: the estimate says the run stops before sending, and it does', async () => {
			const workflowId = newWorkflowId('estimate');
			const [estimateRequests, estimate] = await counted(
				testCase.service,
				async () => await run(testCase, values, workflowId, { estimateOnly: true }),
			);
			expect(estimateRequests).toBe(0);
			const summary = summaryOf(estimate);
			expect(summary).toMatchObject({
				requestsToSend: 0,
				requestsWithoutRefused: 3,
				notSent: { refused: 1 },
			});
			expect(summary.stopsBeforeSending).toMatch(
				/^On Error is Stop Workflow: the run would stop .* and send nothing\. Remove the 1 refused value, or set On Error to Continue, and it would send 3 requests\.$/,
			);
			const [realRequests, real] = await counted(
				testCase.service,
				async () => await run(testCase, values, workflowId),
			);
			expect(real.error).toBeDefined();
			expect(realRequests).toBe(0);
		});
	});
}

describe('what the estimate leaves as it was', () => {
	const email = CASES.find((testCase) => testCase.name === 'Email (Value)') as NodeCase;
	const emails = (count: number, from = 0) =>
		Array.from({ length: count }, (_, index) => `lead${from + index + 1}@example.com`);

	it('keeps nothing: the store holds the same before and after, and the test run after it pays every value', async () => {
		const workflowId = newWorkflowId('estimate');
		await run(email, emails(3), workflowId);
		const before = keptAnswersHeld();
		const [, estimate] = await counted(
			'email',
			async () => await run(email, emails(8), workflowId, { estimateOnly: true }),
		);
		expect(summaryOf(estimate)).toMatchObject({ requestsToSend: 5, notSent: { reused: 3 } });
		expect(keptAnswersHeld()).toEqual(before);
		const [paid] = await counted('email', async () => await run(email, emails(8), workflowId));
		expect(paid).toBe(5);
	});

	it('with Send Repeated Values Once off, each repeat counts as a request of its own, and reuses its own kept answer', async () => {
		const workflowId = newWorkflowId('estimate');
		const [a, b] = emails(2);
		await run(email, [a, b, a], workflowId, { sendRepeatsOnce: false });
		const values = [a, b, a, a, b, a];
		const [, estimate] = await counted(
			'email',
			async () =>
				await run(email, values, workflowId, { sendRepeatsOnce: false, estimateOnly: true }),
		);
		expect(summaryOf(estimate)).toMatchObject({
			distinctValues: 2,
			requestsToSend: 3,
			notSent: { repeats: 0, reused: 3 },
		});
		const [paid] = await counted(
			'email',
			async () => await run(email, values, workflowId, { sendRepeatsOnce: false }),
		);
		expect(paid).toBe(3);
	});

	it('production runs: answers that Reuse Answers For (Hours) would reuse are counted as reused from earlier runs', async () => {
		const workflowId = newWorkflowId('estimate');
		const production = (values: string[], options: IDataObject) =>
			runNode({
				type: 'abstractEmail',
				parameters: { email: '={{ $json.value }}', options },
				credential: sandboxCredential(sandbox(), 'email'),
				items: valueItems(values),
				workflowId,
				mode: 'trigger',
			});
		await production(emails(4), { reuseAnswersForHours: 1 });
		const [sent, estimate] = await counted(
			'email',
			async () => await production(emails(6), { reuseAnswersForHours: 1, estimateOnly: true }),
		);
		expect(sent).toBe(0);
		expect(summaryOf(estimate)).toMatchObject({
			requestsToSend: 2,
			notSent: { reused: 4 },
			reusedFrom: { earlierRuns: 4 },
		});
		const [paid] = await counted(
			'email',
			async () => await production(emails(6), { reuseAnswersForHours: 1 }),
		);
		expect(paid).toBe(2);
		// Without the option, a production run asks afresh: the estimate says so too.
		const [, fresh] = await counted(
			'email',
			async () => await production(emails(6), { estimateOnly: true }),
		);
		expect(summaryOf(fresh)).toMatchObject({ requestsToSend: 6, notSent: { reused: 0 } });
	});

	it('a Retry of a failed execution: the answers the failed run paid for are counted as reused from it', async () => {
		const values = emails(6);
		sandbox().setQuota('email', 4);
		const failed = await run(email, values, newWorkflowId('estimate'));
		expect(failed.error?.message).toMatch(/credits/);
		sandbox().setQuota('email', 100);
		const estimating = failed.workflowJson.nodes.map((node) =>
			node.name === 'Node'
				? { ...node, parameters: { ...node.parameters, options: { estimateOnly: true } } }
				: node,
		);
		const [sent, estimate] = await counted(
			'email',
			async () =>
				await retryExecution({
					...failed,
					workflowJson: { ...failed.workflowJson, nodes: estimating },
				}),
		);
		expect(sent).toBe(0);
		expect(estimate.error).toBeUndefined();
		expect(estimate.output('Node')[0].json).toMatchObject({
			requestsToSend: 2,
			notSent: { reused: 4 },
			reusedFrom: { failedExecution: 4 },
		});
		const [paid, retried] = await counted('email', async () => await retryExecution(failed));
		expect(retried.error).toBeUndefined();
		expect(paid).toBe(2);
	});

	it('the summary is one item paired to every input item; at most five refusals are told', async () => {
		const values = [...emails(3), '', '', '', '', '', '', 'not an address'];
		const estimate = await run(
			email,
			values,
			newWorkflowId('estimate'),
			{ estimateOnly: true },
			'continueRegularOutput',
		);
		const summary = summaryOf(estimate);
		expect(summary.notSent).toMatchObject({ refused: 6 });
		expect(summary.refusedReasons).toHaveLength(5);
		expect((summary.refusedReasons as string[])[0]).toMatch(/^Item 4: Invalid Email \(email\): /);
		expect(estimate.items[0].pairedItem).toEqual(values.map((_, item) => ({ item })));
	});

	it('Estimate Credits Only must be the same for every item', async () => {
		const estimate = await runNode({
			type: 'abstractEmail',
			parameters: {
				email: '={{ $json.value }}',
				options: { estimateOnly: '={{ $json.value === "b@example.com" }}' },
			},
			credential: sandboxCredential(sandbox(), 'email'),
			items: valueItems(['a@example.com', 'b@example.com']),
		});
		expect(estimate.error?.message).toMatch(
			/^Invalid Estimate Credits Only \(estimateOnly\): must be the same for every item/,
		);
		expect(sandbox().requests('email')).toHaveLength(0);
	});
});

describe('a file', () => {
	const company = (rows: string[]) =>
		csvItem(`domain,name\n${rows.map((row, index) => `${row},Lead ${index}`).join('\n')}\n`);
	const runCompany = (rows: string[], options: IDataObject, parameters: IDataObject = {}) =>
		runNode({
			type: 'abstractCompany',
			parameters: {
				input: 'csvFile',
				binaryPropertyName: 'data',
				domainColumn: 'domain',
				...parameters,
				options,
			},
			credential: sandboxCredential(sandbox(), 'company'),
			items: [company(rows)],
			onError: 'continueErrorOutput',
		});
	// 40 rows: 10 domains, each four times, two of them typed as a lead's address; every fifth row a webmail lead.
	const rows = Array.from({ length: 40 }, (_, index) =>
		index % 5 === 4
			? `lead${index}@gmail.com`
			: index % 3 === 0
				? `ann@acme${index % 10}.io`
				: `acme${index % 10}.io`,
	);

	it("Start at Row and At Most Rows: the figures are the slice's, the whole file's beside them; the run sends the slice's", async () => {
		const slice = { startAtRow: 12, maxRows: 15 };
		const [sent, estimate] = await counted(
			'company',
			async () => await runCompany(rows, { ...slice, estimateOnly: true }),
		);
		expect(sent).toBe(0);
		const summary = summaryOf(estimate);
		expect(summary).toMatchObject({
			rows: 15,
			notSent: { skipped: 3 },
			wholeFile: { rows: 40, notSent: { skipped: 8 } },
		});
		const [paid, real] = await counted('company', async () => await runCompany(rows, slice));
		expect(real.error).toBeUndefined();
		expect(paid).toBe(summary.requestsToSend);
		const [paidWhole] = await counted('company', async () => await runCompany(rows, {}));
		expect(paidWhole).toBe((summary.wholeFile as IDataObject).requestsToSend);
	});

	it('Output Result File: the estimate writes no file, and the run sends what it counted', async () => {
		const resultFile = { output: 'resultFile', resultBinaryPropertyName: 'data' };
		const [sent, estimate] = await counted(
			'company',
			async () => await runCompany(rows, { estimateOnly: true }, resultFile),
		);
		expect(sent).toBe(0);
		expect(estimate.items[0].binary).toBeUndefined();
		const summary = summaryOf(estimate);
		expect(summary).toMatchObject({ rows: 40, notSent: { skipped: 8 } });
		expect(summary.wholeFile).toBeUndefined();
		const [paid, real] = await counted(
			'company',
			async () => await runCompany(rows, {}, resultFile),
		);
		expect(real.items[0].json.requestsSent).toBe(summary.requestsToSend);
		expect(paid).toBe(summary.requestsToSend);
	});

	it('a real run of a file of more than 1,000 rows has a hint that points to the option; one of 1,000 has none', async () => {
		const domains = (count: number) =>
			Array.from({ length: count }, (_, index) => `acme${index % 50}.io`);
		const large = await runCompany(domains(1001), {});
		expect(large.error).toBeUndefined();
		expect(hintsOf(large)).toContain(
			'1,001 rows of a file in this run: to know what a run will cost before it pays, turn on Estimate Credits Only in Options (it counts the requests and sends none)',
		);
		const small = await runCompany(domains(1000), {});
		expect(hintsOf(small).filter((hint) => hint.includes('Estimate Credits Only'))).toEqual([]);
	});
});

describe('the estimate the docs show', () => {
	it('is what Company Enrichment outputs for the shipped leads.csv; after a test run, every answer is reused', async () => {
		const page = readFileSync(path.join(ROOT, 'docs', 'errors-and-credits.md'), 'utf8');
		const shown =
			/<!-- estimate of examples\/files\/leads\.csv[^\n]*-->\n```json\n([\s\S]*?)\n```/.exec(page);
		expect(shown).not.toBeNull();
		const leads = () =>
			runNode({
				type: 'abstractCompany',
				parameters: {
					input: 'csvFile',
					binaryPropertyName: 'data',
					domainColumn: 'email',
					options: { estimateOnly: true },
				},
				credential: sandboxCredential(sandbox(), 'company'),
				items: [csvItem(readFileSync(path.join(ROOT, 'examples', 'files', 'leads.csv')))],
				workflowId: 'estimate-docs',
			});
		const [sent, estimate] = await counted('company', leads);
		expect(sent).toBe(0);
		expect(summaryOf(estimate)).toEqual(JSON.parse((shown as RegExpExecArray)[1]));
		const testRun = await runNode({
			type: 'abstractCompany',
			parameters: {
				input: 'csvFile',
				binaryPropertyName: 'data',
				domainColumn: 'email',
				options: {},
			},
			credential: sandboxCredential(sandbox(), 'company'),
			items: [csvItem(readFileSync(path.join(ROOT, 'examples', 'files', 'leads.csv')))],
			workflowId: 'estimate-docs',
		});
		expect(sandbox().requests('company')).toHaveLength(4);
		expect(testRun.error).toBeUndefined();
		expect(page).toContain(
			'`"requestsToSend": 0` and `"reused": 4`, with `"reusedFrom": { "testRuns": 4 }`',
		);
		expect(summaryOf(await leads())).toMatchObject({
			requestsToSend: 0,
			notSent: { reused: 4 },
			reusedFrom: { testRuns: 4 },
		});
	});
});
