import { startSandbox, type Sandbox } from '../sandbox/server';
import { runIban, VALID_IBANS } from './ibanRun';

/** Per-request retries: each injected failure costs exactly one more request, nothing else. */
let sandbox: Sandbox;
beforeAll(async () => {
	sandbox = await startSandbox();
});
afterAll(async () => await sandbox.close());
beforeEach(() => sandbox.reset());

const successes = () => sandbox.requests('iban').filter((entry) => entry.status === 200);

describe('retries', () => {
	it('429 with and without Retry-After, 500, 503 and a dropped connection: every item succeeds, one extra request each', async () => {
		const ibans = VALID_IBANS.slice(0, 6);
		sandbox.inject(
			'iban',
			{ kind: 'status', status: 429, retryAfter: 1 },
			{ kind: 'status', status: 429 },
			{ kind: 'status', status: 503 },
			{ kind: 'drop' },
			{ kind: 'status', status: 500 },
		);
		const { items, error } = await runIban(sandbox, ibans);
		expect(error).toBeUndefined();
		expect(items.map((item) => item.json.iban)).toEqual(ibans);
		expect(items.every((item) => item.json.is_valid === true)).toBe(true);
		expect(sandbox.requests('iban')).toHaveLength(ibans.length + 5);
		// Items that already succeeded are never sent again: each IBAN has exactly one success.
		expect(
			successes()
				.map((entry) => entry.query.iban)
				.sort(),
		).toEqual([...ibans].sort());
	});

	it('honours Retry-After: the retry comes no sooner than the service asked', async () => {
		sandbox.inject('iban', { kind: 'status', status: 429, retryAfter: 1 });
		await runIban(sandbox, [VALID_IBANS[0]]);
		const [refused, retried] = sandbox.requests('iban');
		expect(refused.status).toBe(429);
		expect(retried.status).toBe(200);
		expect(retried.at - refused.at).toBeGreaterThanOrEqual(950);
	});

	it.each([400, 401, 422])('%i is not retried: sent once', async (status) => {
		sandbox.inject('iban', { kind: 'status', status });
		const { error } = await runIban(sandbox, [VALID_IBANS[0]]);
		expect(error?.httpCode).toBe(String(status));
		expect(sandbox.requests('iban')).toHaveLength(1);
	});
});
