import { assertCampaign } from './campaign';
import { csvIndexBytesCampaign, csvIndexCampaign, csvScannerCampaign } from './csvCampaigns';

/**
 * Seeded fuzzing of the CSV readers (csvCampaigns.ts says what each holds); the bench runs the
 * same campaigns long, with fresh seeds (bench/fuzz.ts).
 */
const TIMEOUT = 120_000;

test(
	`${csvScannerCampaign.name}: ${csvScannerCampaign.holds}`,
	() => assertCampaign(csvScannerCampaign, 1),
	TIMEOUT,
);
test(
	`${csvIndexCampaign.name}: ${csvIndexCampaign.holds}`,
	() => assertCampaign(csvIndexCampaign, 2),
	TIMEOUT,
);
test(
	`${csvIndexBytesCampaign.name}: ${csvIndexBytesCampaign.holds}`,
	() => assertCampaign(csvIndexBytesCampaign, 3),
	TIMEOUT,
);
