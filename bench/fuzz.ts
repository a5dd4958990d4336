import { runCampaign, type Campaign } from '../test/fuzz/campaign';
import {
	csvIndexBytesCampaign,
	csvIndexCampaign,
	csvScannerCampaign,
} from '../test/fuzz/csvCampaigns';
import { mmdbCampaign } from '../test/fuzz/mmdbCampaign';
import {
	formulaCampaign,
	ipAddressCampaign,
	mailAndDomainCampaign,
} from '../test/fuzz/valueCampaigns';

/**
 * The fuzz campaigns of `npm test` (test/fuzz/), run long: each campaign's `testRuns` times
 * BENCH_FUZZ_SCALE inputs (default 50), in rounds of fresh seeds (each round stops at its first
 * failure and shrinks it). Prints per campaign the inputs tried, the defects found (a failing
 * input each, shrunk; for the value parsers and the formula guard, an input that took over
 * SLOW_MS too) and the time taken. BENCH_FUZZ_SEED sets the first seed (default: the
 * time), so that another run tries other inputs; a defect prints its seed to run it again.
 */
const CAMPAIGNS: Campaign[] = [
	mmdbCampaign,
	csvScannerCampaign,
	csvIndexCampaign,
	csvIndexBytesCampaign,
	ipAddressCampaign,
	mailAndDomainCampaign,
	formulaCampaign,
];

const ROUNDS = 10;

/** A value parser or the formula guard taking longer on one input is a defect (a backtracking pattern). */
const SLOW_MS = 50;

export async function run(): Promise<void> {
	const scale = Number(process.env.BENCH_FUZZ_SCALE ?? 50);
	const firstSeed = Number(process.env.BENCH_FUZZ_SEED ?? Date.now() % 1_000_000_000);
	console.log(
		`\nFuzz campaigns, ${scale} times the inputs of npm test's, first seed ${firstSeed} (BENCH_FUZZ_SCALE, BENCH_FUZZ_SEED)`,
	);
	let defects = 0;
	for (const [index, campaign] of CAMPAIGNS.entries()) {
		const started = performance.now();
		const runs = Math.max(1, Math.round((campaign.testRuns * scale) / ROUNDS));
		const result = runCampaign(campaign, firstSeed + index * ROUNDS, ROUNDS, runs, SLOW_MS);
		const seconds = (performance.now() - started) / 1000;
		defects += result.defects.length;
		console.log(
			`  ${campaign.name}: ${result.tried.toLocaleString('en-US')} inputs tried, ${result.defects.length} defects found, ${seconds.toFixed(0)} s (${campaign.holds})`,
		);
		for (const defect of result.defects)
			console.log(
				`    defect (seed ${defect.seed}): ${defect.error}\n      input: ${defect.counterexample}`,
			);
	}
	console.log(`  In all: ${defects} defects found`);
	// Let the caller see a defect in the exit code too, when run alone.
	if (defects > 0) process.exitCode = 1;
	await Promise.resolve();
}

if (require.main === module) {
	void run();
}
