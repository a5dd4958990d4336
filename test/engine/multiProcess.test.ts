import { startSandbox, type Sandbox } from '../sandbox/server';
import { describeRun, runSharedKey } from './multiProcess/measure';

/**
 * Several OS processes share one key and one rate, as n8n queue-mode workers do, against one
 * sandbox limited to that rate (a sliding window counted at arrival). Each process runs the
 * node through n8n-core; none knows the others: each adapts its own rate to the 429s it
 * receives. Every item succeeds, 429s stay at most 10% of the requests, the key's accepted
 * rate is at least 0.9 of its limit while the processes share it, and no item is sent again
 * after it succeeded.
 */
let sandbox: Sandbox;
beforeAll(async () => {
	sandbox = await startSandbox();
});
afterAll(async () => await sandbox.close());

const RATE = 5;
const PROCESSES = 2;
const ITEMS_EACH = 40;

it(`${PROCESSES} processes at ${RATE}/s on one key limited to ${RATE}/s: all items, <= 10% 429s, >= 0.9 of the rate, no resend`, async () => {
	const run = await runSharedKey(sandbox, RATE, PROCESSES, ITEMS_EACH);
	console.log(describeRun(run, RATE, PROCESSES));

	for (const [index, report] of run.reports.entries()) {
		expect(report.error).toBeUndefined();
		expect(report.items.map((item) => item.iban)).toEqual(run.ibansOf(index));
		expect(report.items.filter((item) => item.error !== undefined)).toEqual([]);
	}
	expect(run.accepted).toBe(PROCESSES * ITEMS_EACH);
	expect(run.accepted + run.refused).toBe(run.requests);
	expect(run.refused / run.requests).toBeLessThanOrEqual(0.1);
	expect(run.resent).toBe(0);
	expect(run.sharedRate / RATE).toBeGreaterThanOrEqual(0.9);
});
