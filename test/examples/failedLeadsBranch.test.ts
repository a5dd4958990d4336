import { promises as fs } from 'fs';
import path from 'path';

import { runWorkflow, type WorkflowJson } from '../harness/run';
import { ROOT } from '../harness/nodeTypes';
import { allSandboxCredentials } from '../harness/sandboxCredentials';
import { startSandbox, type Sandbox } from '../sandbox/server';
import { emailRecord } from '../sandbox/services/email';

/**
 * examples/lead-check-failed-leads-branch.json through n8n-core: Email Reputation set to "Continue
 * (using error output)", its success output to "Checked leads" and its error output to "Failed
 * leads". A lead without an address must land on the failed branch, with its name and the reason,
 * and never among the checked leads (where it would pass for a checked one); a malformed address
 * is an answer (undeliverable), not a failure.
 */
let sandbox: Sandbox;
beforeAll(async () => {
	sandbox = await startSandbox();
});
afterAll(async () => await sandbox.close());
beforeEach(() => sandbox.reset());

const FILE = path.join(ROOT, 'examples', 'lead-check-failed-leads-branch.json');
const readWorkflow = async () => JSON.parse(await fs.readFile(FILE, 'utf8')) as WorkflowJson;

describe('Failed leads branch example', () => {
	it('sends the answered leads to "Checked leads" and the failed ones, with their reason, to "Failed leads"', async () => {
		const result = await runWorkflow(await readWorkflow(), {
			credentials: allSandboxCredentials(sandbox),
		});
		expect(result.error).toBeUndefined();

		const checked = result.output('Checked leads').map((item) => item.json);
		const statusOf = (address: string) =>
			emailRecord(address).email_deliverability as { status: string; status_detail: string };
		expect(checked).toEqual(
			[
				['Ada Lovelace', 'ada@analytical-engines.com'],
				['Alan Turing', 'alan@bletchley-park.co.uk'],
				['Edsger Dijkstra', 'edsger@'],
			].map(([name, email]) => ({
				name,
				email,
				email_status: statusOf(email).status,
				status_detail: statusOf(email).status_detail,
			})),
		);
		// A malformed address is the service's answer (a 200, status_detail invalid_format), not a failure.
		expect(checked[2]).toMatchObject({
			email_status: 'undeliverable',
			status_detail: 'invalid_format',
		});

		const failed = result.output('Failed leads').map((item) => item.json);
		expect(failed).toEqual([
			{
				name: 'Grace Hopper',
				email: '',
				failed_because: expect.stringMatching(/^Invalid Email \(email\): is required/),
				what_to_do: 'Item 2 was not sent, so it cost no credit. Fix Email (email) and run again.',
			},
			{
				name: 'Katherine Johnson',
				email: '',
				failed_because: expect.stringMatching(/^Invalid Email \(email\): is required/),
				what_to_do: 'Item 5 was not sent, so it cost no credit. Fix Email (email) and run again.',
			},
		]);

		// The node's own outputs: answers only on the first, the failures, paired, on the second.
		expect(result.output('Email Reputation').map((item) => item.pairedItem)).toEqual(
			[0, 2, 3].map((item) => ({ item })),
		);
		expect(result.output('Email Reputation').every((item) => item.json.error === undefined)).toBe(
			true,
		);
		expect(result.output('Email Reputation', 1).map((item) => item.pairedItem)).toEqual(
			[1, 4].map((item) => ({ item })),
		);

		// Only the three addresses were sent; the two leads without one cost nothing.
		expect(sandbox.requests('email').map((request) => request.fields.email)).toEqual([
			'ada@analytical-engines.com',
			'alan@bletchley-park.co.uk',
			'edsger@',
		]);
	});

	it('with the node set back to stop on errors, the same leads stop the run before any request', async () => {
		const workflow = await readWorkflow();
		const node = workflow.nodes.find((candidate) => candidate.name === 'Email Reputation')!;
		delete node.onError;
		const result = await runWorkflow(workflow, { credentials: allSandboxCredentials(sandbox) });
		expect(result.error?.message).toMatch(/^Invalid Email \(email\): is required/);
		expect(result.output('Checked leads')).toEqual([]);
		expect(result.output('Failed leads')).toEqual([]);
		expect(sandbox.requests('email')).toEqual([]);
	});
});
