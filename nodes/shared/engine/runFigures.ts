/*
 * The one count type of a run: what the ledger counts (runLedger.ts), and what the hints, the
 * error that stops a run, an estimate and a result file's summary read (messages.ts, estimate.ts,
 * a collector's finish). Each figure is counted where its event happens, never derived from
 * another: a hint or a summary uses the one it speaks of.
 */

/**
 * Where a kept answer comes from, by the rule that gives it (answerRules.ts): this execution's
 * earlier try or run of the node, the node's failed executions (a Retry), earlier test runs,
 * earlier production runs.
 */
export type ReuseSource = 'try' | 'retry' | 'testRuns' | 'earlierRuns';

export const REUSE_SOURCES: readonly ReuseSource[] = ['try', 'retry', 'testRuns', 'earlierRuns'];

/** What a run (or one input item's units) spent, shared, reused and left unsent. */
export interface RunFigures {
	/** Requests that left for the service, retries and refused ones included. */
	requestsSent: number;
	/** Units answered by a request of their own (the service charges an answer). */
	answersPaid: number;
	/** Units answered by another unit's identical request (a repeat, whatever answered the first): no request. */
	answersShared: number;
	/**
	 * Units answered by an answer kept from an earlier try or run: no request. A repeat of such a
	 * unit counts as shared, as every repeat does (its cause is the repeat).
	 */
	answersReused: number;
	/**
	 * The reused answers by where they came from. `try`: paid earlier in this execution (Retry On
	 * Fail's earlier try, the node's earlier run): charged in this execution, not in this try.
	 */
	reusedFrom: Record<ReuseSource, number>;
	/** Units whose answer (paid, shared or reused) came out as their output; not those answered without a request. */
	unitsAnswered: number;
	/** Units the run did not send because it had stopped sending: they cost nothing. */
	unitsNotSent: number;
}

export function emptyFigures(): RunFigures {
	return {
		requestsSent: 0,
		answersPaid: 0,
		answersShared: 0,
		answersReused: 0,
		reusedFrom: { try: 0, retry: 0, testRuns: 0, earlierRuns: 0 },
		unitsAnswered: 0,
		unitsNotSent: 0,
	};
}

/** One unit answered by a kept answer from `source`. */
export function countReused(figures: RunFigures, source: ReuseSource): void {
	figures.answersReused++;
	figures.reusedFrom[source]++;
}

/** The figures of several items together. */
export function sumOfFigures(all: readonly RunFigures[]): RunFigures {
	const sum = emptyFigures();
	for (const figures of all) {
		sum.requestsSent += figures.requestsSent;
		sum.answersPaid += figures.answersPaid;
		sum.answersShared += figures.answersShared;
		sum.answersReused += figures.answersReused;
		for (const source of REUSE_SOURCES) sum.reusedFrom[source] += figures.reusedFrom[source];
		sum.unitsAnswered += figures.unitsAnswered;
		sum.unitsNotSent += figures.unitsNotSent;
	}
	return sum;
}
