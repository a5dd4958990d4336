import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { bestFor, claimEnd, reuseWindow, ruleFor, type Found, type Taker } from './answerRules';
import type { ExecutionOfNode, Payment } from './answerRules';
import * as store from './keptAnswers';
import type { ReusePolicy } from './types';

/**
 * The kept answers as one run of a node sees them (keptAnswers.ts holds them, answerRules.ts says
 * who may take what): it finds what the rules give it, takes it, files what it pays for, and on
 * finishing says whether n8n may run the node again in its execution or it failed. An estimate
 * opens the same view read-only (no execution): it finds by the same rules and changes nothing.
 */
export class KeptAnswersOfRun {
	readonly taken = new Map<Payment, Found['source']>();
	/** What this run paid: never taken by the run itself (a repeat sent again is a fresh answer). */
	private readonly paidHere = new Set<Payment>();

	private constructor(
		private readonly scope: string,
		private readonly execution: ExecutionOfNode | undefined,
		readonly run: Taker,
		/** The node's Retry On Fail: n8n may run it again within this execution. */
		readonly retryOnFail: boolean,
		private readonly moreTries: boolean,
		/** The identities the run will ask for: what the rules give it for them is not dropped for room (an estimate: none). */
		private readonly planned?: ReadonlySet<string>,
	) {
		if (execution) store.running.add(this);
	}

	/**
	 * The view of one run of the node, or undefined when nothing would be taken or kept: with either
	 * Continue setting and Retry On Fail off, n8n keeps the node's output whatever it holds and
	 * does not run it again, and no item's Options reuse answers. An estimate's registers no try.
	 */
	static open(
		ctx: IExecuteFunctions,
		credentialIdentity: string,
		reuseAsked: ReusePolicy[],
		view: { estimate: true } | { planned: ReadonlySet<string> },
	): KeptAnswersOfRun | undefined {
		const node = ctx.getNode();
		const mode = ctx.getMode?.();
		// Only `manual` is a person building the workflow; every other mode is production.
		const testRun = mode === 'manual';
		const retryOnFail = node.retryOnFail === true;
		const reuseMs = Math.max(0, ...reuseAsked.map((policy) => reuseWindow(policy, testRun)));
		const forRetries = retryOnFail || !ctx.continueOnFail() || mode === 'retry';
		if ((!forRetries && reuseMs === 0) || store.hasNoBudget()) return undefined;
		const { id, name, type, typeVersion } = node;
		const scope = [ctx.getWorkflow().id, id || name, `${type}@${typeVersion}`, credentialIdentity];
		const executionId = String(ctx.getExecutionId());
		// The run's index, as n8n-core's WorkflowExecute gives it to every try of the run.
		const runIndex = () => Number(ctx.getWorkflowDataProxy(0).$thisRunIndex) || 0;
		const planned = 'planned' in view ? view.planned : undefined;
		const ofNode = [executionId, ...scope].join('\n');
		const execution = planned && store.startTry(ofNode, executionId, retryOnFail, runIndex());
		// n8n-core's WorkflowExecute tries a node with Retry On Fail 2 to 5 times, 3 by default.
		const moreTries =
			retryOnFail && (execution?.tries ?? 1) < Math.min(5, Math.max(2, node.maxTries || 3));
		const run = { executionId, testRun, retry: mode === 'retry', reuseMs };
		return new KeptAnswersOfRun(scope.join('\n'), execution, run, retryOnFail, moreTries, planned);
	}

	/**
	 * The payment the rules (answerRules.ts) give this run for `identity` now: its own
	 * execution's first, then a failed execution's, then reuse, the newest of each; never one it
	 * paid itself, and with repeats each sent (`each`) none it has taken already.
	 */
	find(identity: string | undefined, policy: ReusePolicy, each: boolean): Found | undefined {
		if (identity === undefined) return undefined;
		const taker = { ...this.run, reuseMs: reuseWindow(policy, this.run.testRun) };
		const candidates = [...store.paymentsOf(this.scope, identity)].filter(
			(payment) => !this.paidHere.has(payment) && !(each && this.taken.has(payment)),
		);
		return bestFor(candidates, taker, store.now());
	}

