import { ExecuteContext } from 'n8n-core';

import { runNode } from '../harness/run';
import { sandboxCredential } from '../harness/sandboxCredentials';
import { startSandbox, type Sandbox } from '../sandbox/server';

/**
 * A setting with no expression is resolved by n8n once per run, not once per item
 * (nodes/shared/engine/itemParameter.ts): n8n-core's resolution (walk, clean-up, check
 * against the node's description) is most of a node's own work per item. A setting that holds an
 * expression is still resolved per item, with that item's data. The count is n8n-core's own: its
 * execution context resolves every parameter in `_getNodeParameter`, which is watched, not replaced.
 */
let sandbox: Sandbox;
beforeAll(async () => {
	sandbox = await startSandbox();
});
afterAll(async () => await sandbox.close());
beforeEach(() => sandbox.reset());

const COUNT = 20;
const leads = Array.from({ length: COUNT }, (_, index) => ({
	json: { email: `lead${index}@example.com`, sendAs: index % 2 === 0 ? 'query' : 'bearerJson' },
}));

/** Runs the Email node on the leads; returns how often n8n resolved each parameter (without rawExpressions). */
async function resolutionsOf(options: Record<string, unknown>) {
	const prototype = ExecuteContext.prototype as unknown as {
		_getNodeParameter: (
			name: string,
			itemIndex: number,
			fallback: unknown,
			options?: object,
		) => unknown;
	};
	const resolve = jest.spyOn(prototype, '_getNodeParameter');
	try {
		const run = await runNode({
			type: 'abstractEmail',
			parameters: { email: '={{ $json.email }}', options },
			credential: sandboxCredential(sandbox, 'email', { requestsPerSecond: 0 }),
			items: leads,
		});
		const counts: Record<string, number> = {};
		for (const [name, , , readOptions] of resolve.mock.calls) {
			if ((readOptions as { rawExpressions?: boolean } | undefined)?.rawExpressions) continue;
			counts[name] = (counts[name] ?? 0) + 1;
		}
		return { run, counts };
	} finally {
		resolve.mockRestore();
	}
}

it('resolves settings without an expression once per run, the value of each item still per item', async () => {
	const { run, counts } = await resolutionsOf({ sendAs: 'query' });
	expect(run.error).toBeUndefined();
	expect(run.items).toHaveLength(COUNT);
	expect(counts.email).toBe(COUNT);
	for (const setting of ['options', 'input', 'options.sendRepeatsOnce', 'options.estimateOnly'])
		expect([setting, counts[setting]]).toEqual([setting, 1]);
	expect(
		sandbox
			.requests('email')
			.map((request) => request.query.email)
			.sort(),
	).toEqual(leads.map(({ json }) => json.email).sort());
});

it('resolves a setting that holds an expression for each item, with its own data', async () => {
	const { run, counts } = await resolutionsOf({ sendAs: '={{ $json.sendAs }}' });
	expect(run.error).toBeUndefined();
	expect(run.items).toHaveLength(COUNT);
	expect(counts.options).toBe(COUNT);
	// Query String sends GET with the address in the query; Bearer Header and JSON Body, POST.
	const gets = sandbox.requests('email').filter((request) => request.method === 'GET');
	expect(gets.map((request) => request.query.email).sort()).toEqual(
		leads
			.filter(({ json }) => json.sendAs === 'query')
			.map(({ json }) => json.email)
			.sort(),
	);
	expect(sandbox.requests('email')).toHaveLength(COUNT);
});
