import { describeRun, runSharedKey } from '../test/engine/multiProcess/measure';
import { startSandbox } from '../test/sandbox/server';

/**
 * Several OS processes running the IBAN node through n8n-core on one key, against the sandbox
 * limited to the rate they are set to (as queue-mode workers sharing a key), for about a minute
 * each: the rate's worth of a minute split evenly between the processes, all started at once.
 * Prints the accepted rate as a ratio to the limit (while every process was still sending, and
 * over the whole run) and the share of 429s, then one process alone on the key in the same run
 * (the baseline). Targets, while every process sends: at 5/s (2 processes) and 10/s (3), at least
 * 0.9 of the limit with at most 5% 429s; at 1/s (2), at least 0.8 with at most 10%. A timing, so measured here;
 * test/engine/multiProcess.test.ts checks what must hold on any machine (every item once, 429s
 * retried, no resend). BENCH_SHARED_SECONDS shortens (or lengthens) the minute.
 */
const SECONDS = Number(process.env.BENCH_SHARED_SECONDS ?? 60);
const CASES: Array<{ rate: number; processes: number; minRate: number; maxRefused: number }> = [
	{ rate: 5, processes: 2, minRate: 0.9, maxRefused: 0.05 },
	{ rate: 10, processes: 3, minRate: 0.9, maxRefused: 0.05 },
	{ rate: 1, processes: 2, minRate: 0.8, maxRefused: 0.1 },
];

export async function run(): Promise<void> {
	console.log(`\n## Several processes on one key (as queue-mode workers), ${SECONDS} s each`);
	const sandbox = await startSandbox();
	try {
		for (const { rate, processes, minRate, maxRefused } of CASES) {
			const items = Math.round((rate * SECONDS) / processes);
			const shared = await runSharedKey(sandbox, rate, processes, items);
			const alone = await runSharedKey(sandbox, rate, 1, Math.min(items, rate * 10 + 1));
			const met =
				shared.sharedRate / rate >= minRate && shared.refused / shared.requests <= maxRefused;
			console.log(`    ${describeRun(shared, rate, processes)}`);
			console.log(
				`    baseline, 1 process alone at ${rate}/s: ${(alone.wholeRunRate / rate).toFixed(3)} of the limit, ${alone.refused} 429s; ` +
					`targets (>= ${minRate} of the limit while every process sent, <= ${100 * maxRefused}% 429s): ${met ? 'met' : 'NOT met'}`,
			);
		}
	} finally {
		await sandbox.close();
	}
}

if (require.main === module) void run().then(() => process.exit(0));
