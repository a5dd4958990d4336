import fc from 'fast-check';

import { sandboxWithEmptyStore } from '../harness/keptStore';
import { emptyCoverage, historyArbitrary, runHistory } from './histories';

/**
 * The rules of paid answers (paidAnswersModel.ts) held against random histories run through
 * n8n-core against the sandbox (histories.ts), seeded so that `npm test` runs the same ones each
 * time; `node .out/bench/paidHistories.js` runs 100,000. A failing history shrinks to a minimal
 * one, which is then kept as a named case in paidHistoriesFound.test.ts.
 */
const HISTORIES = Number(process.env.PAID_HISTORIES ?? 300);
const SEED = Number(process.env.PAID_HISTORIES_SEED ?? 20261128);

const sandbox = sandboxWithEmptyStore();

it(`${HISTORIES} random histories pay what the model says, state its figures, and estimate what they pay`, async () => {
	const coverage = emptyCoverage();
	let history = 0;
	await fc.assert(
		fc.asyncProperty(historyArbitrary, async (steps) => {
			const divergences = await runHistory(sandbox(), ++history, steps, coverage);
			if (divergences.length > 0) throw new Error(divergences.join('\n'));
		}),
		{ seed: SEED, numRuns: HISTORIES },
	);
	if (process.env.PAID_HISTORIES_COVERAGE) console.log(coverage);
	// Every kind of history is there, seeded: a change of the generator that loses one fails here.
	for (const [kind, count] of Object.entries(coverage))
		expect([kind, count > 0]).toEqual([kind, true]);
}, 600_000);
