import type { IDataObject, IExecuteFunctions, INode, INodeExecutionData } from 'n8n-workflow';

import {
	closeExecution,
	executionOf,
	startTry,
	file,
	forget,
	hasNoBudget,
	KEEP_FOR_RETRY_MS,
	now,
	place,
	REUSE_TEST_RUNS_MS,
	scopeFor,
	sweepExpired,
	touch,
	type Entry,
	type ExecutionOfNode,
} from './keptAnswers';
import { copyItem, jsonCopy, sizeOf, storeFilesAgain } from './keptItems';
import type { ReuseSource } from './runFigures';
import type { ReusePolicy } from './types';

/**
 * Who may take a kept answer (keptAnswers.ts), so that nothing is paid twice when n8n runs a node
 * again on the same input, or a person does:
 * - the same execution, while n8n may run the node again in it (Retry On Fail's tries share the
 *   execution id): an hour from that execution's last payment;
 * - a Retry (mode `retry`, a new execution from the failed node's stored input): the node's failed
 *   executions' answers, each for an hour from its payment, test runs' included (n8n gives a
 *   Retry of a failed test run the same mode, so which execution it retries cannot be told);
 * - a test run (`manual` mode): test runs' answers of the last hour (Reuse Answers of Test Runs);
 * - a production run: production answers younger than its Reuse Answers For (Hours).
 * An answer paid again replaces the older one, and inherits the failed executions' claim on it.
 */

const HOUR_MS = KEEP_FOR_RETRY_MS;

/** A policy under which any rule may give an entry (for telling what a run is about to take). */
const ANY_REUSE: ReusePolicy = { testRuns: true, hours: Number.POSITIVE_INFINITY };

/** When the reused answers of earlier runs were paid for, and by how many executions. */
export interface ReuseAges {
	executions: number;
	/** Milliseconds since the oldest and the newest of them was paid for, by the store's clock. */
	oldestAgo: number;
	newestAgo: number;
}

/**
 * The kept answers as one run of a node sees them: it takes what the rules give it, files what
 * it pays for, and on finishing says what becomes of them.
 */
export class KeptAnswersOfRun {
	/** Occurrences of each request so far, when repeats are each sent (Send Repeated Values Once off). */
	private readonly occurrences = new Map<string, number>();

	/** What this run took: never dropped for the budget while it runs; a Retry gives back its claims. */
	private readonly taken = new Map<Entry, ReuseSource>();

	/** The request keys this run will ask for: what it is about to take is not dropped for room. */
	private asking: ReadonlySet<string> = new Set();

	/** Executions whose answers were reused, by source: 'earlier' (test or production runs), 'retry'. */
	private readonly sources = {
		earlier: new Set<ExecutionOfNode>(),
		retry: new Set<ExecutionOfNode>(),
	};

	private oldestPaidAt = Number.POSITIVE_INFINITY;

	private newestPaidAt = Number.NEGATIVE_INFINITY;

	private constructor(
		/** This kind of run's payments (test runs' or production runs') in the node's scope. */
		private readonly scope: Map<string, Entry>,
		/** For a Retry: the test runs' payments, of which it takes failed executions'. */
		private readonly testRunsScope: Map<string, Entry> | undefined,
		/** This execution's run of the node; undefined for an estimate, which changes nothing. */
		private readonly run: ExecutionOfNode | undefined,
		readonly executionId: string,
		readonly testRun: boolean,
		readonly retry: boolean,
		/** The node's Retry On Fail: n8n may run it again within this execution. */
		readonly retryOnFail: boolean,
		private readonly moreTries: boolean,
	) {}

	/**
	 * The ledger as this run of the node uses it, or undefined when nothing would be taken or kept:
	 * with either Continue setting and Retry On Fail off, n8n keeps the node's output, whatever it
	 * holds, and does not retry it; and no item's Options reuse answers of earlier runs.
	 * `estimate`: a read-only view that registers no try, creates no scope, keeps nothing and
	 * changes no eviction order (what a run would take, told before it runs).
	 */
	static open(
		ctx: IExecuteFunctions,
		credentialIdentity: string,
		reuseAsked: ReusePolicy[] = [],
		view: { estimate?: boolean } = {},
	): KeptAnswersOfRun | undefined {
		const node = ctx.getNode();
		const mode = ctx.getMode?.();
		// Only `manual` is a person building the workflow; every other mode is production.
		const testRun = mode === 'manual';
		const retryOnFail = node.retryOnFail === true;
		const forRetries = retryOnFail || !ctx.continueOnFail() || mode === 'retry';
		if (!forRetries && !reuseAsked.some((policy) => reusesWith(policy, testRun))) return undefined;
		// A process given no memory for them keeps nothing (the bench's run without keeping).
		if (hasNoBudget()) return undefined;
		// Test runs' and production runs' payments are filed apart: each kind takes its own, and a
		// production answer paid again does not replace what the node's next test run will take.
		const scopeId = [
			ctx.getWorkflow().id ?? '',
			node.id || node.name,
			`${node.type}@${node.typeVersion}`,
			credentialIdentity,
		].join('\n');
		const executionId = String(ctx.getExecutionId());
		const estimate = view.estimate === true;
		if (!estimate) sweepExpired();
		const scopeOf = (kind: 'test' | 'production') => scopeFor(`${kind}\n${scopeId}`, !estimate);
		const runId = `${executionId}\n${scopeId}`;
		const run = estimate
			? executionOf(runId)
			: startTry({ id: runId, executionId, testRun, retryOnFail });
		const moreTries = retryOnFail && (run?.tries ?? 1) < triesOf(node);
		const own = scopeOf(testRun ? 'test' : 'production');
		// A Retry also takes failed test runs' answers (see above).
		const failedTestRuns = mode === 'retry' ? scopeOf('test') : undefined;
		return new KeptAnswersOfRun(
			own,
			failedTestRuns,
			estimate ? undefined : run,
			executionId,
			testRun,
			mode === 'retry',
			retryOnFail,
			moreTries,
		);
	}

