import { startSandbox, type Sandbox } from '../sandbox/server';
import { runSharedKey } from './multiProcess/measure';

/**
 * Several OS processes share one key and one rate, as n8n queue-mode workers do, against one
 * sandbox limited to that rate (a sliding window counted at arrival). Each process runs the
 * node through n8n-core; none knows the others: each adapts its own rate to the 429s it
 * receives. What they must do, however busy the machine: every item succeeds, in its process's
 * order; every refused request is sent again and gets through; no item is sent again after it
 * succeeded; the processes adapt (see the 429 bound below). How close to the limit they use the
 * key is a timing, measured by `npm run bench` (bench/multiProcess.ts), not asserted here.
 */
let sandbox: Sandbox;
beforeAll(async () => {
	sandbox = await startSandbox();
});
afterAll(async () => await sandbox.close());

const RATE = 5;
const PROCESSES = 2;
const ITEMS_EACH = 40;

it(`${PROCESSES} processes at ${RATE}/s on one key limited to ${RATE}/s: every item answered once, each 429 retried until it gets through, no resend`, async () => {
	const run = await runSharedKey(sandbox, RATE, PROCESSES, ITEMS_EACH);

	for (const [index, report] of run.reports.entries()) {
		expect(report.error).toBeUndefined();
		expect(report.items.map((item) => item.iban)).toEqual(run.ibansOf(index));
		expect(report.items.filter((item) => item.error !== undefined)).toEqual([]);
	}
	// One accepted request per item, no more: every request was either that or a 429.
	expect(run.accepted).toBe(PROCESSES * ITEMS_EACH);
	expect(run.accepted + run.refused).toBe(run.requests);
	expect(run.resent).toBe(0);
	// The key was contended (else nothing here was tested), and each refused item got through later.
	expect(run.refused).toBeGreaterThan(0);
	expect(run.refusedNeverAccepted).toEqual([]);
	// Two processes that did not adapt would each keep sending at the full rate: about half of
	// all requests refused. Adapting ones stay far below (the bench prints the share: under 10%).
	expect(run.refused / run.requests).toBeLessThan(1 / 3);
});
