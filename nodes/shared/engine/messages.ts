import { capitalised } from './errors';
import type { ReuseSource, RunFigures } from './runFigures';
import type { StopReason } from './runLedger';

/*
 * What a run tells a person about its cost, as pure functions from figures to sentences: the
 * hints above the node's output, the description of the error that stops a run, an estimate's
 * texts. Kept apart from the engine's control flow so that a sentence can be read, and tested,
 * with the figures that make it.
 */

/** An execution hint, shown above the node's output in the editor. */
export interface OutputHint {
	message: string;
	type: 'info' | 'warning';
	location: 'outputPane';
}

/** "1,000". */
export function number(count: number): string {
	return count.toLocaleString('en-US');
}

/** "1 request", "2 requests", "1,000 answers". */
export function plural(count: number, noun: string): string {
	return `${number(count)} ${noun}${count === 1 ? '' : 's'}`;
}

/** "1 item", "3 rows", or '' for none. */
function counted(count: number, noun: 'item' | 'row'): string {
	return count ? plural(count, noun) : '';
}

/** A unit's message prefixed with the unit: "CSV row 7: ...", "Item 2: ...". */
export function namedBy(label: string, message: string): string {
	return `${capitalised(label)}: ${message}`;
}

/**
 * The description added to the error that stops a run (default On Error), saying what the run
 * had already been answered, and what of it was charged, for: n8n keeps no output of a node that
 * stops on an error. Each figure by its cause: charged in this execution (this try, or an earlier
 * try or run of the node in it), shared by a repeat, reused from elsewhere; and what stays kept
 * for a Retry. `items` and `rows`: the figures of the run's single items and of its files' rows.
 * Undefined when the run had nothing answered.
 */
export function discardedText(
	items: RunFigures,
	rows: RunFigures,
	run: RunFigures,
	kept: { paid: number; reused: number },
	testRun: boolean,
): string | undefined {
	const paid = (figures: RunFigures) => figures.answersPaid + figures.reusedFrom.try;
	const free = (figures: RunFigures) =>
		figures.answersShared + figures.answersReused - figures.reusedFrom.try;
	const paidText = [counted(paid(items), 'item'), counted(paid(rows), 'row')]
		.filter(Boolean)
		.join(' and ');
	const freeText = [counted(free(items), 'item'), counted(free(rows), 'row')]
		.filter(Boolean)
		.join(' and ');
	if (!paidText && !freeText) return undefined;
	const { retry, testRuns, earlierRuns } = run.reusedFrom;
	const freeWhy = [
		run.answersShared ? `${number(run.answersShared)} shared the answer of a repeated value` : '',
		retry ? `${number(retry)} reused an answer a failed execution of this node paid for` : '',
		testRuns ? `${number(testRuns)} reused an answer an earlier test run paid for` : '',
		earlierRuns ? `${number(earlierRuns)} reused an answer an earlier run paid for` : '',
	]
		.filter(Boolean)
		.join(', ');
	const discarded = paidText
		? `${paidText} already answered (and charged) in this run${freeText ? `, and ${freeText} more answered at no charge (${freeWhy})` : ''}`
		: `${freeText} answered at no charge in this run (${freeWhy})`;
	return `Discarded: ${discarded}, as n8n keeps no output of a node that stops on an error.${keptText(kept, testRun)} To keep every answer, set the node's Settings > On Error to "Continue (using error output)": answers then go to the success output and failures, each with its reason, to the error output.`;
}

/** What stays kept for a Retry of the failed execution, and where (the process's memory). */
function keptText(kept: { paid: number; reused: number }, testRun: boolean): string {
	if (kept.paid + kept.reused === 0) return '';
	const what = [
		kept.paid ? `the ${plural(kept.paid, 'answer')} this execution paid for` : '',
		kept.reused ? `the ${plural(kept.reused, 'answer')} it reused from failed executions` : '',
	]
		.filter(Boolean)
		.join(' and ');
	// In queue mode a Retry always runs on a worker; a test run runs on main unless manual
	// executions are offloaded to workers.
	const queue = testRun
		? 'In queue mode a Retry runs on a worker, and a test run on main unless OFFLOAD_MANUAL_EXECUTIONS_TO_WORKERS=true: the Retry of a test run on main will pay again.'
		: 'In queue mode a Retry runs on whichever worker takes it: on another worker than the one that ran this execution, it will pay again.';
	return ` This n8n process keeps ${what}, each for an hour from its payment: a Retry of this execution (in the executions list) within that hour reuses them instead of paying again. ${queue}`;
}

