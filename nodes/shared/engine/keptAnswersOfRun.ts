import type { IDataObject, IExecuteFunctions, INode, INodeExecutionData } from 'n8n-workflow';

import {
	addFiles,
	file,
	forget,
	hasNoBudget,
	now,
	paymentsOf,
	reuseWindow,
	ruleFor,
	runStarts,
	settle,
	startTry,
	touch,
	WINDOWS,
	type ExecutionOfNode,
	type Payment,
	type Taker,
} from './keptAnswers';
import { copyItem, jsonCopy, sizeOf, storeFilesAgain } from './keptItems';
import type { ReuseSource } from './runFigures';
import type { ReusePolicy } from './types';

/** When the reused answers of earlier runs were paid for, and by how many executions. */
export interface ReuseAges {
	executions: number;
	/** Milliseconds since the oldest and the newest of them was paid for, by the store's clock. */
	oldestAgo: number;
	newestAgo: number;
}

/** A payment a run may take, and the rule that gives it. */
export interface Found {
	payment: Payment;
	source: ReuseSource;
}

/** Which rule's payment a run prefers when several give one: its own execution's, a failed one's, reuse. */
const RANK: Record<ReuseSource, number> = { try: 2, retry: 1, testRuns: 0, earlierRuns: 0 };

/**
 * The kept answers as one run of a node sees them (keptAnswers.ts holds them and their rules): it
 * finds what the rules give it, takes it, files what it pays for, and on finishing says whether
 * n8n may run the node again in its execution or the execution failed. An estimate opens the same
 * view read-only: it finds by the same rules and changes nothing.
 */
export class KeptAnswersOfRun {
	private readonly taken = new Map<Payment, ReuseSource>();

	/** What this run paid: never taken by the run itself (a repeat sent again is a fresh answer). */
	private readonly paidHere = new Set<Payment>();

	/** The identities this run will ask for: what the rules give it for them is not dropped for room. */
	private planned: ReadonlySet<string> = new Set();

	private readonly ends: (() => void) | undefined;

	private constructor(
		private readonly scope: string,
		/** The execution's runs of the node; undefined for an estimate, which changes nothing. */
		private readonly execution: ExecutionOfNode | undefined,
		private readonly run: Taker,
		/** The node's Retry On Fail: n8n may run it again within this execution. */
		readonly retryOnFail: boolean,
		private readonly moreTries: boolean,
	) {
		if (execution) this.ends = runStarts((payment) => this.spares(payment));
	}

	get testRun(): boolean {
		return this.run.testRun;
	}

	/**
	 * The view of one run of the node, or undefined when nothing would be taken or kept: with either
	 * Continue setting and Retry On Fail off, n8n keeps the node's output whatever it holds and
	 * does not run it again, and no item's Options reuse answers. `estimate`: read-only.
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
		const reuseMs = Math.max(0, ...reuseAsked.map((policy) => reuseWindow(policy, testRun)));
		const forRetries = retryOnFail || !ctx.continueOnFail() || mode === 'retry';
		if ((!forRetries && reuseMs === 0) || hasNoBudget()) return undefined;
		const scope = [
			ctx.getWorkflow().id ?? '',
			node.id || node.name,
			`${node.type}@${node.typeVersion}`,
			credentialIdentity,
		].join('\n');
		const executionId = String(ctx.getExecutionId());
		const execution =
			view.estimate === true
				? undefined
				: startTry(`${executionId}\n${scope}`, executionId, retryOnFail);
		const moreTries = retryOnFail && (execution?.tries ?? 1) < triesOf(node);
		const run = { executionId, testRun, retry: mode === 'retry', reuseMs };
		return new KeptAnswersOfRun(scope, execution, run, retryOnFail, moreTries);
	}

	/** The identities this run will ask for (where known before it sends). */
	willAsk(identities: ReadonlySet<string>): void {
		this.planned = identities;
	}

	/**
	 * The payment the rules (keptAnswers.ts: ruleFor) give this run for `identity` now: its own
	 * execution's first, then a failed execution's, then reuse, the newest of each; never one it
	 * paid itself, and with repeats each sent (`each`) none it has taken already.
	 */
	find(identity: string | undefined, policy: ReusePolicy, each: boolean): Found | undefined {
		if (identity === undefined) return undefined;
		const taker = { ...this.run, reuseMs: reuseWindow(policy, this.run.testRun) };
		const at = now();
		let best: Found | undefined;
		for (const payment of paymentsOf(this.scope, identity)) {
			if (this.paidHere.has(payment) || (each && this.taken.has(payment))) continue;
			const source = ruleFor(payment, taker, at);
			if (source && (!best || RANK[source] >= RANK[best.source])) best = { payment, source };
		}
		return best;
	}

	/**
	 * Takes a found payment for a unit: as the unit's own copy, its files stored again for this
	 * execution (n8n may delete another's; an item in filesystem mode holds only a reference).
	 * Undefined when a file can no longer be read: the payment is dropped. An estimate only notes it.
	 */
	async take(
		ctx: IExecuteFunctions,
		{ payment, source }: Found,
	): Promise<INodeExecutionData[] | undefined> {
		this.taken.set(payment, source);
		if (!this.execution) return payment.answered;
		touch(payment);
		const copies = payment.answered.map(copyItem);
		for (const name of payment.rowJsonKeys ?? []) for (const copy of copies) delete copy.json[name];
		try {
			if (source !== 'try') for (const copy of copies) await storeFilesAgain(ctx, copy);
		} catch {
			this.drop(payment);
			return undefined;
		}
		return copies;
	}