	/**
	 * The key under which a unit's answer is kept: the request key when repeated values share one
	 * answer; with Send Repeated Values Once off, each repeat has its own answer, so the key also
	 * counts the occurrence (the third item asking the same takes the third answer).
	 */
	keyFor(key: string | undefined, sharedByRepeats: boolean): string | undefined {
		if (key === undefined || sharedByRepeats) return key;
		const occurrence = (this.occurrences.get(key) ?? 0) + 1;
		this.occurrences.set(key, occurrence);
		return `${key}\n#${occurrence}`;
	}

	has(key: string | undefined, policy: ReusePolicy): boolean {
		return this.sourceOf(key, policy) !== undefined;
	}

	/** The request keys this run will ask for (with Send Repeated Values Once, where known before it sends). */
	willAsk(keys: ReadonlySet<string>): void {
		this.asking = keys;
	}

	/** From where `take` would take the answer for `key` now; no side effect. */
	sourceOf(key: string | undefined, policy: ReusePolicy): ReuseSource | undefined {
		return this.find(key, policy)?.[1];
	}

	/**
	 * A kept answer for `key`, as the unit's own copy, and where it came from; undefined: the unit
	 * is sent. A file kept by another execution is stored again for this one (n8n may delete the
	 * other's files, and in filesystem mode an item holds only a reference); one that can no
	 * longer be read is not reused.
	 */
	async take(
		ctx: IExecuteFunctions,
		key: string | undefined,
		policy: ReusePolicy,
	): Promise<{ answered: INodeExecutionData[]; source: ReuseSource } | undefined> {
		const found = this.find(key, policy);
		if (!found) return undefined;
		const [entry, source] = found;
		const copies = entry.answered.map(copyItem);
		for (const name of entry.rowJsonKeys ?? []) for (const copy of copies) delete copy.json[name];
		// An estimate stores nothing: it only tells what a run would take.
		if (source !== 'try' && this.run) {
			try {
				for (const copy of copies) await storeFilesAgain(ctx, copy);
			} catch {
				forget(entry);
				return undefined;
			}
		}
		if (source === 'retry') this.sources.retry.add(entry.payer);
		if (source === 'testRuns' || source === 'earlierRuns') {
			this.sources.earlier.add(entry.payer);
			this.oldestPaidAt = Math.min(this.oldestPaidAt, entry.paidAt);
			this.newestPaidAt = Math.max(this.newestPaidAt, entry.paidAt);
		}
		if (this.run) {
			this.taken.set(entry, source);
			touch(entry);
		}
		return { answered: copies, source };
	}

	/** When the reused answers of earlier runs were paid for, and by how many executions. */
	reuseAges(): ReuseAges | undefined {
		if (this.sources.earlier.size === 0) return undefined;
		const at = now();
		return {
			executions: this.sources.earlier.size,
			oldestAgo: Math.max(0, at - this.oldestPaidAt),
			newestAgo: Math.max(0, at - this.newestPaidAt),
		};
	}

	/** The failed executions whose answers a Retry took: how many, and how many of them test runs. */
	retrySources(): { executions: number; testRuns: number } {
		const runsTaken = [...this.sources.retry];
		return {
			executions: runsTaken.length,
			testRuns: runsTaken.filter((run) => run.testRun).length,
		};
	}

