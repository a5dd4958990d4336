import type { INodeExecutionData } from 'n8n-workflow';

import type { ReuseSource } from './runFigures';
import type { ReusePolicy } from './types';

/**
 * The answers this n8n process has paid for, as payments: facts that never change (what was
 * asked, in which scope, by which execution in which mode, when, and the answer), and the state of
 * each execution that paid (may n8n run the node again in it, did it fail). `ruleFor` is the one
 * function that says who may take a payment, and until when; the run and the estimate both ask
 * it (keptAnswersOfRun.ts). The table of the rules: docs/errors-and-credits.md; their model, held
 * against random histories: test/model/paidAnswersModel.ts. There are no timers (n8n Cloud's
 * rules): what expired is swept when a run opens the store.
 */

/** Memory the process gives kept answers, counted by the size of what is kept. */
export const KEPT_ANSWERS_BUDGET = 64 * 1024 * 1024;

/** One hour of Reuse Answers For (Hours): the user's unit, not a window of the rules. */
export const HOUR_MS = 60 * 60 * 1000;

/** The rules' windows, each defined here once. */
export const WINDOWS = {
	/** The same execution's next try takes its answers until this long after its last payment. */
	tries: 60 * 60 * 1000,
	/** A Retry takes a failed execution's answer until this long after that payment. */
	retry: 60 * 60 * 1000,
	/** A test run takes test runs' answers until this long after each payment. */
	testRuns: 60 * 60 * 1000,
};

/** How long after its payment later runs of the node may reuse an answer, as a run's Options say. */
export function reuseWindow(policy: ReusePolicy, testRun: boolean): number {
	if (testRun) return policy.testRuns ? WINDOWS.testRuns : 0;
	return Math.max(0, policy.hours) * HOUR_MS;
}

/** One execution's runs of one node: `open` while it runs or n8n may run the node again in it. */
export interface ExecutionOfNode {
	readonly executionId: string;
	/** The node's Retry On Fail: its next try will take what this one paid. */
	readonly retryOnFail: boolean;
	state: 'open' | 'failed' | 'done';
	tries: number;
	lastPaidAt: number;
	readonly payments: Set<Payment>;
}

/** A payment: what was asked (its identity, requestKey.ts), in which scope, by whom, when; its answer. */
export interface Payment {
	/** Workflow, node, node type and version, credential identity; and test runs' or production's. */
	readonly scope: string;
	readonly identity: string;
	readonly payer: ExecutionOfNode;
	readonly testRun: boolean;
	readonly paidAt: number;
	/** How long later runs may reuse it, as the paying run's Options offered (0: never). */
	readonly reuseMs: number;
	/** The answer; the one change a payment sees is its file added once fetched (a download). */
	answered: INodeExecutionData[];
	/** The keys the engine put beside the answer in an output item (a CSV row's): not the answer's. */
	readonly rowJsonKeys?: string[];
	size: number;
}

/** A run of a node as the rules see it. */
export interface Taker {
	executionId: string;
	testRun: boolean;
	/** n8n's mode `retry`: a Retry of a failed execution (which one, n8n does not tell a node). */
	retry: boolean;
	/** Its own Options' reuse window (reuseWindow). */
	reuseMs: number;
}

/**
 * THE RULES: by which rule `run` may take `payment` at `now`, or undefined.
 * - the same execution (its later tries): while n8n may run the node again, until an hour after
 *   that execution's last payment; or by a reuse window (paid in this execution all the same);
 * - a Retry: a failed execution's payments (a failed test run's too), each for an hour;
 * - reuse: a test run takes test runs' answers, a production run production answers, each
 *   younger than both the payer's and the taker's window (Reuse Answers of Test Runs, For (Hours)).
 */
export function ruleFor(payment: Payment, run: Taker, now: number): ReuseSource | undefined {
	const { payer } = payment;
	const reused =
		payment.testRun === run.testRun &&
		now < payment.paidAt + Math.min(payment.reuseMs, run.reuseMs);
	if (payer.executionId === run.executionId) {
		const nextTry = payer.state === 'open' && now < payer.lastPaidAt + WINDOWS.tries;
		return nextTry || reused ? 'try' : undefined;
	}
	if (run.retry && payer.state === 'failed' && now < payment.paidAt + WINDOWS.retry) return 'retry';
	if (reused) return run.testRun ? 'testRuns' : 'earlierRuns';
	return undefined;
}

/** Until when a waiting try (Retry On Fail) or a Retry may claim the payment. */
function claimEnd({ payer, paidAt }: Payment): number {
	if (payer.state === 'open') return payer.retryOnFail ? payer.lastPaidAt + WINDOWS.tries : 0;
	return payer.state === 'failed' ? paidAt + WINDOWS.retry : 0;
}

/** Until when a rule may still give the payment to someone (a running execution may fail): past it, it is swept. */
function endOf(payment: Payment): number {
	const { payer } = payment;
	const running = payer.state === 'open' ? payer.lastPaidAt + WINDOWS.tries : 0;
	return Math.max(claimEnd(payment), payment.paidAt + payment.reuseMs, running);
}

const byScope = new Map<string, Map<string, Payment[]>>();
const executions = new Map<string, ExecutionOfNode>();
/** Runs in progress: what each has taken or will take is never dropped for room. */
const running = new Set<(payment: Payment) => boolean>();
/** Payments only reuse may take: least recently used first. */
const convenience = new Set<Payment>();
/** Payments a failed execution or a waiting try may take: oldest first. */
const claimed = new Set<Payment>();
let sizeKept = 0;
let budget = KEPT_ANSWERS_BUDGET;
let nextSweep = Number.POSITIVE_INFINITY;
let clock: () => number = () => Date.now();

