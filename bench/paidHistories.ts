import { fork } from 'child_process';

import fc from 'fast-check';

import {
	emptyCoverage,
	historyArbitrary,
	runHistory,
	type Coverage,
} from '../test/model/histories';
import { storeHistoryArbitrary } from '../test/model/storeHistories';
import { startSandbox } from '../test/sandbox/server';

/**
 * The rules of paid answers (test/model/paidAnswersModel.ts) against random histories, at two
 * levels. First the store's: `BENCH_STORE_HISTORIES` (100,000) histories whose runs the engine's
 * decideUnit decides over the store's own view, a node answering at once (test/model/
 * storeHistories.ts), in this process. Then the full stack: `BENCH_HISTORIES` (100,000) histories
 * through n8n-core and the sandbox over loopback HTTP (test/model/histories.ts), shared among
 * `BENCH_HISTORY_PROCESSES` processes (2), each with its own sandbox and seed; a line per thousand
 * on stderr says what ran, should it be cut. Prints the divergences from the model (goal 0), the
 * first shrunk to a minimal history, and what the histories covered. `npm test` runs 300 of the
 * full stack's, seeded.
 */
const TOTAL = Number(process.env.BENCH_HISTORIES ?? 100_000);
const STORE_TOTAL = Number(process.env.BENCH_STORE_HISTORIES ?? 100_000);
const PROCESSES = Number(process.env.BENCH_HISTORY_PROCESSES ?? 2);
const SEED = Number(process.env.BENCH_HISTORY_SEED ?? 1);

interface Share {
	histories: number;
	seed: number;
}

interface Report {
	coverage: Coverage;
	divergent: number;
	counterexamples: string[];
	seconds: number;
}

/** One process's share: its histories, each failing one shrunk (fast-check stops at the first of a run). */
async function runShare({ histories, seed }: Share): Promise<Report> {
	const sandbox = await startSandbox();
	const coverage = emptyCoverage();
	const started = performance.now();
	let divergent = 0;
	const counterexamples: string[] = [];
	let history = seed * 10_000_000;
	let done = 0;
	try {
		// In runs of 1,000, so that a failing one (shrunk, then stopped) leaves the others to run.
		for (let run = 0; done < histories; run++) {
			const numRuns = Math.min(1_000, histories - done);
			const result = await fc.check(
				fc.asyncProperty(historyArbitrary, async (steps) => {
					const divergences = await runHistory(sandbox, ++history, steps, coverage);
					if (divergences.length > 0) throw new Error(divergences.join('\n'));
				}),
				{ seed: seed * 1_000 + run, numRuns },
			);
			done += result.failed ? result.numRuns : numRuns;
			if (result.failed) {
				divergent++;
				counterexamples.push(
					`${fc.stringify(result.counterexample)}\n${String(result.errorInstance)}`,
				);
			}
			// A line per thousand histories: what ran so far, should the run be cut before its end.
			const seconds = Math.round((performance.now() - started) / 1000);
			console.error(JSON.stringify({ seed, done, of: histories, divergent, seconds, coverage }));
		}
	} finally {
		await sandbox.close();
	}
	return { coverage, divergent, counterexamples, seconds: (performance.now() - started) / 1000 };
}

async function main(): Promise<void> {
	if (process.send) {
		// A share's process: runs the share it is sent, reports, and ends.
		const share = await new Promise<Share>((resolve) => process.once('message', resolve));
		const report = await runShare(share);
		await new Promise<void>((resolve) => process.send?.(report, () => resolve()));
		return;
	}
	await storeLevel();
	if (TOTAL === 0) return;
	const started = performance.now();
	const shares = Array.from({ length: PROCESSES }, (_, index) => ({
		histories: Math.floor(TOTAL / PROCESSES) + (index < TOTAL % PROCESSES ? 1 : 0),
		seed: SEED + index,
	}));
	const reports = await Promise.all(
		shares.map(
			(share) =>
				new Promise<Report>((resolve, reject) => {
					const child = fork(__filename, [], { execArgv: [] });
					child.once('message', (report: Report) => resolve(report));
					child.once('error', reject);
					child.once('exit', (code) => reject(new Error(`A share's process ended (${code})`)));
					child.send(share);
				}),
		),
	);
	const coverage = emptyCoverage();
	for (const report of reports)
		for (const key of Object.keys(coverage) as Array<keyof Coverage>)
			coverage[key] += report.coverage[key];
	const seconds = (performance.now() - started) / 1000;
	const divergent = reports.reduce((sum, report) => sum + report.divergent, 0);
	console.log(
		'\n## Paid answers: random histories against the model (n8n-core, sandbox over HTTP)',
	);
	console.log(
		`${coverage.histories.toLocaleString('en-US')} histories in ${PROCESSES} processes, ${seconds.toFixed(0)} s (${((seconds * 1000 * PROCESSES) / coverage.histories).toFixed(0)} ms per history and process): ${divergent} divergent from the model (goal 0)`,
	);
	console.log(
		Object.entries(coverage)
			.map(([kind, count]) => `${kind} ${count.toLocaleString('en-US')}`)
			.join(', '),
	);
	for (const example of reports.flatMap((report) => report.counterexamples)) console.log(example);
}

/** The store's level, in this process: the same model, a node that answers at once. */
async function storeLevel(): Promise<void> {
	const coverage = emptyCoverage();
	const started = performance.now();
	const counterexamples: string[] = [];
	let history = 0;
	for (let run = 0; coverage.histories < STORE_TOTAL; run++) {
		const before = coverage.histories;
		const numRuns = Math.min(10_000, STORE_TOTAL - before);
		const result = await fc.check(
			fc.asyncProperty(storeHistoryArbitrary, async (steps) => {
				const divergences = await runHistory(undefined, ++history, steps, coverage);
				if (divergences.length > 0) throw new Error(divergences.join('\n'));
			}),
			{ seed: SEED * 1_000 + run, numRuns },
		);
		if (result.failed)
			counterexamples.push(
				`${fc.stringify(result.counterexample)}\n${String(result.errorInstance)}`,
			);
		// Shrinking replays histories: count the run's own, not the replays.
		coverage.histories = before + (result.failed ? result.numRuns : numRuns);
	}
	const seconds = (performance.now() - started) / 1000;
	console.log(
		"\n## Paid answers: random histories against the model, at the store (decideUnit, the store's view)",
	);
	console.log(
		`${coverage.histories.toLocaleString('en-US')} histories, ${seconds.toFixed(0)} s: ${counterexamples.length} divergent from the model (goal 0)`,
	);
	console.log(
		Object.entries(coverage)
			.filter(([kind]) => kind !== 'resumedFiles')
			.map(([kind, count]) => `${kind} ${count.toLocaleString('en-US')}`)
			.join(', '),
	);
	for (const example of counterexamples) console.log(example);
}

// Alone: n8n-core leaves handles open after runs; the figures are printed.
if (require.main === module) void main().then(() => process.exit(0));
