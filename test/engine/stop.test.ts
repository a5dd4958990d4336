import { sleep } from 'n8n-workflow';

import { runNode } from '../harness/run';
import { sandboxCredential } from '../harness/sandboxCredentials';
import { startSandbox, type Sandbox } from '../sandbox/server';
import { VALID_IBANS } from './ibanRun';

/**
 * The editor's Stop (n8n-core cancels the execution and aborts its requests): once stopped, the
 * node sends nothing more, whatever its On Error setting (with Continue, its remaining items do
 * not wait for their turns either: the senders stop).
 */
let sandbox: Sandbox;
beforeAll(async () => {
	sandbox = await startSandbox();
});
afterAll(async () => await sandbox.close());
beforeEach(() => sandbox.reset());

describe.each(['stopWorkflow', 'continueRegularOutput', 'continueErrorOutput'] as const)(
	'Stop, with On Error %s',
	(onError) => {
		it('at one request a second, stopping after the 2nd request leaves it at 2', async () => {
			const run = runNode({
				type: 'abstractIban',
				parameters: { iban: '={{ $json.iban }}', options: {} },
				credential: sandboxCredential(sandbox, 'iban', { requestsPerSecond: 1 }),
				items: VALID_IBANS.map((iban) => ({ json: { iban } })),
				onError,
				onStarted: (stop) => {
					void (async () => {
						while (sandbox.requests('iban').length < 2) await sleep(5);
						stop();
					})();
				},
			});
			const { run: execution } = await run;
			expect(execution.status).toBe('canceled');
			// The third request would have left a second after the second: wait past it.
			await sleep(1500);
			expect(sandbox.requests('iban')).toHaveLength(2);
		});
	},
);