	/**
	 * Files an answer this run paid for: for this execution's next try or a Retry (`forTries`), and
	 * for the node's next runs when the item's Options ask for it. `rowJson`: what the engine will
	 * put into the answer's JSON for its output item (a CSV row's columns), left out when reused.
	 * Called again for the same unit (its download done), it replaces the answer, not the payment.
	 */
	keep(
		key: string | undefined,
		answered: INodeExecutionData[],
		rowJson: IDataObject | undefined,
		forTries: boolean,
		policy: ReusePolicy,
	): void {
		const run = this.run;
		if (key === undefined || !run) return;
		const forReuse = reusesWith(policy, this.testRun);
		if (!forTries && !forReuse) return;
		const at = now();
		const previous = this.scope.get(key);
		// This execution's own answer for the key, not taken: the same payment, its download added.
		const samePayment = previous?.payer === run && !this.taken.has(previous);
		const paidAt = samePayment ? previous.paidAt : at;
		run.lastPaidAt = Math.max(run.lastPaidAt, paidAt);
		// Reused by later runs, the answer is a copy: the output's items go on to other nodes, which
		// may change them. Answers are JSON: a JSON copy is the smallest in memory.
		const kept = forReuse ? answered.map(jsonCopy) : answered;
		const entry: Entry = {
			scope: this.scope,
			key,
			answered: kept,
			rowJsonKeys: !forReuse && rowJson ? Object.keys(rowJson) : undefined,
			size: sizeOf(key, kept) + (!forReuse && rowJson ? JSON.stringify(rowJson).length : 0),
			paidAt,
			payer: run,
			reuseUntil: forReuse
				? paidAt + (this.testRun ? REUSE_TEST_RUNS_MS : policy.hours * HOUR_MS)
				: 0,
			// Failed executions paid this request too: their claim is now on the newer answer.
			failed: previous && previous.retryUntil > at ? previous.failed : 0,
			retryUntil: previous && previous.retryUntil > at ? paidAt + KEEP_FOR_RETRY_MS : 0,
		};
		// Spared: what this run took, and another run's answer it may take for a key it has yet to ask.
		file(
			entry,
			previous,
			(other) =>
				this.taken.has(other) ||
				(other.payer !== run &&
					this.asking.has(other.key) &&
					this.find(other.key, ANY_REUSE)?.[0] === other),
		);
	}

	/**
	 * The run is over. Returns how many answers stay for a Retry of this execution: those it paid
	 * for and those it took from failed executions (0 while n8n's tries go on).
	 * - It returned output: n8n keeps it, so this execution's claims end, unless Retry On Fail will
	 *   run the node again because the first item is an error item. A Retry gives back the failed
	 *   executions' claims it took: their answers are in its output.
	 * - It threw (or was stopped): the next try takes the answers; after the last try, a Retry may.
	 * Answers kept for the node's next runs stay, whatever happened.
	 */
	finish(result: { output: INodeExecutionData[][] } | 'threw'): { paid: number; reused: number } {
		const run = this.run;
		const none = { paid: 0, reused: 0 };
		if (!run) return none;
		const threw = result === 'threw';
		if (
			this.moreTries &&
			(threw || (this.retryOnFail && result.output[0]?.[0]?.json?.error !== undefined))
		)
			return none;
		closeExecution(run);
		const at = now();
		const kept = { paid: 0, reused: 0 };
		for (const entry of this.scope.values()) {
			if (entry.payer !== run) continue;
			if (threw) {
				entry.failed++;
				entry.retryUntil = entry.paidAt + KEEP_FOR_RETRY_MS;
				if (entry.retryUntil > at) kept.paid++;
			}
			place(entry);
		}
		for (const [entry, source] of this.taken) {
			if (entry.scope.get(entry.key) !== entry || entry.payer === run) continue;
			if (threw) {
				if (source === 'retry' || entry.retryUntil > at) kept.reused++;
			} else if (source === 'retry' && entry.failed > 0) {
				entry.failed--;
			}
			place(entry);
		}
		return threw ? kept : none;
	}

	/** The entry this run may take for `key` now, and by which rule. */
	private find(key: string | undefined, policy: ReusePolicy): [Entry, ReuseSource] | undefined {
		if (key === undefined) return undefined;
		const at = now();
		for (const entry of [this.scope.get(key), this.testRunsScope?.get(key)]) {
			const source = entry && this.ruleFor(entry, policy, at);
			if (source) return [entry, source];
		}
		return undefined;
	}

	/** The rule by which this run may take `entry` now, if any. */
	private ruleFor(entry: Entry, policy: ReusePolicy, now: number): ReuseSource | undefined {
		const own = entry.payer.executionId === this.executionId;
		if (own && entry.payer.open && now < entry.payer.lastPaidAt + KEEP_FOR_RETRY_MS) return 'try';
		let source: ReuseSource | undefined;
		if (this.retry && entry.failed > 0 && now < entry.retryUntil) source = 'retry';
		// Production runs take what is younger than this item's window (the setting may have shrunk).
		else if (
			now < entry.reuseUntil &&
			reusesWith(policy, this.testRun) &&
			entry.payer.testRun === this.testRun &&
			(this.testRun || entry.paidAt > now - policy.hours * HOUR_MS)
		) {
			source = this.testRun ? 'testRuns' : 'earlierRuns';
		}
		// Paid earlier in this execution (the node run again in it): charged here, said as such.
		return source && own ? 'try' : source;
	}
}

/** Whether a job's Options take and keep answers of earlier runs in this mode. */
function reusesWith(policy: ReusePolicy, testRun: boolean): boolean {
	return testRun ? policy.testRuns : policy.hours > 0;
}

/** n8n-core's number of tries of a node with Retry On Fail on (WorkflowExecute: 2 to 5, default 3). */
function triesOf(node: INode): number {
	return Math.min(5, Math.max(2, node.maxTries || 3));
}
