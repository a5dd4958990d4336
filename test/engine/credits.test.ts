import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { hintsOf } from '../harness/hints';
import { runNode } from '../harness/run';
import { sandboxCredential } from '../harness/sandboxCredentials';
import { csvItem, leadsCsv } from '../nodes/csvHelpers';
import { startSandbox, type Sandbox } from '../sandbox/server';

/**
 * When the plan's credits run out, the run stops sending (nothing more is paid for): requests in flight finish,
 * every unit not yet sent fails saying it cost nothing, and a run that stops on the error says
 * how many paid answers it discards.
 */
let sandbox: Sandbox;
beforeAll(async () => {
	sandbox = await startSandbox();
});
afterAll(async () => await sandbox.close());
beforeEach(() => sandbox.reset());

type OnError = 'stopWorkflow' | 'continueRegularOutput' | 'continueErrorOutput';

const emails = (count: number) =>
	Array.from({ length: count }, (_, index) => ({
		json: { email: `lead${index + 1}@example.com` },
	}));

function runEmails(items: Array<{ json: IDataObject }>, onError: OnError, requestsPerSecond = 0) {
	return runNode({
		type: 'abstractEmail',
		parameters: { email: '={{ $json.email }}', options: {} },
		credential: sandboxCredential(sandbox, 'email', { requestsPerSecond }),
		items,
		onError,
	});
}

function runEmailFile(rows: number, onError: OnError) {
	return runNode({
		type: 'abstractEmail',
		parameters: { input: 'csvFile', binaryPropertyName: 'data', emailColumn: 'email', options: {} },
		credential: sandboxCredential(sandbox, 'email', { requestsPerSecond: 0 }),
		items: [csvItem(leadsCsv(rows))],
		onError,
	});
}

/** Requests that reached the service after its first "credits used up" answer had been given. */
function sentAfterFirstQuotaAnswer(service: string): number {
	const log = sandbox.requests(service);
	const first = log.findIndex((entry) => entry.status === 422 || entry.status === 403);
	return first < 0 ? 0 : log.length - first - 1;
}

const errorOf = (item: INodeExecutionData) => item.json.error as IDataObject;

describe('the plan runs out on the 3rd of 10 items, paced to 1 request a second (one in flight)', () => {
	it('sends 3 requests; items 4-10 are not sent and say so, on the error output', async () => {
		sandbox.setQuota('email', 2);
		const run = await runEmails(emails(10), 'continueErrorOutput', 1);
		expect(run.error).toBeUndefined();
		expect(sandbox.requests('email')).toHaveLength(3);
		expect(run.items.map((item) => item.json.email_address)).toEqual([
			'lead1@example.com',
			'lead2@example.com',
		]);
		expect(run.errorItems.map((item) => item.pairedItem)).toEqual(
			[2, 3, 4, 5, 6, 7, 8, 9].map((item) => ({ item })),
		);
		expect(errorOf(run.errorItems[0]).message).toMatch(
			/credits for Email Reputation are used up \(422\)/,
		);
		expect(errorOf(run.errorItems[1]).message).toBe(
			"Item 4 was not sent: the plan's API credits for Email Reputation ran out at item 3",
		);
		expect(errorOf(run.errorItems[1]).description).toMatch(
			/^Item 4 was not sent, so it cost nothing/,
		);
		// n8n merged the input item's own JSON under the error.
		expect(run.errorItems[1].json.email).toBe('lead4@example.com');
		expect(hintsOf(run)).toContainEqual(
			expect.stringMatching(/ran out at item 3: 7 items after it were not sent and cost nothing/),
		);
	});

	it("the email service's 403 form of the answer stops it too", async () => {
		sandbox.setQuota('email', 2, 403);
		const run = await runEmails(emails(10), 'continueRegularOutput', 1);
		expect(sandbox.requests('email')).toHaveLength(3);
		expect(run.items).toHaveLength(10);
		expect(run.items.slice(3).every((item) => /was not sent/.test(String(item.json.error)))).toBe(
			true,
		);
	});

	it('default On Error: the run stops at item 3 and says that 2 paid answers are discarded, and how to keep them', async () => {
		sandbox.setQuota('email', 2);
		const run = await runEmails(emails(10), 'stopWorkflow', 1);
		expect(sandbox.requests('email')).toHaveLength(3);
		expect(run.error?.message).toMatch(/\(422\)/);
		expect(run.error?.description).toMatch(
			/Discarded: 2 items already answered \(and charged\) in this run/,
		);
		expect(run.error?.description).toMatch(/"Continue \(using error output\)"/);
	});
});

