import type { INodeExecutionData } from 'n8n-workflow';

import { claimEnd, keptUntil, WINDOWS, type ExecutionOfNode, type Payment } from './answerRules';

/**
 * The answers this n8n process has paid for, as payments: facts that never change, and the state
 * of each execution that paid; one memory budget and its eviction order. Who may take a payment,
 * until when, is answerRules.ts's alone (the run and the estimate ask it: keptAnswersOfRun.ts).
 * No timers (n8n Cloud's rules): a run's start sweeps what expired.
 */

/** Memory the process gives kept answers, counted by the size of what is kept. */
export const KEPT_ANSWERS_BUDGET = 64 * 1024 * 1024;

/** A payment's size: its answer's text (files' bytes in n8n's memory mode, else a reference), its identity, and the entry. */
const sizeOf = ({ identity, answer }: Payment) => 200 + bytesOf(identity) + bytesOf(answer);

/**
 * The memory a text takes: V8 holds a string a byte a character while every one is Latin-1, else
 * two (a holiday's or a company's local name). The test stops at the first such character; V8
 * answers it at once for a text of one-byte characters. It also makes the text one piece, where
 * Node 20's JSON.stringify leaves pieces: 98.3 against 88.0 MiB for a full budget (docs/benchmarks.md).
 */
const bytesOf = (text: string) => (/[\u0100-\uffff]/.test(text) ? 2 : 1) * text.length;

/**
 * An answer as kept: its items' JSON and files (the bytes in n8n's memory mode, else n8n's
 * reference) as text, made once when filed: the smallest in memory, as answers are JSON, its
 * length its size, and nothing done to the output's items (a CSV row's columns put in) reaches it.
 */
export function asText(answered: INodeExecutionData[]): string {
	return JSON.stringify(answered.map(({ json, binary }) => (binary ? { json, binary } : { json })));
}

/** Every payment kept, least recently used first (filed or taken: last). */
const kept = new Set<Payment>();
/** The payments of each request of each scope, oldest first. */
const byRequest = new Map<string, Set<Payment>>();
const requestOf = (scope: string, identity: string) => `${scope}\n${identity}`;
const executions = new Map<string, ExecutionOfNode>();
/** Runs in progress (each adds itself, then removes itself): what each spares is never dropped for room. */
export const running = new Set<{ spares(payment: Payment): boolean }>();
let sizeKept = 0;
let budget = KEPT_ANSWERS_BUDGET;
/** No payment expires before this. */
let nextSweep = Number.POSITIVE_INFINITY;
let clock = () => Date.now();

export const now = () => clock();
export const hasNoBudget = () => budget <= 0;

export const paymentsOf = (scope: string, identity: string): Iterable<Payment> =>
	byRequest.get(requestOf(scope, identity)) ?? [];

/**
 * n8n runs the node (again) in this execution: one try more of its run `runIndex`, or the first
 * of a later run (n8n counts Retry On Fail's tries per run). Sweeps what expired first.
 */
export function startTry(
	id: string,
	executionId: string,
	retryOnFail: boolean,
	runIndex: number,
): ExecutionOfNode {
	const at = clock();
	if (at >= nextSweep) sweep(at);
	const execution: ExecutionOfNode = executions.get(id) ?? {
		...{ id, executionId, retryOnFail, state: 'open', runIndex, tries: 0, lastPaidAt: at },
		payments: new Set(),
	};
	if (execution.runIndex !== runIndex) Object.assign(execution, { runIndex, tries: 0 });
	executions.set(id, Object.assign(execution, { state: 'open', lastPaidAt: at }));
	execution.tries++;
	return execution;
}

/** n8n will not run the node again in the execution: it failed (a Retry may take), or is done. */
export function settle(execution: ExecutionOfNode, state: 'failed' | 'done'): void {
	execution.state = state;
	for (const payment of execution.payments) expireOrWait(payment, clock());
	if (execution.payments.size === 0) executions.delete(execution.id);
}

