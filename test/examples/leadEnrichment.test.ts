import { promises as fs } from 'fs';
import path from 'path';

import { runWorkflow, type WorkflowJson } from '../harness/run';
import { ROOT } from '../harness/nodeTypes';
import { allSandboxCredentials } from '../harness/sandboxCredentials';
import { startSandbox, type Sandbox } from '../sandbox/server';
import { companyRecord } from '../sandbox/services/company';

/**
 * examples/lead-enrichment.json through n8n-core: Company Enrichment takes each lead's email
 * address as it is (no expression that splits it), looks up the companies of the business
 * addresses, and skips the webmail ones at no credit, the enriched lead saying why.
 */
let sandbox: Sandbox;
beforeAll(async () => {
	sandbox = await startSandbox();
});
afterAll(async () => await sandbox.close());
beforeEach(() => sandbox.reset());

const FILE = path.join(ROOT, 'examples', 'lead-enrichment.json');
const readWorkflow = async () => JSON.parse(await fs.readFile(FILE, 'utf8')) as WorkflowJson;

describe('Lead enrichment example', () => {
	it("derives each lead's company from its email address, and skips the webmail leads without a request", async () => {
		const workflow = await readWorkflow();
		const company = workflow.nodes.find((node) => node.name === 'Company Enrichment');
		// The email address as the lead gave it: no hand-written expression taking it apart.
		expect(company?.parameters.domain).toBe("={{ $('One row per lead').item.json.email }}");

		const result = await runWorkflow(workflow, { credentials: allSandboxCredentials(sandbox) });
		expect(result.error).toBeUndefined();
		const business = ['analytical-engines.com', 'navy-compilers.org', 'bletchley-park.co.uk'];
		expect(sandbox.requests('company').map((request) => request.query.domain)).toEqual(business);

		const leads = result.output('Enriched lead').map((item) => item.json);
		expect(
			leads.map(({ name, company, company_skipped }) => ({ name, company, company_skipped })),
		).toEqual([
			...['Ada Lovelace', 'Grace Hopper', 'Alan Turing'].map((name, index) => ({
				name,
				company: companyRecord(business[index]).company_name,
				company_skipped: '',
			})),
			// A typo trap of gmail.com (the Email Reputation node suggests the fix) and a webmail address.
			{
				name: 'Katherine Johnson',
				company: undefined,
				company_skipped: 'disposable email provider',
			},
			{ name: 'Edsger Dijkstra', company: undefined, company_skipped: 'free email provider' },
		]);
		expect(result.output('Company Enrichment').map((item) => item.pairedItem)).toEqual(
			[0, 1, 2, 3, 4].map((item) => ({ item })),
		);
	});
});
