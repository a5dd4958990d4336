import {
	ago,
	discardedText,
	estimateHint,
	largeFileHint,
	plural,
	runHints,
	stopsBeforeSendingText,
	type RunHintFacts,
} from '../../nodes/shared/engine/messages';
import { emptyFigures, type RunFigures } from '../../nodes/shared/engine/runFigures';

/**
 * What a run tells a person about its cost, read from the figures that make each sentence: the
 * functions are pure, so each case gives figures and asserts the whole sentence.
 */
const figures = (counts: Partial<RunFigures>): RunFigures => ({ ...emptyFigures(), ...counts });

const facts = (more: Partial<RunHintFacts>): RunHintFacts => ({
	serviceName: 'Email Reputation',
	figures: emptyFigures(),
	rows: false,
	retryOnFail: false,
	retrySources: { executions: 1, testRuns: 0 },
	reuseAges: undefined,
	...more,
});

const messagesOf = (more: Partial<RunHintFacts>) =>
	runHints(facts(more)).map((hint) => hint.message);

const MINUTE = 60_000;

describe('numbers and times as a person says them', () => {
	it('counts with the noun, in the singular for one', () => {
		expect(plural(1, 'request')).toBe('1 request');
		expect(plural(0, 'row')).toBe('0 rows');
		expect(plural(29_000, 'request')).toBe('29,000 requests');
	});

	it('says how long ago, in one unit or a range', () => {
		expect(ago(20_000, 50_000)).toBe('less than a minute ago');
		expect(ago(MINUTE, MINUTE)).toBe('1 minute ago');
		expect(ago(4 * MINUTE, 12 * MINUTE)).toBe('4 to 12 minutes ago');
		expect(ago(30 * MINUTE, 180 * MINUTE)).toBe('30 minutes to 3 hours ago');
	});
});

describe('the description of the error that stops a run', () => {
	it('says nothing when the run had nothing answered', () => {
		expect(
			discardedText(emptyFigures(), emptyFigures(), emptyFigures(), { paid: 0, reused: 0 }, false),
		).toBe(undefined);
	});

	it('names paid items and free rows, each by its cause, and what stays kept for a Retry', () => {
		const items = figures({ answersPaid: 2 });
		const rows = figures({
			answersShared: 3,
			answersReused: 1,
			reusedFrom: { try: 0, retry: 0, testRuns: 1, earlierRuns: 0 },
		});
		const run = figures({
			answersPaid: 2,
			answersShared: 3,
			answersReused: 1,
			reusedFrom: { try: 0, retry: 0, testRuns: 1, earlierRuns: 0 },
		});
		expect(discardedText(items, rows, run, { paid: 2, reused: 0 }, false)).toBe(
			'Discarded: 2 items already answered (and charged) in this run, and 4 rows more answered at no charge (3 shared the answer of a repeated value, 1 reused an answer an earlier test run paid for), as n8n keeps no output of a node that stops on an error. This n8n process keeps the 2 answers this execution paid for, each for an hour from its payment: a Retry of this execution (in the executions list) within that hour reuses them instead of paying again. In queue mode a Retry runs on whichever worker takes it: on another worker than the one that ran this execution, it will pay again. To keep every answer, set the node\'s Settings > On Error to "Continue (using error output)": answers then go to the success output and failures, each with its reason, to the error output.',
		);
	});

	it('counts an answer an earlier try paid for as charged in this execution', () => {
		const reusedFrom = { try: 1, retry: 1, testRuns: 0, earlierRuns: 0 };
		const items = figures({ answersReused: 2, reusedFrom });
		expect(discardedText(items, emptyFigures(), items, { paid: 0, reused: 1 }, true)).toBe(
			'Discarded: 1 item already answered (and charged) in this run, and 1 item more answered at no charge (1 reused an answer a failed execution of this node paid for), as n8n keeps no output of a node that stops on an error. This n8n process keeps the 1 answer it reused from failed executions, each for an hour from its payment: a Retry of this execution (in the executions list) within that hour reuses them instead of paying again. In queue mode a Retry runs on a worker, and a test run on main unless OFFLOAD_MANUAL_EXECUTIONS_TO_WORKERS=true: the Retry of a test run on main will pay again. To keep every answer, set the node\'s Settings > On Error to "Continue (using error output)": answers then go to the success output and failures, each with its reason, to the error output.',
		);
	});
});

