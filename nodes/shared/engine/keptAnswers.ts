import type { INodeExecutionData } from 'n8n-workflow';

import { WINDOWS, type ExecutionOfNode, type Payment } from './answerRules';

export type { ExecutionOfNode, Payment };

/**
 * The answers this n8n process has paid for, as payments: facts that never change, and the state
 * of each execution that paid; one memory budget and its eviction order. Who may take a payment,
 * until when, is answerRules.ts's alone (the run and the estimate ask it: keptAnswersOfRun.ts).
 * No timers (n8n Cloud's rules): a run's start sweeps what expired.
 */

/** Memory the process gives kept answers, counted by the size of what is kept. */
export const KEPT_ANSWERS_BUDGET = 64 * 1024 * 1024;

/** Until when a waiting try (Retry On Fail) or a Retry may claim the payment. */
function claimEnd({ payer, paidAt }: Payment): number {
	if (payer.state === 'open') return payer.retryOnFail ? payer.lastPaidAt + WINDOWS.tries : 0;
	return payer.state === 'failed' ? paidAt + WINDOWS.retry : 0;
}

/** Until when a rule may give the payment to anyone (a running execution may still fail). */
function endOf(payment: Payment): number {
	const { payer, paidAt, reuseMs } = payment;
	const running = payer.state === 'open' ? payer.lastPaidAt + WINDOWS.tries : 0;
	return Math.max(claimEnd(payment), paidAt + reuseMs, running);
}

const byScope = new Map<string, Map<string, Payment[]>>();
const executions = new Map<string, ExecutionOfNode>();
/** Runs in progress: what each has taken or will take is never dropped for room. */
const running = new Set<(payment: Payment) => boolean>();
/** Payments only reuse may take, least recently used first; those a try or a Retry may claim, oldest first. */
const convenience = new Set<Payment>();
const claimed = new Set<Payment>();
let sizeKept = 0;
let budget = KEPT_ANSWERS_BUDGET;
let nextSweep = Number.POSITIVE_INFINITY;
let clock = () => Date.now();

export const now = () => clock();
export const hasNoBudget = () => budget <= 0;

/** The payments of one request in one scope, oldest first. */
export const paymentsOf = (scope: string, identity: string): readonly Payment[] =>
	byScope.get(scope)?.get(identity) ?? [];

/** n8n runs the node (again) in this execution: one try more. Sweeps what expired first. */
export function startTry(id: string, executionId: string, retryOnFail: boolean): ExecutionOfNode {
	const at = clock();
	if (at >= nextSweep) sweep(at);
	const execution: ExecutionOfNode = executions.get(id) ?? {
		...{ id, executionId, retryOnFail, state: 'open', tries: 0, lastPaidAt: at },
		payments: new Set(),
	};
	executions.set(id, Object.assign(execution, { state: 'open', lastPaidAt: at }));
	execution.tries++;
	return execution;
}

/** A run in progress, and what it spares; returns its end. */
export function runStarts(spares: (payment: Payment) => boolean): () => void {
	running.add(spares);
	return () => running.delete(spares);
}

/** n8n will not run the node again in the execution: it failed (a Retry may take), or is done. */
export function settle(execution: ExecutionOfNode, state: 'failed' | 'done'): void {
	execution.state = state;
	for (const payment of [...execution.payments]) place(payment);
	if (execution.payments.size === 0) executions.delete(execution.id);
}

/** Files a payment, then drops payments (`victim`) until the budget holds; the newcomer last. */
export function file(payment: Payment): void {
	if (payment.size > budget) return;
	const scope = byScope.get(payment.scope) ?? new Map<string, Payment[]>();
	byScope.set(
		payment.scope,
		scope.set(payment.identity, [...paymentsOf(payment.scope, payment.identity), payment]),
	);
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
 * The one eviction order: what only reuse may take, least recently used first; then what a try
 * or a Retry may claim, those whose claim ended first, then oldest first; never what a run in
 * progress has taken or will take.
 */
function victim(): Payment | undefined {
	const spared = (payment: Payment) => [...running].some((spares) => spares(payment));
	for (const payment of convenience) if (!spared(payment)) return payment;
	let oldest: Payment | undefined;
	for (const payment of claimed) {
		if (spared(payment)) continue;
		if (claimEnd(payment) <= clock()) return payment;
		oldest ??= payment;
	}
	return oldest;
}

/** The payment's answer with the file its unit fetched for it. */
export function addFiles(payment: Payment, answered: INodeExecutionData[], size: number): void {
	if (!payment.payer.payments.has(payment)) return;
	sizeKept += size - payment.size;
	Object.assign(payment, { answered, size });
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
	(set === claimed ? convenience : claimed).delete(payment);
	set.add(payment);
}

/** Drops a payment (expired, dropped for room, or its kept file gone). */
export function forget(payment: Payment): void {
	if (!payment.payer.payments.delete(payment)) return;
	convenience.delete(payment);
	claimed.delete(payment);
	sizeKept -= payment.size;
	const scope = byScope.get(payment.scope);
	const left = paymentsOf(payment.scope, payment.identity).filter((other) => other !== payment);
	if (left.length > 0) scope?.set(payment.identity, left);
	else if (scope?.delete(payment.identity) && scope.size === 0) byScope.delete(payment.scope);
}

function sweep(at: number): void {
	nextSweep = Number.POSITIVE_INFINITY;
	for (const payment of [...convenience, ...claimed]) place(payment);
	for (const [id, { payments, lastPaidAt }] of executions)
		if (payments.size === 0 && lastPaidAt + WINDOWS.tries <= at) executions.delete(id);
}

/** For the bench and the tests of its bounds: what is kept now. */
export function keptAnswersHeld() {
	const [forRetries, forNextRuns] = [claimed.size, convenience.size];
	const [scopes, runs] = [byScope.size, executions.size];
	return {
		answers: forRetries + forNextRuns,
		size: sizeKept,
		forRetries,
		forNextRuns,
		scopes,
		runs,
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

/** Drops every payment and execution (each test starts from an empty store). */
export function dropKeptAnswers(): void {
	for (const payment of [...convenience, ...claimed]) forget(payment);
	executions.clear();
	running.clear();
	nextSweep = Number.POSITIVE_INFINITY;
}
