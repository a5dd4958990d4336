import path from 'path';

import { ROOT } from './nodeTypes';

/**
 * The retry time budget of the built package (dist/nodes/shared/engine/retry.js, the module the nodes
 * run with in this process). Tests shorten it to see an item give up within seconds; the
 * product's own budget is two minutes.
 */
interface RetryPolicy {
	budgetMs: number;
	firstDelayMs: number;
	maxDelayMs: number;
}

export function retryPolicy(): RetryPolicy {
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	return (
		require(path.join(ROOT, 'dist/nodes/shared/engine/retry.js')) as { RETRY_POLICY: RetryPolicy }
	).RETRY_POLICY;
}

/** Sets the budget for the tests of one file and returns the product's value to restore. */
export function shortenRetryBudget(budgetMs: number): () => void {
	const policy = retryPolicy();
	const original = { ...policy };
	policy.budgetMs = budgetMs;
	return () => Object.assign(policy, original);
}
