import fc from 'fast-check';

/**
 * A fuzz campaign: a property of one reader over generated inputs, run short and seeded in
 * `npm test` (test/fuzz/*.test.ts) and long with fresh seeds in the bench (bench/fuzz.ts), which
 * prints how many inputs were tried and how many defects (distinct failing inputs) were found.
 */
/** fast-check's property of any input type (what fc.assert and fc.check take). */
export type AnyProperty = Parameters<typeof fc.check>[0];

export interface Campaign {
	name: string;
	/** What the property holds the reader to, for the bench's printout. */
	holds: string;
	/**
	 * A fresh property (its arbitraries and predicate) each time, so campaigns share no state.
	 * `slowMs`, given by the bench only (tests assert no timings): an input whose parse takes
	 * longer fails, as a pattern that backtracks would.
	 */
	property(options?: { slowMs?: number }): AnyProperty;
	/** Runs in `npm test`: a few seconds' worth on the shared 2-core machine. */
	testRuns: number;
}

/** Seeded and repeatable in the tests: a failure prints the seed and the shrunk input. */
export function assertCampaign(campaign: Campaign, seed: number): void {
	fc.assert(campaign.property(), { seed, numRuns: campaign.testRuns });
}

/**
 * Throws when `work` takes longer than `slowMs` (when given): the bench's check for a pattern
 * that backtracks. A slow call is timed four more times and judged by the fastest: on a shared
 * machine a garbage collection or another process can stall any one call.
 */
export function timed<T>(slowMs: number | undefined, what: string, work: () => T): T {
	if (slowMs === undefined) return work();
	const time = () => {
		const started = performance.now();
		work();
		return performance.now() - started;
	};
	const started = performance.now();
	const result = work();
	if (performance.now() - started <= slowMs) return result;
	const fastest = Math.min(time(), time(), time(), time());
	if (fastest > slowMs) throw new Error(`${what} took ${fastest.toFixed(0)} ms`);
	return result;
}

/** An input that failed, shrunk, as the bench prints it. */
export interface Defect {
	seed: number;
	counterexample: string;
	error: string;
}

/**
 * The campaign run `rounds` times from consecutive seeds, `runs` inputs each: the inputs tried
 * (each round stops at its first failure) and each round's failure, shrunk.
 */
export function runCampaign(
	campaign: Campaign,
	firstSeed: number,
	rounds: number,
	runs: number,
	slowMs?: number,
): { tried: number; defects: Defect[] } {
	let tried = 0;
	const defects: Defect[] = [];
	for (let round = 0; round < rounds; round++) {
		const seed = firstSeed + round;
		// Every campaign's predicate is synchronous: its details come at once.
		const details = fc.check(campaign.property({ slowMs }), {
			seed,
			numRuns: runs,
		}) as fc.RunDetails<unknown>;
		tried += details.numRuns;
		if (details.failed) {
			defects.push({
				seed,
				counterexample: fc.stringify(details.counterexample).slice(0, 300),
				error: String((details.errorInstance as Error | undefined)?.message ?? '').slice(0, 300),
			});
		}
	}
	return { tried, defects };
}
