import type { IDataObject } from 'n8n-workflow';

import { runNode } from '../harness/run';
import { sandboxCredential } from '../harness/sandboxCredentials';
import { startSandbox, type Sandbox } from '../sandbox/server';

/**
 * The run settings in a node's Options reach the engine read and checked as every other option
 * is: an expression may give the text "true" or "false", and any other value is refused with the
 * field and the rule before the first request.
 */
let sandbox: Sandbox;
beforeAll(async () => {
	sandbox = await startSandbox();
});
afterAll(async () => await sandbox.close());
beforeEach(() => sandbox.reset());

const domains = ['stripe.com', 'stripe.com', 'acme.io', 'stripe.com'];

const enrich = (options: IDataObject) =>
	runNode({
		type: 'abstractCompany',
		parameters: { domain: '={{ $json.domain }}', options },
		credential: sandboxCredential(sandbox, 'company', { requestsPerSecond: 0 }),
		items: domains.map((domain) => ({ json: { domain } })),
	});

describe('Send Repeated Values Once given by an expression', () => {
	it('the text "false" sends every repeat', async () => {
		const run = await enrich({ sendRepeatsOnce: '={{ "false" }}' });
		expect(run.error).toBeUndefined();
		expect(sandbox.requests('company').map((request) => request.query.domain)).toEqual(domains);
		expect(run.items).toHaveLength(4);
	});

	it('the text "true" sends each distinct value once', async () => {
		const run = await enrich({ sendRepeatsOnce: '={{ "true" }}' });
		expect(run.error).toBeUndefined();
		expect(sandbox.requests('company')).toHaveLength(2);
		expect(run.items).toHaveLength(4);
	});

	it('any other text names the field and the rule, and nothing is sent', async () => {
		const run = await enrich({ sendRepeatsOnce: '={{ "no" }}' });
		expect(run.error?.message).toBe(
			'Invalid Send Repeated Values Once (sendRepeatsOnce): must be true or false, got "no"',
		);
		expect(run.error?.description).toBe(
			'Item 1 was not sent, so it cost no credit. Fix Send Repeated Values Once (sendRepeatsOnce) and run again.',
		);
		expect(sandbox.requests('company')).toEqual([]);
	});
});
