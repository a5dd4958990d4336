import { startSandbox, type Sandbox } from '../sandbox/server';
import { runInProcesses } from './multiProcess/processes';

/**
 * Several OS processes share one key and one rate, as n8n queue-mode workers do, against one
 * sandbox limited to that rate (a sliding window counted at arrival). No process knows the
 * others: each adapts its own rate to the 429s it receives. Every item succeeds, 429s stay at
 * most 10% of the requests, the key's accepted rate is at least 0.9 of its limit, and no item
 * is sent again after it succeeded.
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
	sandbox.limitRate('iban', RATE);
	const ibansOf = (process: number) => Array.from({ length: ITEMS_EACH }, (_, index) => `DE89370400440532013000-p${process}-${index}`);
	const reports = await runInProcesses(PROCESSES, (index) => ({
		baseUrl: sandbox.baseUrls.iban,
		apiKey: sandbox.keys.iban,
		requestsPerSecond: RATE,
		ibans: ibansOf(index),
	}));

	for (const [index, report] of reports.entries()) {
		expect(report.error).toBeUndefined();
		expect(report.items.map((item) => item.iban)).toEqual(ibansOf(index));
		expect(report.items.filter((item) => item.error !== undefined)).toEqual([]);
	}

	const log = sandbox.requests('iban');
	const accepted = log.filter((entry) => entry.status === 200);
	const refused = log.filter((entry) => entry.status === 429);
	expect(accepted).toHaveLength(PROCESSES * ITEMS_EACH);
	expect(refused.length + accepted.length).toBe(log.length);
	expect(refused.length / log.length).toBeLessThanOrEqual(0.1);

	// No item is sent again after its success: each IBAN has one 200, and it is its last request.
	const lastStatus = new Map<string, number>();
	for (const entry of log) {
		expect(lastStatus.get(entry.query.iban)).not.toBe(200);
		lastStatus.set(entry.query.iban, entry.status);
	}

	// The key's accepted rate while every process was using it: from the first request to the
	// last request of the process that finished first (then one process is left on its own).
	const lastOf = (process: number) => Math.max(...log.filter((entry) => entry.query.iban.includes(`-p${process}-`)).map((entry) => entry.at));
	const sharedUntil = Math.min(...reports.map((_, index) => lastOf(index)));
	const shared = accepted.filter((entry) => entry.at <= sharedUntil);
	const acceptedRate = (shared.length - 1) / ((shared[shared.length - 1].at - shared[0].at) / 1000);
	const wholeRun = (accepted.length - 1) / ((accepted[accepted.length - 1].at - accepted[0].at) / 1000);
	console.log(
		`${PROCESSES} processes, ${log.length} requests, ${refused.length} 429s (${((100 * refused.length) / log.length).toFixed(1)}%), accepted while shared ${acceptedRate.toFixed(2)}/s = ${(acceptedRate / RATE).toFixed(3)} of the limit (whole run ${(wholeRun / RATE).toFixed(3)})`,
	);
	expect(acceptedRate / RATE).toBeGreaterThanOrEqual(0.9);
});
