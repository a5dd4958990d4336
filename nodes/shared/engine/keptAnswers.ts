import type { INodeExecutionData } from 'n8n-workflow';

/**
 * The answers this n8n process has paid for, as one store, so that nothing is paid twice when n8n
 * runs a node again on the same input or a person does (keptAnswersOfRun.ts says who may take
 * what). One memory budget (KEPT_ANSWERS_BUDGET, counted by size): when it is full, what only
 * saves a convenience goes first, least recently used first; then what a failed execution or a
 * waiting try may still take, oldest first; never what the running node has taken. The lint rules
 * for n8n Cloud forbid timers, so expired entries are swept when a node opens the store.
 */

/** Memory the process gives kept answers, counted by the size of what is kept. */
export const KEPT_ANSWERS_BUDGET = 64 * 1024 * 1024;

/** How long a failed execution's answers wait for a Retry, and an execution's for its next try. */
export const KEEP_FOR_RETRY_MS = 60 * 60 * 1000;

/** How long a test run's answers serve the node's next test runs. */
export const REUSE_TEST_RUNS_MS = 60 * 60 * 1000;

/** One execution's runs of one node (its tries): what it paid, and whether n8n may run it again. */
export interface ExecutionOfNode {
	/** The execution and the node's scope: its key in `executions`. */
	id: string;
	executionId: string;
	testRun: boolean;
	retryOnFail: boolean;
	/** n8n may still run the node again in this execution (or it is running now). */
	open: boolean;
	tries: number;
	/** Its last payment: its answers serve its next try for an hour from then. */
	lastPaidAt: number;
}

/**
 * One paid answer: what it answers (the request key, requestKey.ts: what was sent, nothing of
 * presentation), in which scope (workflow, node id, type and version, credential identity), when
 * and by which execution it was paid.
 */
export interface Entry {
	scope: Map<string, Entry>;
	key: string;
	answered: INodeExecutionData[];
	/** The keys the engine puts beside the answer in its output item (a CSV row's): not the answer's. */
	rowJsonKeys?: string[];
	size: number;
	paidAt: number;
	payer: ExecutionOfNode;
	/** Until when later runs may reuse it (test runs', or production runs' Reuse Answers For (Hours)). */
	reuseUntil: number;
	/** Failed executions of the node that paid for this request, not yet given back by a Retry. */
	failed: number;
	retryUntil: number;
}

const scopes = new Map<string, Map<string, Entry>>();
const executions = new Map<string, ExecutionOfNode>();
/** Entries nothing but reuse may take: least recently used first. */
const convenient = new Set<Entry>();
/** Entries a failed execution or a waiting try may take: oldest first. */
const claimed = new Set<Entry>();
let sizeKept = 0;
let budget = KEPT_ANSWERS_BUDGET;
let nextSweep = Number.POSITIVE_INFINITY;

/** The store's clock: the tests move it to see answers expire without waiting. */
let clock: () => number = () => Date.now();

/** Now, by the store's clock. */
export function now(): number {
	return clock();
}

/** Whether the process gives kept answers no memory (the bench's run without keeping). */
export function hasNoBudget(): boolean {
	return budget <= 0;
}

/** Drops what expired (a node opening the store calls it: there are no timers). */
export function sweepExpired(): void {
	sweep(clock());
}

/** The entries of one scope by request key; created (and held) only when `create`. */
export function scopeFor(id: string, create: boolean): Map<string, Entry> {
	const scope = scopes.get(id) ?? new Map<string, Entry>();
	if (create && !scopes.has(id)) scopes.set(id, scope);
	return scope;
}

/** The execution's runs of a node, by id, if held. */
export function executionOf(id: string): ExecutionOfNode | undefined {
	return executions.get(id);
}

/** n8n runs the node (again) in this execution: one try more, held from its first. */
export function startTry(
	execution: Pick<ExecutionOfNode, 'id' | 'executionId' | 'testRun' | 'retryOnFail'>,
): ExecutionOfNode {
	let held = executions.get(execution.id);
	if (!held) {
		held = { ...execution, open: true, tries: 0, lastPaidAt: clock() };
		executions.set(execution.id, held);
	}
	held.open = true;
	held.tries++;
	return held;
}

/** n8n will not run the node again in this execution: its claims are the entries' now. */
export function closeExecution(execution: ExecutionOfNode): void {
	execution.open = false;
	executions.delete(execution.id);
}

/**
 * Files a new entry, replacing `previous` (the same key's), then drops entries until the budget
 * holds: convenience first, then claimed ones, never one `spare` names; the new entry itself
 * last (a new answer is never dropped to keep an old unused one, unless nothing else can go).
 */
