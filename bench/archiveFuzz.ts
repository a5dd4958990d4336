import { checkProperty, PROPERTY_NAMES } from '../test/fuzz/archiveCampaigns';

/**
 * The archive check's fuzz campaign (`node .out/bench/archiveFuzz.js`, after `npm run
 * build:tools`): the properties `npm test` runs seeded (test/fuzz/archiveCampaigns.ts), run for
 * longer in rounds of 1,000 inputs, each round with a fresh seed. Printed: inputs tried and
 * defects found per property; a defect with its seed and shrunk input, which
 * `checkProperty(name, { seed, numRuns })` repeats. BENCH_FUZZ_RUNS inputs per archive property
 * (default 20,000; gunzip's, up to 3 MiB each, a twentieth of it), BENCH_FUZZ_SEED the first
 * round's seed (default: the time), BENCH_FUZZ_PROPERTIES the properties to run (comma-separated
 * names; default: all).
 */
const RUNS = Number(process.env.BENCH_FUZZ_RUNS ?? 20_000);
const RUNS_OF = (name: string) => (name === 'gunzip' ? Math.ceil(RUNS / 20) : RUNS);
const ROUND = 1000;

export async function run(): Promise<void> {
	const firstSeed = Number(process.env.BENCH_FUZZ_SEED ?? Date.now() % 2 ** 31);
	console.log(
		`Archive check fuzz: ${RUNS} inputs per archive property, ${RUNS_OF('gunzip')} for gunzip, rounds of up to ${ROUND}, first seed ${firstSeed}`,
	);
	const chosen = process.env.BENCH_FUZZ_PROPERTIES?.split(',');
	for (const name of PROPERTY_NAMES.filter((property) => !chosen || chosen.includes(property))) {
		const started = performance.now();
		let tried = 0;
		const defects: string[] = [];
		for (let round = 0; tried < RUNS_OF(name); round++) {
			const outcome = await checkProperty(name, {
				seed: firstSeed + round,
				numRuns: Math.min(ROUND, RUNS_OF(name) - tried),
			});
			tried += outcome.numRuns;
			if (outcome.failure) defects.push(outcome.failure);
		}
		console.log(
			`  ${name}: ${tried} inputs tried, ${defects.length} defects found, ${((performance.now() - started) / 1000).toFixed(1)} s`,
		);
		for (const defect of defects) console.log(`    ${defect.slice(0, 2000)}`);
	}
}

if (require.main === module) {
	run().then(
		() => process.exit(0),
		(error: unknown) => {
			console.error(error);
			process.exit(1);
		},
	);
}
