import { checkProperty, PROPERTY_NAMES } from './ipDatabaseFuzz';

/**
 * The archive check fuzzed, seeded so a failure repeats (bench/archiveFuzz.ts runs the same
 * properties for longer with fresh seeds): any archive is judged exactly, a damaged one never
 * gives another file.
 */
describe('IP database download: the archive check, fuzzed (seeded)', () => {
	it.each(PROPERTY_NAMES)('%s', async (name) => {
		const run = await checkProperty(name, { seed: 20261128, numRuns: 600 });
		expect(run.failure).toBeUndefined();
		expect(run.numRuns).toBe(600);
	});
});