	/**
	 * Files an answer this run paid for: for this execution's next try or a Retry (`forTries`),
	 * and for later runs when the item's Options offer it. `rowJson`: what the engine will put
	 * into the answer's JSON for its output item (a CSV row's columns), left out when reused.
	 */
	keep(
		identity: string | undefined,
		answered: INodeExecutionData[],
		rowJson: IDataObject | undefined,
		forTries: boolean,
		policy: ReusePolicy,
	): Payment | undefined {
		const reuseMs = reuseWindow(policy, this.run.testRun);
		if (identity === undefined || !this.execution || (!forTries && reuseMs === 0)) return undefined;
		const paidAt = now();
		this.execution.lastPaidAt = paidAt;
		// Reused by later runs, the answer is a copy: the output's items go on to other nodes, which
		// may change them. Answers are JSON: a JSON copy is the smallest in memory.
		const kept = reuseMs > 0 ? answered.map(jsonCopy) : answered;
		const rowJsonKeys = reuseMs === 0 && rowJson ? Object.keys(rowJson) : undefined;
		const payment: Payment = {
			scope: this.scope,
			identity,
			payer: this.execution,
			testRun: this.run.testRun,
			paidAt,
			reuseMs,
			answered: kept,
			rowJsonKeys,
			size: sizeOf(identity, kept) + (rowJsonKeys ? JSON.stringify(rowJson).length : 0),
		};
		this.paidHere.add(payment);
		file(payment);
		return payment;
	}

	/** The payment's answer with the file its unit fetched for it (a download): a next run need not fetch it. */
	addFiles(payment: Payment, answered: INodeExecutionData[]): void {
		const kept = payment.reuseMs > 0 ? answered.map(jsonCopy) : answered;
		const beside = payment.size - sizeOf(payment.identity, payment.answered);
		addFiles(payment, kept, sizeOf(payment.identity, kept) + beside);
	}

	/** A payment that can serve no more (its kept file is gone): dropped. */
	drop(payment: Payment): void {
		if (this.execution) forget(payment);
		this.taken.delete(payment);
	}

	/**
	 * The run is over. `threw`: the node threw (or was stopped); `firstItemFailed`: the first item
	 * of its output is an error item, which n8n-core's WorkflowExecute, with Retry On Fail, runs
	 * again as it does a throw while tries are left. Otherwise the execution failed (a Retry may
	 * take its payments) or is done. Returns what stays for a Retry of a failed execution: its
	 * payments, and those of failed executions it took.
	 */
	finish(threw: boolean, firstItemFailed = false): { paid: number; reused: number } {
		this.ends?.();
		const execution = this.execution;
		const none = { paid: 0, reused: 0 };
		if (!execution || (this.moreTries && (threw || firstItemFailed))) return none;
		settle(`${execution.executionId}\n${this.scope}`, execution, threw ? 'failed' : 'done');
		if (!threw) return none;
		const at = now();
		const live = (payment: Payment) =>
			payment.payer.payments.has(payment) && at < payment.paidAt + WINDOWS.retry;
		return {
			paid: [...execution.payments].filter(live).length,
			reused: [...this.taken].filter(([payment, source]) => source === 'retry' && live(payment))
				.length,
		};
	}

	/** When the reused answers of earlier runs were paid for, and by how many executions. */
	reuseAges(): ReuseAges | undefined {
		const earlier = this.takenBy('testRuns', 'earlierRuns');
		if (earlier.length === 0) return undefined;
		const at = now();
		const times = earlier.map((payment) => payment.paidAt);
		return {
			executions: new Set(earlier.map((payment) => payment.payer)).size,
			oldestAgo: Math.max(0, at - Math.min(...times)),
			newestAgo: Math.max(0, at - Math.max(...times)),
		};
	}

	/** The failed executions whose answers a Retry took: how many, and how many of them test runs. */
	retrySources(): { executions: number; testRuns: number } {
		const payers = new Map(
			this.takenBy('retry').map((payment) => [payment.payer, payment.testRun]),
		);
		return { executions: payers.size, testRuns: [...payers.values()].filter(Boolean).length };
	}

	private takenBy(...sources: ReuseSource[]): Payment[] {
		return [...this.taken].filter(([, source]) => sources.includes(source)).map(([p]) => p);
	}

	/**
	 * Never dropped for room while this run goes on: what it took, and what the rules give it for
	 * what it will ask (its execution's earlier try's included), but not what it paid itself.
	 */
	private spares(payment: Payment): boolean {
		if (payment.scope !== this.scope) return false;
		if (this.taken.has(payment)) return true;
		if (this.paidHere.has(payment) || !this.planned.has(payment.identity)) return false;
		return ruleFor(payment, this.run, now()) !== undefined;
	}
}

/** n8n-core's number of tries of a node with Retry On Fail on (WorkflowExecute: 2 to 5, default 3). */
function triesOf(node: INode): number {
	return Math.min(5, Math.max(2, node.maxTries || 3));
}