/** When the reused answers of earlier runs were paid for, and by how many executions. */
export interface ReuseAges {
	executions: number;
	/** Milliseconds since the oldest and the newest of them was paid for, by the store's clock. */
	oldestAgo: number;
	newestAgo: number;
}

/** An answer a run took (keptAnswersOfRun.ts), as its hints speak of it. */
export interface TakenAnswer {
	paidAt: number;
	testRun: boolean;
	/** The execution that paid (compared, never read). */
	payer: object;
}

/** The ages of the answers taken from earlier runs (test runs', Reuse Answers For (Hours)). */
export function reuseAgesOf(
	taken: Map<TakenAnswer, ReuseSource>,
	now: number,
): ReuseAges | undefined {
	const earlier = [...taken].filter(([, from]) => from === 'testRuns' || from === 'earlierRuns');
	if (earlier.length === 0) return undefined;
	const times = earlier.map(([answer]) => answer.paidAt);
	return {
		executions: new Set(earlier.map(([answer]) => answer.payer)).size,
		oldestAgo: Math.max(0, now - Math.min(...times)),
		newestAgo: Math.max(0, now - Math.max(...times)),
	};
}

/** The failed executions a Retry took answers from: how many, and how many of them test runs. */
export function retrySourcesOf(taken: Map<TakenAnswer, ReuseSource>): {
	executions: number;
	testRuns: number;
} {
	const payers = new Map<object, boolean>();
	for (const [answer, from] of taken)
		if (from === 'retry') payers.set(answer.payer, answer.testRun);
	return { executions: payers.size, testRuns: [...payers.values()].filter(Boolean).length };
}

/** What a finished run's hints speak of. */
export interface RunHintFacts {
	serviceName: string;
	/** The run's figures. */
	figures: RunFigures;
	/** Whether the run's units were a file's rows (answered or not sent): the hints then count rows, not items. */
	rows: boolean;
	/** The node's Retry On Fail (an earlier try's answers are said to come from it). */
	retryOnFail: boolean;
	/** The failed executions whose answers a Retry took, and how many of them were test runs. */
	retrySources: { executions: number; testRuns: number };
	/** When the reused answers of earlier runs were paid for (undefined: none was reused). */
	reuseAges: ReuseAges | undefined;
	/** Where the run stopped sending, and why. */
	stoppedAt?: string;
	stopReason?: StopReason;
}

