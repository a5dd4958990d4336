import { CAMPAIGNS } from './allCampaigns';
import { assertCampaign, type Campaign } from './campaign';

/**
 * Seeded fuzzing of the readers, the value parsers and the formula guard: each campaign (what it
 * holds the code to is its title) a few seconds, from a fixed seed, so that a failure repeats;
 * the bench runs the same campaigns long, with fresh seeds (bench/fuzz.ts).
 */
const SEEDED: Array<[string, Campaign, number]> = CAMPAIGNS.map((campaign, index) => [
	`${campaign.name}: ${campaign.holds}`,
	campaign,
	index + 1,
]);

test.each(SEEDED)('%s', (_title, campaign, seed) => assertCampaign(campaign, seed), 120_000);
