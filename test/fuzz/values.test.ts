import { assertCampaign } from './campaign';
import { formulaCampaign, ipAddressCampaign, mailAndDomainCampaign } from './valueCampaigns';

/**
 * Seeded fuzzing of the value parsers and the formula guard (valueCampaigns.ts); the bench runs
 * the same campaigns long (bench/fuzz.ts).
 */
const TIMEOUT = 120_000;

test(
	`${ipAddressCampaign.name}: ${ipAddressCampaign.holds}`,
	() => assertCampaign(ipAddressCampaign, 5),
	TIMEOUT,
);
test(
	`${mailAndDomainCampaign.name}: ${mailAndDomainCampaign.holds}`,
	() => assertCampaign(mailAndDomainCampaign, 6),
	TIMEOUT,
);
test(
	`${formulaCampaign.name}: ${formulaCampaign.holds}`,
	() => assertCampaign(formulaCampaign, 7),
	TIMEOUT,
);
