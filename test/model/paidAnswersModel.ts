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

/** What a row of the rules reads: the payment, the run that would take it, the time and the payer's state. */
interface Facts {
	payment: ModelPayment;
	run: ModelRun;
	now: number;
	payer: { state: 'open' | 'failed' | 'done'; lastPaidAt: number } | undefined;
}

/**
 * THE RULES, row by row, as the table "Who may take a paid answer" in docs/errors-and-credits.md
 * words them (rulesTable.test.ts holds the two equal): the first row whose `takes` holds gives
 * the payment, by its `source`.
 */
export const RULES: Array<{
	who: string;
	which: string;
	until: string;
	source?: Source;
	takes(facts: Facts): boolean;
}> = [
	{
		who: 'A later try of the node in the same execution (Retry On Fail; under a Continue setting while its first item failed)',
		which: "The execution's own, while n8n may run the node again in it",
		until: "An hour after that execution's last payment",
		source: 'try',
		takes: ({ payment, run, now, payer }) =>
			payment.execution === run.execution &&
			payer?.state === 'open' &&
			now < payer.lastPaidAt + HOUR,
	},
	{
		who: "A Retry (n8n's mode `retry`)",
		which:
			"Any failed execution's of the node (a failed test run's too), whatever Retries ran since",
		until: 'An hour after each payment',
		source: 'retry',
		takes: ({ payment, run, now, payer }) =>
			run.retry && payer?.state === 'failed' && now < payment.paidAt + HOUR,
	},
	{
		who: 'A test run (`manual`), Reuse Answers of Test Runs on',
		which: "Test runs' paid with the option on",
		until: 'An hour after each payment',
		source: 'testRuns',
		takes: ({ payment, run, now }) =>
			run.testRun &&
			payment.testRun &&
			now < payment.paidAt + Math.min(payment.reuseMs, run.reuseMs),
	},
	{
		who: 'A production run, Reuse Answers For (Hours) above 0',
		which: "Production runs' paid with the option above 0",
		until: "Younger than the paying run's hours and its own",
		source: 'earlierRuns',
		takes: ({ payment, run, now }) =>
			!run.testRun &&
			!payment.testRun &&
			now < payment.paidAt + Math.min(payment.reuseMs, run.reuseMs),
	},
	{ who: 'Any other run', which: 'None', until: '', takes: () => true },
];

export class PaidAnswersModel {
	now = 0;

	readonly payments: ModelPayment[] = [];

	/** Each execution's state: `open` while it runs or n8n may run the node again in it. */
	readonly executions = new Map<
		number,
		{ state: 'open' | 'failed' | 'done'; lastPaidAt: number }
	>();

	/** By which rule `run` may take `payment` now: the first row that takes it. */
	rule(payment: ModelPayment, run: ModelRun): Source | undefined {
		const payer = this.executions.get(payment.execution);
		const facts = { payment, run, now: this.now, payer };
		return RULES.find((row) => row.takes(facts))?.source;
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
