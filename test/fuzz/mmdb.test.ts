import { assertCampaign } from './campaign';
import { mmdbCampaign } from './mmdbCampaign';

/** Seeded fuzzing of the MMDB reader (mmdbCampaign.ts); the bench runs it long (bench/fuzz.ts). */
test(`${mmdbCampaign.name}: ${mmdbCampaign.holds}`, () => assertCampaign(mmdbCampaign, 4), 120_000);
