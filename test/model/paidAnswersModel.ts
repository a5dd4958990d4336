/**
 * The rules of paid answers, as a reference model the random histories hold the nodes to
 * (histories.ts). It knows nothing of the store's code: payments are facts, executions have a
 * state, and one function says who may take what until when. Its rows are the table "Who may take
 * a paid answer" in docs/errors-and-credits.md.
 */

const HOUR = 60 * 60 * 1000;

export type Source = 'try' | 'retry' | 'testRuns' | 'earlierRuns';

/** What a unit of a run gets: the answer of an earlier unit of the run, a payment by a rule, or a request. */
export type Decision = 'repeat' | Source | 'send';

export interface ModelPayment {
	workflow: string;
	value: string;
	execution: number;
	testRun: boolean;
	paidAt: number;
	/** How long the paying run's Options offered it to later runs: an hour for test runs, the hours asked for production. */
	reuseMs: number;
}

export interface ModelRun {
	execution: number;
	workflow: string;
	/** n8n's `manual` mode. */
	testRun: boolean;
	/** n8n's `retry` mode: a Retry of a failed execution. */
	retry: boolean;
	repeatsOnce: boolean;
	/** Its own Options' reuse window: Reuse Answers of Test Runs (an hour), Reuse Answers For (Hours). */
	reuseMs: number;
}

/** Which rule's payment a run prefers: its own execution's, then a failed one's, then reuse. */
const RANK: Record<Source, number> = { try: 2, retry: 1, testRuns: 0, earlierRuns: 0 };

export class PaidAnswersModel {
	now = 0;

	readonly payments: ModelPayment[] = [];

	/** Each execution's state: `open` while it runs or n8n may run the node again in it. */
	readonly executions = new Map<
		number,
		{ state: 'open' | 'failed' | 'done'; lastPaidAt: number }
	>();

	/** The rules, row by row: by which one `run` may take `payment` now. */
	rule(payment: ModelPayment, run: ModelRun): Source | undefined {
		const payer = this.executions.get(payment.execution);
		const younger = (ms: number) => this.now < payment.paidAt + ms;
		const reuse =
			payment.testRun === run.testRun && younger(Math.min(payment.reuseMs, run.reuseMs));
		if (payment.execution === run.execution) {
			const nextTry = payer?.state === 'open' && this.now < payer.lastPaidAt + HOUR;
			return nextTry || reuse ? 'try' : undefined;
		}
		if (run.retry && payer?.state === 'failed' && younger(HOUR)) return 'retry';
		if (reuse) return run.testRun ? 'testRuns' : 'earlierRuns';
		return undefined;
	}

	/**
	 * A try's units in order, each decided as the node must: a repeat of an earlier unit's request
	 * (Send Repeated Values Once), else the payment the best rule gives (the newest of it; with
	 * repeats each sent, one no earlier unit took), else a request.
	 */
	decide(run: ModelRun, values: string[]): Array<{ decision: Decision; payment?: ModelPayment }> {
		const asked = new Set<string>();
		const taken = new Set<ModelPayment>();
		return values.map((value) => {
			if (run.repeatsOnce && asked.has(value)) return { decision: 'repeat' };
			asked.add(value);
			let best: { decision: Source; payment: ModelPayment } | undefined;
			for (const payment of this.payments) {
				if (payment.workflow !== run.workflow || payment.value !== value) continue;
				if (!run.repeatsOnce && taken.has(payment)) continue;
				const source = this.rule(payment, run);
				if (source && (!best || RANK[source] >= RANK[best.decision]))
					best = { decision: source, payment };
			}
			if (!best) return { decision: 'send' };
			taken.add(best.payment);
			return best;
		});
	}

	/** A run starts: its execution is open (n8n may run the node again in it). */
	start(run: ModelRun): void {
		if (!this.executions.has(run.execution))
			this.executions.set(run.execution, { state: 'open', lastPaidAt: this.now });
	}

	pay(run: ModelRun, value: string, reuseMs: number): void {
		const { execution, workflow, testRun } = run;
		this.payments.push({ workflow, value, execution, testRun, paidAt: this.now, reuseMs });
		const state = this.executions.get(execution);
		if (state) state.lastPaidAt = this.now;
	}

	/** n8n runs the node no more in the execution: it failed (its payments wait an hour for a Retry) or is done. */
	settle(execution: number, state: 'failed' | 'done'): void {
		const held = this.executions.get(execution);
		if (held) held.state = state;
	}

	/** What a failed execution's error says it keeps: its payments still within their hour. */
	keptBy(execution: number): number {
		return this.payments.filter(
			(payment) => payment.execution === execution && this.now < payment.paidAt + HOUR,
		).length;
	}
}
