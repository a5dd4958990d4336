import type { IDataObject } from 'n8n-workflow';

import { runNode } from '../harness/run';
import { sandboxCredential } from '../harness/sandboxCredentials';
import { startSandbox, type Sandbox } from '../sandbox/server';
import { companyRecord } from '../sandbox/services/company';

let sandbox: Sandbox;
beforeAll(async () => {
	sandbox = await startSandbox();
});
afterAll(async () => await sandbox.close());
beforeEach(() => sandbox.reset());

/** The node on items carrying `domain`, the parameter read by expression. */
const enrich = (
	domains: string[],
	options: IDataObject = {},
	extra: { continueOnFail?: boolean } = {},
) =>
	runNode({
		type: 'abstractCompany',
		parameters: { domain: '={{ $json.domain }}', options },
		credential: sandboxCredential(sandbox, 'company'),
		items: domains.map((domain) => ({ json: { domain } })),
		...extra,
	});

describe('Company enrichment: requests and records', () => {
	it('sends domain and the key in the query of GET /v2/ and returns each record unchanged, paired', async () => {
		const domains = ['stripe.com', 'northwind.io', 'www.acme.co.uk'];
		const { items, error } = await enrich(domains);
		expect(error).toBeUndefined();
		const requests = sandbox.requests('company');
		expect(requests).toHaveLength(3);
		expect(requests[0].method).toBe('GET');
		expect(requests[0].path).toBe('/v2/');
		expect(requests[0].query).toEqual({ domain: 'stripe.com', api_key: sandbox.keys.company });
		expect(requests.map((request) => request.query.domain)).toEqual(domains);
		expect(items.map((item) => item.json)).toEqual(domains.map((domain) => companyRecord(domain)));
		expect(items.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
		expect(JSON.stringify(items)).not.toContain(sandbox.keys.company);
	});

	it('keeps the whole 2.4 record: arrays as arrays, social URLs without scheme', async () => {
		const { items } = await enrich(['stripe.com']);
		const record = items[0].json;
		expect(Object.keys(record)).toHaveLength(33);
		expect(Array.isArray(record.phone_numbers)).toBe(true);
		expect(Array.isArray(record.email_addresses)).toBe(true);
		expect(Array.isArray(record.tags)).toBe(true);
		expect(Array.isArray(record.technologies)).toBe(true);
		expect(record.linkedin_url).toBe('linkedin.com/company/stripe');
		expect(record.crunchbase_url).toBe('crunchbase.com/organization/stripe');
	});

	it('lower-cases the domain before sending it', async () => {
		const { items } = await enrich(['Stripe.COM']);
		expect(sandbox.requests('company')[0].query.domain).toBe('stripe.com');
		expect(items[0].json).toEqual(companyRecord('stripe.com'));
	});

	it('sends the chosen fields comma-separated and outputs only those keys', async () => {
		const { items, error } = await enrich(['stripe.com'], {
			fields: ['company_name', 'employee_range', 'technologies'],
		});
		expect(error).toBeUndefined();
		expect(sandbox.requests('company')[0].query).toEqual({
			domain: 'stripe.com',
			fields: 'company_name,employee_range,technologies',
			api_key: sandbox.keys.company,
		});
		const full = companyRecord('stripe.com');
		expect(items[0].json).toEqual({
			company_name: full.company_name,
			employee_range: full.employee_range,
			technologies: full.technologies,
		});
	});
});

describe('Company enrichment: input checks before any request', () => {
	it('rejects an empty domain, naming the field', async () => {
		const { error, items } = await enrich(['']);
		expect(error?.message).toContain('Domain (domain)');
		expect(error?.message).toMatch(/required/);
		expect(items).toEqual([]);
		expect(sandbox.requests('company')).toEqual([]);
	});

	it.each([['https://example.com/x'], ['example.com/about'], ['http://example.com']])(
		'reads the website address %s as its domain (companyLeads.test.ts has every form)',
		async (value) => {
			const { error } = await enrich([value]);
			expect(error).toBeUndefined();
			expect(sandbox.requests('company').map((request) => request.query.domain)).toEqual([
				'example.com',
			]);
		},
	);

	it.each([['localhost'], ['exa mple.com'], ['-bad-.com']])(
		'rejects %s as not a domain name',
		async (value) => {
			const { error } = await enrich([value]);
			expect(error?.message).toContain('Domain (domain)');
			expect(sandbox.requests('company')).toEqual([]);
		},
	);

	it('rejects a field that is not a top-level key of the record', async () => {
		const { error } = await enrich(['stripe.com'], { fields: ['company_name', 'ceo'] });
		expect(error?.message).toContain('Fields (fields)');
		expect(sandbox.requests('company')).toEqual([]);
	});

	it('fails the run on a bad item among good ones before sending any of them', async () => {
		const { error } = await enrich(['stripe.com', 'exa mple.com', 'acme.io']);
		expect(error?.message).toContain('Domain (domain)');
		expect(error?.description).toContain('Item 2');
		expect(sandbox.requests('company')).toEqual([]);
	});

	it('with Continue On Fail makes the bad item a paired error item and sends the others', async () => {
		const { items, error } = await enrich(
			['stripe.com', '', 'acme.io'],
			{},
			{ continueOnFail: true },
		);
		expect(error).toBeUndefined();
		expect(items.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
		expect(items[0].json).toEqual(companyRecord('stripe.com'));
		expect(String(items[1].json.error)).toContain('Domain (domain)');
		expect(items[2].json).toEqual(companyRecord('acme.io'));
		expect(sandbox.requests('company').map((request) => request.query.domain)).toEqual([
			'stripe.com',
			'acme.io',
		]);
	});
});