/** Now, by the store's clock (the tests move it). */
export function now(): number {
	return clock();
}

/** Whether the process gives kept answers no memory (the bench's run without keeping). */
export function hasNoBudget(): boolean {
	return budget <= 0;
}

/** The payments of one request in one scope, oldest first. */
export function paymentsOf(scope: string, identity: string): readonly Payment[] {
	return byScope.get(scope)?.get(identity) ?? [];
}

/** n8n runs the node (again) in this execution: one try more. Sweeps what expired first. */
export function startTry(id: string, executionId: string, retryOnFail: boolean): ExecutionOfNode {
	const at = clock();
	if (at >= nextSweep) sweep(at);
	let execution = executions.get(id);
	if (!execution) {
		execution = {
			executionId,
			retryOnFail,
			state: 'open',
			tries: 0,
			lastPaidAt: at,
			payments: new Set(),
		};
		executions.set(id, execution);
	}
	execution.state = 'open';
	execution.tries++;
	return execution;
}

/** A run in progress: `spares` names what it has taken or will take. Returns its end. */
export function runStarts(spares: (payment: Payment) => boolean): () => void {
	running.add(spares);
	return () => running.delete(spares);
}

/** n8n will not run the node again in the execution: it failed (a Retry may take), or is done. */
export function settle(id: string, execution: ExecutionOfNode, state: 'failed' | 'done'): void {
	execution.state = state;
	for (const payment of [...execution.payments]) place(payment);
	if (execution.payments.size === 0) executions.delete(id);
}

/** Files a payment, then drops payments until the budget holds (see `victim`). */
export function file(payment: Payment): void {
	if (payment.size > budget) return;
	let list = byScope.get(payment.scope);
	if (!list) byScope.set(payment.scope, (list = new Map()));
	list.set(payment.identity, [...(list.get(payment.identity) ?? []), payment]);
	payment.payer.payments.add(payment);
	sizeKept += payment.size;
	place(payment);
	while (sizeKept > budget) {
		const dropped = victim() ?? payment;
		forget(dropped);
		if (dropped === payment) return;
	}
}

/**
 * The one eviction order: what only reuse may take, least recently used first; then what a failed
 * execution or a waiting try may take, those whose claim ended first, then oldest first; never
 * what a run in progress has taken or will take. Undefined: nothing may go but the newcomer.
 */
function victim(): Payment | undefined {
	const spared = (payment: Payment) => {
		for (const spares of running) if (spares(payment)) return true;
		return false;
	};
	for (const payment of convenience) if (!spared(payment)) return payment;
	const at = clock();
	let oldest: Payment | undefined;
	for (const payment of claimed) {
		if (spared(payment)) continue;
		if (claimEnd(payment) <= at) return payment;
		oldest ??= payment;
	}
	return oldest;
}

/** The payment's file, fetched after it was paid (a processed image's download). */
export function addFiles(payment: Payment, answered: INodeExecutionData[], size: number): void {
	if (!convenience.has(payment) && !claimed.has(payment)) return;
	sizeKept += size - payment.size;
	payment.answered = answered;
	payment.size = size;
}

/** Used now: last in the least-recently-used order. */
export function touch(payment: Payment): void {
	if (convenience.delete(payment)) convenience.add(payment);
}

/** Where the payment stands in the eviction order now; one nothing may take goes. */
function place(payment: Payment): void {
	const at = clock();
	const set = claimEnd(payment) > at ? claimed : endOf(payment) > at ? convenience : undefined;
	if (!set) return forget(payment);
	nextSweep = Math.min(nextSweep, endOf(payment));
	if (set.has(payment)) return;
	convenience.delete(payment);
	claimed.delete(payment);
	set.add(payment);
}

/** Drops a payment (expired, dropped for room, or its kept file gone). */
export function forget(payment: Payment): void {
	if (!convenience.delete(payment) && !claimed.delete(payment)) return;
	sizeKept -= payment.size;
	payment.payer.payments.delete(payment);
	const list = byScope.get(payment.scope);
	const left = (list?.get(payment.identity) ?? []).filter((other) => other !== payment);
	if (left.length > 0) list?.set(payment.identity, left);
	else list?.delete(payment.identity);
	if (list?.size === 0) byScope.delete(payment.scope);
}

function sweep(at: number): void {
	nextSweep = Number.POSITIVE_INFINITY;
	for (const payment of [...convenience, ...claimed]) place(payment);
	for (const [id, execution] of executions)
		if (execution.payments.size === 0 && execution.lastPaidAt + WINDOWS.tries <= at)
			executions.delete(id);
}

/** What is kept now, for the bench and the tests of its bounds. */
export function keptAnswersHeld() {
	return {
		answers: convenience.size + claimed.size,
		size: sizeKept,
		forRetries: claimed.size,
		forNextRuns: convenience.size,
		scopes: byScope.size,
		runs: executions.size,
	};
}

/** Sets the process's budget (0 turns keeping off); returns the previous one. Lowering it drops at once. */
export function setKeptAnswersBudget(bytes: number): number {
	const previous = budget;
	budget = bytes;
	for (const payment of [...convenience, ...claimed]) if (sizeKept > budget) forget(payment);
	return previous;
}

/** Sets the store's clock (the tests move time forward); without an argument, the real one again. */
export function setKeptAnswersClock(time?: () => number): void {
	clock = time ?? (() => Date.now());
}

/** Drops every kept answer and execution (each test starts from an empty store). */
export function dropKeptAnswers(): void {
	for (const payment of [...convenience, ...claimed]) forget(payment);
	executions.clear();
	running.clear();
	nextSweep = Number.POSITIVE_INFINITY;
}