	/**
	 * Takes a found payment for a unit: the unit's own items, read from the kept text, their files
	 * stored again for this execution (n8n may delete another's). A file n8n no longer has: the
	 * answer without its files when they were fetched for free (the unit fetches them again), else
	 * undefined, the payment dropped. An estimate only notes what it took, giving no items, and
	 * opens the files it must find there: not those fetched for free (n8n's database mode reads a
	 * file whole to open it).
	 */
	async take(ctx: IExecuteFunctions, { payment, source }: Found) {
		this.taken.set(payment, source);
		const estimate = !this.execution;
		const withFiles = source !== 'try' && !(estimate && payment.fetched);
		// An estimate reads the kept text only for the files it opens.
		if (estimate && !withFiles) return [];
		const items = JSON.parse(payment.answer) as INodeExecutionData[];
		if (!estimate) store.touch(payment);
		try {
			if (withFiles) await storeFilesAgain(ctx, items, estimate);
		} catch {
			if (!payment.fetched) {
				this.drop(payment);
				return undefined;
			}
			for (const item of items) delete item.binary;
			if (!estimate) store.refile(payment, items, false);
		}
		return estimate ? [] : items;
	}

	/**
	 * Files what this run paid for: for this execution's next try or a Retry (`forTries`), and for
	 * later runs when the item's Options offer it.
	 */
	keep(
		identity: string | undefined,
		answered: INodeExecutionData[],
		forTries: boolean,
		policy: ReusePolicy,
	): Payment | undefined {
		const reuseMs = reuseWindow(policy, this.run.testRun);
		if (identity === undefined || !this.execution || (!forTries && reuseMs === 0)) return undefined;
		const { scope, execution: payer, run } = this;
		const facts = { scope, identity, payer, testRun: run.testRun, paidAt: store.now(), reuseMs };
		const payment: Payment = { ...facts, answer: store.asText(answered) };
		this.paidHere.add(payment);
		store.file(payment);
		return payment;
	}

	/** A payment that can serve no more (its kept file is gone). */
	drop(payment: Payment): void {
		if (this.execution) store.forget(payment);
		this.taken.delete(payment);
	}

	/**
	 * The run is over: it threw (or was stopped), or returned; `firstItemFailed`: its first output
	 * item is an error item, which n8n-core's WorkflowExecute runs again with Retry On Fail, as a
	 * throw, while tries are left. Otherwise its execution failed (a Retry may take its payments) or
	 * is done. Returns what stays for a Retry: its payments, and failed executions' it took.
	 */
	finish(threw: boolean, firstItemFailed = false): { paid: number; reused: number } {
		store.running.delete(this);
		const { execution } = this;
		if (!execution || (this.moreTries && (threw || firstItemFailed))) return { paid: 0, reused: 0 };
		store.settle(execution, threw ? 'failed' : 'done');
		if (!threw) return { paid: 0, reused: 0 };
		const at = store.now();
		const claimed = (payment: Payment) =>
			payment.payer.payments.has(payment) && claimEnd(payment) > at;
		const reused = [...this.taken].filter(
			([payment, from]) => from === 'retry' && claimed(payment),
		);
		return { paid: [...execution.payments].filter(claimed).length, reused: reused.length };
	}

	/** Never dropped for room while this run goes on: what it took, and what the rules give it for what it will ask. */
	spares(payment: Payment): boolean {
		if (payment.scope !== this.scope) return false;
		if (this.taken.has(payment)) return true;
		if (this.paidHere.has(payment) || !this.planned?.has(payment.identity)) return false;
		return ruleFor(payment, this.run, store.now()) !== undefined;
	}
}

/**
 * A reused answer's files, stored again for this execution: the bytes read through n8n's binary
 * helpers (from the item in memory mode, from n8n's store in filesystem mode). Only where the file
 * is stored changes: n8n would read its name as a path and derive the extension afresh. An estimate
 * (`onlyOpen`) stores nothing: it opens each file, unread. Throws when n8n no longer has a file.
 */
async function storeFilesAgain(
	ctx: IExecuteFunctions,
	items: INodeExecutionData[],
	onlyOpen: boolean,
): Promise<void> {
	const { helpers } = ctx;
	for (const { binary = {} } of items)
		for (const [name, file] of Object.entries(binary)) {
			if (!file.id) continue;
			const stream = await helpers.getBinaryStream(file.id);
			if (onlyOpen) stream.destroy();
			else {
				const bytes = await helpers.binaryToBuffer(stream);
				const { id, data } = await helpers.prepareBinaryData(bytes, file.fileName, file.mimeType);
				binary[name] = { ...file, id, data };
			}
		}
}
