import {
	FAR,
	LOADED,
	N8N,
	NEAR,
	simulate,
	type LimiterKind,
	type Timing,
} from '../test/engine/pacing/simulation';

/**
 * The pacer's sharing of one key in simulated time (test/engine/pacing/simulation.ts), against
 * limiters the live service may use and the sandbox does not (it counts a sliding window): a
 * fixed window per second and a token bucket, near the service, on a busy machine and far from
 * it. A minute of the key's requests split evenly between the processes, all starting at once;
 * 7 seeds, the median rate (while every process sends, and over the whole run) and the mean share
 * of 429s. Not timed: it runs in simulated time, in a second or two.
 */
const TIMINGS: Array<[string, Timing]> = [
	['near (the sandbox, a quiet machine)', NEAR],
	['near, on a busy machine (timers and sockets up to 30 ms late)', LOADED],
	['far (answers in 150-450 ms)', FAR],
];
const LIMITERS: LimiterKind[] = ['sliding', 'fixed', 'bucket'];
const CASES: Array<[rate: number, processes: number]> = [
	[5, 2],
	[10, 3],
	[1, 2],
	[1, 1],
	[5, 1],
];

export async function run(): Promise<void> {
	console.log('\n## Several processes on one key, simulated (7 seeds: median rate, mean 429s)');
	for (const [label, timing] of TIMINGS) {
		console.log(`  ${label}`);
		for (const limiter of LIMITERS) {
			const cells: string[] = [];
			for (const [rate, processes] of CASES) {
				const runs = [];
				for (let seed = 1; seed <= 7; seed++) {
					const items = Math.round((rate * 60) / processes);
					runs.push(
						await simulate({
							rate,
							processes: Array.from({ length: processes }, () => ({ items })),
							limiter,
							timing,
							seed,
						}),
					);
				}
				const median = (values: number[]) => [...values].sort((a, b) => a - b)[3];
				const shared = median(runs.map((run) => run.sharedRate)) / rate;
				const whole = median(runs.map((run) => run.wholeRate)) / rate;
				const refused = runs.reduce((sum, run) => sum + run.refused / run.requests, 0) / 7;
				cells.push(
					`${processes}x${rate}/s ${shared.toFixed(2)}/${whole.toFixed(2)} ${(100 * refused).toFixed(1)}%`,
				);
			}
			console.log(`    ${limiter.padEnd(7)} ${cells.join(' | ')}`);
		}
	}
	console.log(
		'    (each cell: processes x rate, of the limit while shared / over the whole run, 429s)',
	);
	await asWorkers();
}

/**
 * As the queue-mode check runs them: each process a worker running two executions at once
 * through its one pacer, the workers starting up to 0.3 s apart, with the timing of a real n8n
 * worker (measured against the sandbox) beside the others.
 */
async function asWorkers(): Promise<void> {
	console.log(
		'\n## Several processes on one key as queue-mode workers, simulated (two executions each)',
	);
	const timings: Array<[string, Timing]> = [
		['near', NEAR],
		['busy machine', LOADED],
		['a real n8n worker', N8N],
		['far', FAR],
	];
	for (const [label, timing] of timings) {
		console.log(`  ${label}`);
		for (const limiter of LIMITERS) {
			const cells: string[] = [];
			for (const [rate, processes] of CASES.filter(([, processes]) => processes > 1)) {
				const runs = [];
				for (let seed = 1; seed <= 7; seed++) {
					runs.push(
						await simulate({
							rate,
							processes: Array.from({ length: processes }, (_, index) => ({
								items: Math.ceil((rate * 60) / (processes * 2)),
								executions: 2,
								startsAfterMs: (index * seed * 97) % 300,
							})),
							limiter,
							timing,
							seed,
						}),
					);
				}
				const median = (values: number[]) => [...values].sort((a, b) => a - b)[3];
				const shared = median(runs.map((run) => run.sharedRate)) / rate;
				const whole = median(runs.map((run) => run.wholeRate)) / rate;
				const refused = runs.reduce((sum, run) => sum + run.refused / run.requests, 0) / 7;
				cells.push(
					`${processes}x${rate}/s ${shared.toFixed(2)}/${whole.toFixed(2)} ${(100 * refused).toFixed(1)}%`,
				);
			}
			console.log(`    ${limiter.padEnd(7)} ${cells.join(' | ')}`);
		}
	}
}

if (require.main === module) void run().then(() => process.exit(0));
