import {
	FAR,
	LOADED,
	N8N,
	NEAR,
	REGION,
	simulate,
	type LimiterKind,
	type ProcessPlan,
	type Timing,
} from '../test/engine/pacing/simulation';

/**
 * The pacer's sharing of one key in simulated time (test/engine/pacing/simulation.ts), against
 * limiters the live service may use and the sandbox does not (it counts a sliding window): a
 * fixed window per second and a token bucket, near the service, on a busy machine and far from
 * it. A minute of the key's requests split evenly between the processes, all starting at once;
 * then the same as queue-mode workers: each process running two executions at once through its
 * one pacer, the processes starting up to 0.3 s apart, with a real n8n worker's timing beside the
 * others; and the same workers sending half as long again, as the queue-mode check's rounds do
 * (past a minute, every worker probes for more at least once). 7 seeds, the median rate (while
 * every process sends, and over the whole run) and the mean share of 429s. Not timed: it runs in
 * simulated time, in a few seconds.
 */
/** A limiter by its name: its kind, and how far the service's seconds are off the workers'. */
type LimiterCase = [label: string, kind: LimiterKind, offsetMs: number];
const LIMITERS: LimiterCase[] = [
	['sliding', 'sliding', 0],
	['fixed', 'fixed', 0],
	['bucket', 'bucket', 0],
];
const SEEDS = 7;

interface Table {
	title: string;
	timings: Array<[string, Timing]>;
	cases: Array<[rate: number, processes: number]>;
	plan: (rate: number, processes: number, index: number, seed: number) => ProcessPlan;
	limiters?: LimiterCase[];
}

/** Queue-mode workers: two executions each, `minutes` of the key's requests between them. */
function workersTable(title: string, minutes: number, limiters = LIMITERS): Table {
	return {
		title,
		limiters,
		timings: [
			['near', NEAR],
			['busy machine', LOADED],
			['a real n8n worker', N8N],
			['a service 35-55 ms away', REGION],
			['far', FAR],
		],
		cases: [
			[5, 2],
			[10, 3],
			[1, 2],
		],
		plan: (rate, processes, index, seed) => ({
			items: Math.ceil((minutes * rate * 60) / (processes * 2)),
			executions: 2,
			startsAfterMs: (index * seed * 97) % 300,
		}),
	};
}

const TABLES: Table[] = [
	{
		title: 'Several processes on one key, simulated (7 seeds: median rate, mean 429s)',
		timings: [
			['near (the sandbox, a quiet machine)', NEAR],
			['near, on a busy machine (timers and sockets up to 30 ms late)', LOADED],
			['far (answers in 150-450 ms)', FAR],
		],
		cases: [
			[5, 2],
			[10, 3],
			[1, 2],
			[1, 1],
			[5, 1],
		],
		plan: (rate, processes) => ({ items: Math.round((rate * 60) / processes) }),
	},
	workersTable(
		'Several processes on one key as queue-mode workers, simulated (two executions each)',
		1,
	),
	workersTable(
		'The same workers as the queue-mode check runs them: half as many items again, each sending for more than a minute',
		1.5,
		// A service counting fixed seconds of its own clock, not of the workers': the probe's rule
		// reads the workers' seconds.
		[...LIMITERS, ['fixed, 850 ms off', 'fixed', 850]],
	),
];

async function cell(
	table: Table,
	timing: Timing,
	[, limiter, offsetMs]: LimiterCase,
	rate: number,
	processes: number,
) {
	const runs = [];
	for (let seed = 1; seed <= SEEDS; seed++) {
		runs.push(
			await simulate({
				rate,
				processes: Array.from({ length: processes }, (_, index) =>
					table.plan(rate, processes, index, seed),
				),
				limiter,
				offsetMs,
				timing,
				seed,
			}),
		);
	}
	const median = (values: number[]) => [...values].sort((a, b) => a - b)[SEEDS >> 1];
	const shared = median(runs.map((run) => run.sharedRate)) / rate;
	const whole = median(runs.map((run) => run.wholeRate)) / rate;
	const refused = runs.reduce((sum, run) => sum + run.refused / run.requests, 0) / SEEDS;
	return `${processes}x${rate}/s ${shared.toFixed(2)}/${whole.toFixed(2)} ${(100 * refused).toFixed(1)}%`;
}

export async function run(): Promise<void> {
	for (const table of TABLES) {
		console.log(`\n## ${table.title}`);
		for (const [label, timing] of table.timings) {
			console.log(`  ${label}`);
			for (const limiter of table.limiters ?? LIMITERS) {
				const cells: string[] = [];
				for (const [rate, processes] of table.cases) {
					cells.push(await cell(table, timing, limiter, rate, processes));
				}
				console.log(`    ${limiter[0].padEnd(7)} ${cells.join(' | ')}`);
			}
		}
	}
	console.log(
		'    (each cell: processes x rate, of the limit while shared / over the whole run, 429s)',
	);
}

if (require.main === module) void run().then(() => process.exit(0));
