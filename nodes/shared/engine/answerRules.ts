import type { ReuseSource } from './runFigures';
import type { ReusePolicy } from './types';

/*
 * The rules of paid answers: who may take a payment (keptAnswers.ts), until when. One pure
 * function of the payment, the run and the time, asked by the run and by its estimate alike. As a
 * table: docs/errors-and-credits.md, "Who may take a paid answer"; as a model held against random
 * histories through n8n-core: test/model/paidAnswersModel.ts.
 */

/** One hour of Reuse Answers For (Hours): the user's unit, not a window of the rules. */
export const HOUR_MS = 60 * 60 * 1000;

/** The rules' windows, each defined once. */
export const WINDOWS = {
	/** The same execution's next try: until this long after that execution's last payment. */
	tries: 60 * 60 * 1000,
	/** A Retry: a failed execution's payment, until this long after it. */
	retry: 60 * 60 * 1000,
	/** A test run: test runs' payments, until this long after each (Reuse Answers of Test Runs). */
	testRuns: 60 * 60 * 1000,
};

/** How long after a payment later runs may reuse it, as a run's Options say (its own or the payer's). */
export function reuseWindow(policy: ReusePolicy, testRun: boolean): number {
	if (testRun) return policy.testRuns ? WINDOWS.testRuns : 0;
	return Math.max(0, policy.hours) * HOUR_MS;
}

/** One execution's runs of one node: `open` while it runs or n8n may run the node again in it. */
export interface ExecutionOfNode {
	readonly id: string;
	readonly executionId: string;
	/** The node's Retry On Fail: what a try pays, its next try takes. */
	readonly retryOnFail: boolean;
	state: 'open' | 'failed' | 'done';
	/** n8n's index of the node's run in the execution (a loop or a second input runs it again), and that run's tries. */
	runIndex: number;
	tries: number;
	lastPaidAt: number;
	readonly payments: Set<Payment>;
}

/** A payment: the request's identity (requestKey.ts), its scope, who paid and when, the answer. */
export interface Payment {
	/** Workflow, node, node type and version, credential identity. */
	readonly scope: string;
	readonly identity: string;
	readonly payer: ExecutionOfNode;
	readonly testRun: boolean;
	readonly paidAt: number;
	/** How long later runs may reuse it, as the paying run's Options offered (0: never). */
	readonly reuseMs: number;
	/** The answer's items as text (keptAnswers.ts, asText): its one change is the file its unit fetched for it (a download), added or lost. */
	answer: string;
	/** Its files were fetched for it for free (a download): without them, it still answers. */
	fetched?: boolean;
}

/** A run of a node as the rules see it; `reuseMs` is its own Options' reuse window. */
export interface Taker {
	executionId: string;
	testRun: boolean;
	/** n8n's mode `retry` (which failed execution it retries, n8n does not tell a node). */
	retry: boolean;
	reuseMs: number;
}

/**
 * THE RULES: by which rule `run` may take `payment` at `now`, the first that gives it. The same
 * execution's next try while n8n may run the node again in it, until an hour after the
 * execution's last payment; a Retry, any failed execution's payment (a failed test run's too) for
 * an hour; reuse, a test run's of test runs and a production run's of production runs, younger
 * than the payer's and its own window.
 */
export function ruleFor(payment: Payment, run: Taker, now: number): ReuseSource | undefined {
	const { payer, paidAt, testRun, reuseMs } = payment;
	const sameExecution = payer.executionId === run.executionId;
	if (sameExecution && payer.state === 'open' && now < payer.lastPaidAt + WINDOWS.tries)
		return 'try';
	if (run.retry && payer.state === 'failed' && now < paidAt + WINDOWS.retry) return 'retry';
	if (testRun !== run.testRun || now >= paidAt + Math.min(reuseMs, run.reuseMs)) return undefined;
	return run.testRun ? 'testRuns' : 'earlierRuns';
}

/** Until when a waiting try (Retry On Fail) or a Retry may claim the payment (0: none may). */
export function claimEnd({ payer, paidAt }: Payment): number {
	if (payer.state === 'failed') return paidAt + WINDOWS.retry;
	return payer.state === 'open' && payer.retryOnFail ? payer.lastPaidAt + WINDOWS.tries : 0;
}

/** Until when any rule may give the payment to anyone (a running execution may still fail or try again). */
export function keptUntil(payment: Payment): number {
	const { payer, paidAt, reuseMs } = payment;
	const running = payer.state === 'open' ? payer.lastPaidAt + WINDOWS.tries : 0;
	return Math.max(claimEnd(payment), paidAt + reuseMs, running);
}

/** Which rule's payment a run prefers when several give one: its own execution's, a failed one's, reuse. */
const RANK: Record<ReuseSource, number> = { try: 2, retry: 1, testRuns: 0, earlierRuns: 0 };

/** A payment a run may take, and the rule that gives it. */
export interface Found {
	payment: Payment;
	source: ReuseSource;
}

/** The payment of `payments` (oldest first) the best rule gives `run` now, the newest of it, and the rule. */
export function bestFor(payments: Iterable<Payment>, run: Taker, now: number): Found | undefined {
	let best: Found | undefined;
	for (const payment of payments) {
		const source = ruleFor(payment, run, now);
		if (source && (!best || RANK[source] >= RANK[best.source])) best = { payment, source };
	}
	return best;
}