describe('the plan runs out at row 300 of a 1,000-row file, 32 requests in flight', () => {
	it('Continue (using error output): rows 1-300 answered, the rest failed, at most the in-flight requests after the first quota answer', async () => {
		sandbox.setQuota('email', 300);
		const run = await runEmailFile(1000, 'continueErrorOutput');
		expect(run.error).toBeUndefined();
		// Goal: at most the requests in flight when the first quota answer came (today's engine: 32 senders).
		expect(sentAfterFirstQuotaAnswer('email')).toBeLessThanOrEqual(32);
		expect(sandbox.requests('email').length).toBeLessThanOrEqual(301 + 32);
		expect(run.items).toHaveLength(300);
		expect(run.items.map((item) => (item.json.csvRow as IDataObject).number)).toEqual(
			Array.from({ length: 300 }, (_, index) => index + 2),
		);
		expect(run.errorItems).toHaveLength(700);
		const notSent = run.errorItems.filter((item) =>
			/was not sent: the plan's API credits/.test(String(errorOf(item).message)),
		);
		expect(notSent.length).toBeGreaterThanOrEqual(700 - 32);
		// A row names itself as the user sees it, with its columns, not as "Item 1".
		const last = run.errorItems[699];
		expect(errorOf(last).message).toMatch(
			/^CSV row 1001 was not sent: the plan's API credits for Email Reputation ran out at CSV row \d+$/,
		);
		expect(errorOf(last).csvRow).toEqual({
			number: 1001,
			columns: { name: 'Lead 1000', email: 'lead1000@example.com' },
		});
		expect(run.items.every((item) => item.json.error === undefined)).toBe(true);
	});

	it('default On Error: the error names the row and says how many answered rows it discards', async () => {
		sandbox.setQuota('email', 300);
		const run = await runEmailFile(1000, 'stopWorkflow');
		expect(sentAfterFirstQuotaAnswer('email')).toBeLessThanOrEqual(32);
		expect(run.error?.message).toMatch(
			/^CSV row \d+: The plan's API credits for Email Reputation are used up \(422\)/,
		);
		expect(run.error?.description).toMatch(
			/Discarded: 300 rows already answered \(and charged\) in this run/,
		);
	});
});

describe('a rejected key (401) stops the sending too: every later request would be refused', () => {
	it('10 items with a key of another service: 1 request; the other 9 say they were not sent and why', async () => {
		const run = await runNode({
			type: 'abstractEmail',
			parameters: { email: '={{ $json.email }}', options: {} },
			credential: sandboxCredential(sandbox, 'email', {
				requestsPerSecond: 1,
				apiKey: sandbox.keys.phone,
			}),
			items: emails(10),
			onError: 'continueErrorOutput',
		});
		expect(sandbox.requests('email')).toHaveLength(1);
		expect(run.items).toEqual([]);
		expect(errorOf(run.errorItems[0]).message).toMatch(/The API key was rejected \(401\)/);
		expect(errorOf(run.errorItems[9]).message).toBe(
			'Item 10 was not sent: the Email Reputation key was rejected (401) at item 1',
		);
		expect(errorOf(run.errorItems[9]).description).toMatch(
			/cost nothing\. Check the credential: keys are per service/,
		);
		expect(hintsOf(run)).toContainEqual(
			expect.stringMatching(/key was rejected \(401\) at item 1: 9 items after it were not sent/),
		);
	});
});