describe('the hints above the output', () => {
	it('a run with no repeat, no reuse and no stop has none', () => {
		expect(
			messagesOf({ figures: figures({ requestsSent: 3, answersPaid: 3, unitsAnswered: 3 }) }),
		).toEqual([]);
	});

	it('repeats sent once, with retried requests said apart', () => {
		expect(
			messagesOf({
				figures: figures({ requestsSent: 1_002, answersPaid: 1_000, answersShared: 1_000 }),
				rows: true,
			}),
		).toEqual([
			'2,000 rows answered with 1,000 paid requests (1,002 sent): repeated values were sent once (turn Send Repeated Values Once off in Options for a fresh answer each)',
		]);
	});

	it('answers reused from an earlier try, failed executions and test runs, each by its source', () => {
		expect(
			messagesOf({
				figures: figures({
					answersPaid: 10,
					answersReused: 9,
					reusedFrom: { try: 2, retry: 3, testRuns: 4, earlierRuns: 0 },
				}),
				retryOnFail: true,
				retrySources: { executions: 2, testRuns: 1 },
				reuseAges: { executions: 2, newestAgo: 4 * MINUTE, oldestAgo: 12 * MINUTE },
			}),
		).toEqual([
			"2 answers reused from this node's earlier try (Settings > Retry On Fail), not paid for again",
			'3 answers reused from 2 failed executions (1 of them test runs) of this node (a Retry takes them for an hour), not paid for again',
			'4 of 19 answers reused from 2 test runs 4 to 12 minutes ago: no credit (turn Reuse Answers of Test Runs off in Options to ask afresh)',
		]);
	});

	it('production answers reused for the hours the Options give', () => {
		expect(
			messagesOf({
				figures: figures({
					answersPaid: 1,
					answersReused: 1,
					reusedFrom: { try: 0, retry: 0, testRuns: 0, earlierRuns: 1 },
				}),
				reuseAges: { executions: 1, newestAgo: 3 * 60 * MINUTE, oldestAgo: 3 * 60 * MINUTE },
			}),
		).toEqual([
			'1 of 2 answers reused from an earlier run 3 hours ago: no credit (Options > Reuse Answers For (Hours))',
		]);
	});

	it('where the run stopped sending, as a warning', () => {
		expect(
			runHints(
				facts({
					figures: figures({ unitsNotSent: 1 }),
					stoppedAt: 'item 2',
					stopReason: 'keyRejected',
				}),
			),
		).toEqual([
			{
				message:
					'The Email Reputation key was rejected (401) at item 2: 1 item after it was not sent and cost nothing',
				type: 'warning',
				location: 'outputPane',
			},
		]);
		expect(
			messagesOf({
				figures: figures({ unitsNotSent: 3 }),
				rows: true,
				stoppedAt: 'CSV row 4',
				stopReason: 'planRanOut',
			}),
		).toEqual([
			"The plan's API credits for Email Reputation ran out at CSV row 4: 3 rows after it were not sent and cost nothing",
		]);
	});
});

describe('the texts of Estimate Credits Only', () => {
	it('what a run would send, and why a stopping run would send nothing', () => {
		expect(estimateHint(29_000, 1)).toEqual({
			message:
				'Estimate only, nothing was sent: a run would send 29,000 requests (1 distinct value). Turn Estimate Credits Only off in Options to run it.',
			type: 'info',
			location: 'outputPane',
		});
		expect(stopsBeforeSendingText(1, 4)).toBe(
			'On Error is Stop Workflow: the run would stop on its first refused value (refusedReasons) and send nothing. Remove the 1 refused value, or set On Error to Continue, and it would send 4 requests.',
		);
		expect(largeFileHint(1_001).message).toBe(
			'1,001 rows of a file in this run: to know what a run will cost before it pays, turn on Estimate Credits Only in Options (it counts the requests and sends none)',
		);
	});
});
