import { assertCampaign, type Campaign } from './campaign';
import { csvIndexBytesCampaign, csvIndexCampaign, csvScannerCampaign } from './csvCampaigns';
import { mmdbCampaign } from './mmdbCampaign';
import { formulaCampaign, ipAddressCampaign, mailAndDomainCampaign } from './valueCampaigns';

/**
 * Seeded fuzzing of the readers, the value parsers and the formula guard: each campaign (what it
 * holds the code to is its title) a few seconds, from a fixed seed, so that a failure repeats;
 * the bench runs the same campaigns long, with fresh seeds (bench/fuzz.ts).
 */
const CAMPAIGNS: Array<[string, Campaign, number]> = [
	mmdbCampaign,
	csvScannerCampaign,
	csvIndexCampaign,
	csvIndexBytesCampaign,
	ipAddressCampaign,
	mailAndDomainCampaign,
	formulaCampaign,
].map((campaign, index) => [`${campaign.name}: ${campaign.holds}`, campaign, index + 1]);

test.each(CAMPAIGNS)('%s', (_title, campaign, seed) => assertCampaign(campaign, seed), 120_000);
