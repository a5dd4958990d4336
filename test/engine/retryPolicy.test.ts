import { retryPolicy } from '../harness/retryBudget';

/** The retry policy's pure parts, as built into dist/: timeouts, Retry-After, backoff, budget. */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const retry =
	require('../../dist/nodes/shared/engine/retry.js') as typeof import('../../nodes/shared/engine/retry');

describe('retry policy', () => {
	it('a timeout (ECONNABORTED) is never retried: the service may have charged; a reset is', () => {
		expect(retry.isRetryableNetworkError({ code: 'ECONNABORTED' })).toBe(false);
		expect(retry.isRetryableNetworkError({ message: 'timeout of 30000ms exceeded' })).toBe(false);
		expect(retry.isRetryableNetworkError({ code: 'ECONNRESET' })).toBe(true);
	});

	it('only 429, 500 and 503 are retried', () => {
		expect([400, 401, 403, 404, 422, 429, 500, 502, 503].filter(retry.isRetryableStatus)).toEqual([
			429, 500, 503,
		]);
	});

	it("Retry-After in seconds or as a date, not capped: a wait past the budget is the caller's to refuse", () => {
		expect(retry.retryAfterMs('600')).toBe(600_000);
		expect(retry.retryAfterMs(new Date(10_000).toUTCString(), 4_000)).toBe(6_000);
		expect(retry.retryAfterMs('soon')).toBeUndefined();
	});

	it('backoff grows by 1.5 from 20 ms, with jitter in its upper half, up to 5 s', () => {
		expect([0, 1, 2].map((n) => retry.backoffMs(n, () => 1))).toEqual([20, 30, 45]);
		expect(retry.backoffMs(0, () => 0)).toBe(10);
		expect(retry.backoffMs(40, () => 1)).toBe(5_000);
	});

	it('the budget is two minutes from the first attempt, and a failing service ends it for every item', () => {
		expect(retryPolicy().budgetMs).toBe(120_000);
		const budget = new retry.RetryBudget(1_000);
		expect(budget.allows(1_000, undefined, 100_000)).toBe(true);
		expect(budget.allows(30_000, undefined, 100_000)).toBe(false);
		// This item started late, but the service has failed every request for two minutes.
		expect(budget.allows(100, 0, 119_950)).toBe(false);
		expect(budget.allows(100, 0, 119_000)).toBe(true);
	});
});