export function file(
	entry: Entry,
	previous: Entry | undefined,
	spare: (entry: Entry) => boolean,
): void {
	if (entry.size > budget) return;
	if (previous) forget(previous);
	entry.scope.set(entry.key, entry);
	sizeKept += entry.size;
	place(entry);
	nextSweep = Math.min(nextSweep, endOf(entry));
	const at = clock();
	while (sizeKept > budget) {
		const victim = firstUnspared(convenient, spare) ?? firstUnspared(claimed, spare, at) ?? entry;
		forget(victim);
		if (victim === entry) return;
	}
}

/** The first entry of `set` this run does not spare (in `claimed`, one whose claims expired first). */
function firstUnspared(
	set: Set<Entry>,
	spare: (entry: Entry) => boolean,
	now?: number,
): Entry | undefined {
	let first: Entry | undefined;
	for (const entry of set) {
		if (spare(entry)) continue;
		if (now === undefined || endOf(entry) <= now) return entry;
		first ??= entry;
	}
	return first;
}

/** Whether a failed execution or this execution's next try may take it: what the budget keeps longer. */
function isClaimed(entry: Entry): boolean {
	return (entry.payer.open && entry.payer.retryOnFail) || entry.failed > 0;
}

/** Files `entry` in its eviction order (again, after its claims changed); an entry with none left goes. */
export function place(entry: Entry): void {
	if (!entry.payer.open && entry.failed === 0 && entry.reuseUntil <= clock()) {
		forget(entry);
		return;
	}
	const wanted = isClaimed(entry) ? claimed : convenient;
	if (wanted.has(entry)) return;
	convenient.delete(entry);
	claimed.delete(entry);
	wanted.add(entry);
}

/** Used now: last in the least-recently-used order. */
export function touch(entry: Entry): void {
	if (convenient.delete(entry)) convenient.add(entry);
}

/** When nothing may take the entry any more (a running execution's: an hour after its last payment). */
function endOf(entry: Entry): number {
	const tryEnd = entry.payer.open ? entry.payer.lastPaidAt + KEEP_FOR_RETRY_MS : 0;
	return Math.max(tryEnd, entry.failed > 0 ? entry.retryUntil : 0, entry.reuseUntil);
}

export function forget(entry: Entry): void {
	if (!convenient.delete(entry) && !claimed.delete(entry)) return;
	sizeKept -= entry.size;
	if (entry.scope.get(entry.key) === entry) entry.scope.delete(entry.key);
}

function sweep(now: number): void {
	if (now < nextSweep) return;
	nextSweep = Number.POSITIVE_INFINITY;
	for (const set of [convenient, claimed]) {
		for (const entry of [...set]) {
			const end = endOf(entry);
			if (end <= now) forget(entry);
			else nextSweep = Math.min(nextSweep, end);
		}
	}
	for (const [id, scope] of scopes) if (scope.size === 0) scopes.delete(id);
	for (const [id, execution] of executions)
		if (execution.lastPaidAt + KEEP_FOR_RETRY_MS <= now) executions.delete(id);
}

/**
 * What the ledger holds now, for the bench and the tests of its bounds: every answer, those a
 * failed execution or a waiting try may take (`forRetries`), and those only later runs' reuse
 * may take (`forNextRuns`).
 */
export function keptAnswersHeld(): {
	answers: number;
	size: number;
	forRetries: number;
	forNextRuns: number;
	scopes: number;
	runs: number;
} {
	return {
		answers: convenient.size + claimed.size,
		size: sizeKept,
		forRetries: claimed.size,
		forNextRuns: convenient.size,
		scopes: scopes.size,
		runs: executions.size,
	};
}

/** Sets the process's budget (0 turns keeping off); returns the previous one. Lowering it drops at once. */
export function setKeptAnswersBudget(bytes: number): number {
	const previous = budget;
	budget = bytes;
	for (const set of [convenient, claimed]) {
		for (const entry of [...set]) if (sizeKept > budget) forget(entry);
	}
	return previous;
}

/** Sets the store's clock (the tests move time forward); without an argument, the real one again. */
export function setKeptAnswersClock(now?: () => number): void {
	clock = now ?? (() => Date.now());
}

/** Drops every kept answer (the tests start each case from an empty store). */
export function dropKeptAnswers(): void {
	for (const entry of [...convenient, ...claimed]) forget(entry);
	scopes.clear();
	executions.clear();
	nextSweep = Number.POSITIVE_INFINITY;
}
