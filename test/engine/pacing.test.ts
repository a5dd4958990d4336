import { startSandbox, type Sandbox } from '../sandbox/server';
import { runIban, VALID_IBANS } from './ibanRun';

/** Pacing to the credential's Requests per Second, across all items of a run. */
let sandbox: Sandbox;
beforeAll(async () => {
	sandbox = await startSandbox();
});
afterAll(async () => await sandbox.close());
beforeEach(() => sandbox.reset());

const refused = () => sandbox.requests('iban').filter((entry) => entry.status === 429);

describe('pacing', () => {
	it('10 items at 5 per second against a service limited to 5 per second draw no 429', async () => {
		sandbox.limitRate('iban', 5);
		const { items, error } = await runIban(sandbox, VALID_IBANS, {
			credential: { requestsPerSecond: 5 },
		});
		expect(error).toBeUndefined();
		expect(items).toHaveLength(10);
		expect(refused()).toHaveLength(0);
		expect(sandbox.requests('iban')).toHaveLength(10);
	});

	it.each([
		[1, 3],
		[20, 60],
	])(
		'at %i per second against a sliding-window limit of the same rate, %i items draw no 429 (arrivals are paced, not departures)',
		async (rate, count) => {
			sandbox.limitRate('iban', rate);
			const ibans = Array.from(
				{ length: count },
				(_, index) => VALID_IBANS[index % VALID_IBANS.length],
			);
			const { items, error } = await runIban(sandbox, ibans, {
				credential: { requestsPerSecond: rate },
				sendRepeatsOnce: false,
			});
			expect(error).toBeUndefined();
			expect(items).toHaveLength(count);
			expect(refused()).toHaveLength(0);
			expect(sandbox.requests('iban')).toHaveLength(count);
		},
	);

	it('the same run without pacing does draw 429s from that limit (and retries them)', async () => {
		sandbox.limitRate('iban', 5);
		const { items } = await runIban(sandbox, VALID_IBANS, { credential: { requestsPerSecond: 0 } });
		expect(refused().length).toBeGreaterThan(0);
		expect(items.filter((item) => item.json.is_valid === true)).toHaveLength(10);
	});
});