/** Files a payment (its execution's last), then drops payments until the budget holds (the eviction order: victim). */
export function file(payment: Payment): void {
	payment.payer.lastPaidAt = payment.paidAt;
	if (sizeOf(payment) > budget) return;
	const request = requestOf(payment.scope, payment.identity);
	byRequest.set(request, (byRequest.get(request) ?? new Set()).add(payment));
	payment.payer.payments.add(payment);
	kept.add(payment);
	sizeKept += sizeOf(payment);
	nextSweep = Math.min(nextSweep, keptUntil(payment));
	makeRoom();
}

/**
 * The payment's answer again: with the files its unit fetched for it for free (a download), none
 * to fetch again, within the room left (a paid answer is not dropped for what is free); or
 * without them, n8n having lost them.
 */
export function refile(payment: Payment, answered: INodeExecutionData[], fetched: boolean): void {
	if (!kept.has(payment)) return;
	const answer = asText(answered);
	const grows = bytesOf(answer) - bytesOf(payment.answer);
	if (grows > 0 && sizeKept + grows > budget) return;
	sizeKept += grows;
	Object.assign(payment, { answer, fetched });
}

/** Used now: last in the least-recently-used order. */
export function touch(payment: Payment): void {
	if (kept.delete(payment)) kept.add(payment);
}

/** Drops a payment (expired, dropped for room, or its kept file gone). */
export function forget(payment: Payment): void {
	if (!kept.delete(payment)) return;
	payment.payer.payments.delete(payment);
	sizeKept -= sizeOf(payment);
	const request = requestOf(payment.scope, payment.identity);
	const left = byRequest.get(request);
	if (left?.delete(payment) && left.size === 0) byRequest.delete(request);
}

/** While over budget, drops the first victim of the one eviction order (none: all are spared). */
function makeRoom(): void {
	let dropped: Payment | undefined;
	while (sizeKept > budget && (dropped = victim())) forget(dropped);
}

/**
 * The one eviction order: what only reuse may take now, least recently used first; then what a
 * waiting try or a Retry may still take, oldest first; never what a run in progress has taken or
 * will take.
 */
function victim(): Payment | undefined {
	const at = clock();
	const spared = (payment: Payment) => [...running].some((run) => run.spares(payment));
	let oldest: Payment | undefined;
	for (const payment of kept) {
		if (spared(payment)) continue;
		if (claimEnd(payment) <= at) return payment;
		if (!oldest || payment.paidAt < oldest.paidAt) oldest = payment;
	}
	return oldest;
}

/** Drops the payment if no rule may give it any more; else notes when it expires. */
function expireOrWait(payment: Payment, at: number): void {
	const end = keptUntil(payment);
	if (end <= at) forget(payment);
	else nextSweep = Math.min(nextSweep, end);
}

function sweep(at: number): void {
	nextSweep = Number.POSITIVE_INFINITY;
	for (const payment of kept) expireOrWait(payment, at);
	for (const [id, { payments, lastPaidAt }] of executions)
		if (payments.size === 0 && lastPaidAt + WINDOWS.tries <= at) executions.delete(id);
}

/** What is kept now, for the tests of its bounds and the benches (test/harness/keptStore.ts). */
export const keptNow = () => ({ payments: kept.values(), size: sizeKept, runs: executions.size });

/** Sets the process's budget (0 turns keeping off); returns the previous one. Lowering it drops at once, in the eviction order. */
export function setKeptAnswersBudget(bytes: number): number {
	const previous = budget;
	budget = bytes;
	makeRoom();
	return previous;
}

/** Drops every payment and execution, and sets the store's clock (the real one unless given): each test starts from an empty store, at a time it moves forward. */
export function dropKeptAnswers(time = () => Date.now()): void {
	for (const held of [kept, byRequest, executions, running]) held.clear();
	[sizeKept, nextSweep, clock] = [0, Number.POSITIVE_INFINITY, time];
}
