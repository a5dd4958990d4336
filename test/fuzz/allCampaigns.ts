import type { Campaign } from './campaign';
import { csvIndexBytesCampaign, csvIndexCampaign, csvScannerCampaign } from './csvCampaigns';
import { mmdbBombCampaign } from './mmdbBombCampaign';
import { mmdbCampaign } from './mmdbCampaign';
import { formulaCampaign, ipAddressCampaign, mailAndDomainCampaign } from './valueCampaigns';

/**
 * Every fuzz campaign, in the order `npm test` seeds them (the n-th from seed n: a campaign added
 * goes last, so that the others keep their inputs) and the bench runs them (bench/fuzz.ts).
 */
export const CAMPAIGNS: Campaign[] = [
	mmdbCampaign,
	csvScannerCampaign,
	csvIndexCampaign,
	csvIndexBytesCampaign,
	ipAddressCampaign,
	mailAndDomainCampaign,
	formulaCampaign,
	mmdbBombCampaign,
];
