import { checkProperty, PROPERTY_NAMES } from './archiveCampaigns';

/**
 * The archive check fuzzed, seeded so a failure repeats (bench/archiveFuzz.ts runs the same
 * properties for longer with fresh seeds): any archive is judged exactly, a damaged one never
 * gives another file.
 */
describe('IP database download: the archive check, fuzzed (seeded)', () => {
	// gunzip's inputs reach 3 MiB each: fewer of them keep this to seconds.
	const RUNS = { anyArchive: 600, damagedArchive: 600, gunzip: 40, deflateStreams: 600 };
	it.each(PROPERTY_NAMES)('%s', async (name) => {
		const run = await checkProperty(name, { seed: 20261128, numRuns: RUNS[name] });
		expect(run.failure).toBeUndefined();
		expect(run.numRuns).toBe(RUNS[name]);
	});
});