/** What the run saved and where it stopped, above the node's output in the editor. */
export function runHints(facts: RunHintFacts): OutputHint[] {
	const { requestsSent, answersPaid, answersShared, answersReused, reusedFrom, unitsNotSent } =
		facts.figures;
	const noun = facts.rows ? 'row' : 'item';
	const hints: OutputHint[] = [];
	const info = (message: string) => hints.push({ message, type: 'info', location: 'outputPane' });
	if (answersShared > 0) {
		// The units a request answered: its own, and its repeats'. Requests sent count retries and
		// refusals too: said apart when they differ from the paid answers.
		const requests =
			requestsSent === answersPaid
				? plural(requestsSent, 'request')
				: `${plural(answersPaid, 'paid request')} (${number(requestsSent)} sent)`;
		// Repeats of a reused answer alone: no request answered them, so none is named.
		const answered =
			answersPaid > 0
				? `${plural(answersPaid + answersShared, noun)} answered with ${requests}`
				: `${plural(answersShared, noun)} shared the answer of a repeated value`;
		info(
			`${answered}: repeated values were sent once (turn Send Repeated Values Once off in Options for a fresh answer each)`,
		);
	}
	const reused = (count: number, where: string) =>
		info(`${plural(count, 'answer')} reused from ${where}, not paid for again`);
	if (reusedFrom.try > 0)
		reused(
			reusedFrom.try,
			facts.retryOnFail
				? "this node's earlier try (Settings > Retry On Fail)"
				: "this node's earlier run in this execution",
		);
	if (reusedFrom.retry > 0) {
		const failed = facts.retrySources;
		const runs =
			failed.executions === 1
				? `a failed ${failed.testRuns ? 'test run' : 'execution'}`
				: `${failed.executions} failed executions${failed.testRuns ? ` (${failed.testRuns} of them test runs)` : ''}`;
		reused(reusedFrom.retry, `${runs} of this node (a Retry takes them for an hour)`);
	}
	const ages = facts.reuseAges;
	const { testRuns, earlierRuns } = reusedFrom;
	if (ages && testRuns + earlierRuns > 0) {
		const runs = testRuns > 0 ? ['a test run', 'test runs'] : ['an earlier run', 'earlier runs'];
		const from =
			ages.executions === 1
				? `${runs[0]} ${ago(ages.newestAgo, ages.oldestAgo)}`
				: `${ages.executions} ${runs[1]} ${ago(ages.newestAgo, ages.oldestAgo)}`;
		const how =
			testRuns > 0
				? 'turn Reuse Answers of Test Runs off in Options to ask afresh'
				: 'Options > Reuse Answers For (Hours)';
		const answered = answersPaid + answersShared + answersReused;
		info(
			`${number(testRuns + earlierRuns)} of ${plural(answered, 'answer')} reused from ${from}: no credit (${how})`,
		);
	}
	if (facts.stoppedAt !== undefined) {
		const why =
			facts.stopReason === 'keyRejected'
				? `The ${facts.serviceName} key was rejected (401)`
				: `The plan's API credits for ${facts.serviceName} ran out`;
		hints.push({
			message: `${why} at ${facts.stoppedAt}: ${plural(unitsNotSent, noun)} after it ${unitsNotSent === 1 ? 'was' : 'were'} not sent and cost nothing`,
			type: 'warning',
			location: 'outputPane',
		});
	}
	return hints;
}

/** "4 minutes ago", or "4 to 12 minutes ago" for answers of several runs. */
export function ago(newestMs: number, oldestMs: number): string {
	const [newest, newestUnit] = duration(newestMs);
	const [oldest, oldestUnit] = duration(oldestMs);
	if (newest === oldest && newestUnit === oldestUnit) return `${newest} ${newestUnit} ago`;
	if (newestUnit === oldestUnit) return `${newest} to ${oldest} ${oldestUnit} ago`;
	return `${newest} ${newestUnit} to ${oldest} ${oldestUnit} ago`;
}

/** A time as a person says it: [4, 'minutes'], ['less than a', 'minute'], [3, 'hours']. */
function duration(ms: number): [string, string] {
	const minutes = Math.floor(ms / 60_000);
	if (minutes < 1) return ['less than a', 'minute'];
	if (minutes < 120) return [String(minutes), minutes === 1 ? 'minute' : 'minutes'];
	return [String(Math.floor(minutes / 60)), 'hours'];
}

/** The first line of an estimate's summary item. */
export const ESTIMATE_SAID =
	'Nothing was sent, kept or spent: these are the requests a run of this node would send now, on this input';

/** Why an estimate's run (default On Error) would send nothing: it stops on its first refused value. */
export function stopsBeforeSendingText(refused: number, requestsToSend: number): string {
	return `On Error is Stop Workflow: the run would stop on its first refused value (refusedReasons) and send nothing. Remove the ${plural(refused, 'refused value')}, or set On Error to Continue, and it would send ${plural(requestsToSend, 'request')}.`;
}

/** An estimate's hint: what a run would send. */
export function estimateHint(requests: number, distinctValues: number): OutputHint {
	return {
		message: `Estimate only, nothing was sent: a run would send ${plural(requests, 'request')} (${plural(distinctValues, 'distinct value')}). Turn Estimate Credits Only off in Options to run it.`,
		type: 'info',
		location: 'outputPane',
	};
}

/** A real run's hint on a large file: its cost can be known before it is paid. */
export function largeFileHint(rows: number): OutputHint {
	return {
		message: `${plural(rows, 'row')} of a file in this run: to know what a run will cost before it pays, turn on Estimate Credits Only in Options (it counts the requests and sends none)`,
		type: 'info',
		location: 'outputPane',
	};
}
