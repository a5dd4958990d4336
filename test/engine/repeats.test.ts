import type { IDataObject } from 'n8n-workflow';

import { hintsOf } from '../harness/hints';
import { runNode } from '../harness/run';
import { sandboxCredential } from '../harness/sandboxCredentials';
import { csvItem } from '../nodes/csvHelpers';
import { binaryBytes } from '../nodes/mediaHelpers';
import { companyRecord } from '../sandbox/services/company';
import { startSandbox, type Sandbox } from '../sandbox/server';

/**
 * One request per distinct value in a run (credits are money): items and CSV rows of one run that would
 * send the same request send it once, and every one of them gets the answer as its own item,
 * paired to itself, in order. Send Repeated Values Once (on by default) turns it off.
 */
let sandbox: Sandbox;
beforeAll(async () => {
	sandbox = await startSandbox();
});
afterAll(async () => await sandbox.close());
beforeEach(() => sandbox.reset());

const enrich = (domains: string[], options: IDataObject = {}) =>
	runNode({
		type: 'abstractCompany',
		parameters: { domain: '={{ $json.domain }}', options },
		credential: sandboxCredential(sandbox, 'company', { requestsPerSecond: 0 }),
		items: domains.map((domain, index) => ({ json: { lead: index + 1, domain } })),
	});

describe('repeated values in items', () => {
	const domains = [
		'stripe.com',
		'northwind.io',
		'stripe.com',
		'acme.io',
		'northwind.io',
		'stripe.com',
	];

	it('sends each distinct domain once; every item gets its own copy of the record, paired, in order', async () => {
		const run = await enrich(domains);
		expect(run.error).toBeUndefined();
		expect(
			sandbox
				.requests('company')
				.map((request) => request.query.domain)
				.sort(),
		).toEqual(['acme.io', 'northwind.io', 'stripe.com']);
		expect(run.items.map((item) => item.json)).toEqual(
			domains.map((domain) => companyRecord(domain)),
		);
		expect(run.items.map((item) => item.pairedItem)).toEqual(domains.map((_, item) => ({ item })));
		// Copies, not one object six times: a later node that edits one item edits only that one.
		expect(run.items[0].json).not.toBe(run.items[2].json);
		expect(hintsOf(run)).toContain(
			'6 items answered with 3 requests: repeated values were sent once (turn Send Repeated Values Once off in Options for a fresh answer each)',
		);
	});

	it('a repeat gets the record as the service sent it, whatever its keys: "__proto__" stays a field of its own', async () => {
		// JSON.parse makes "__proto__" a field like any other; a copy that assigns it sets a prototype instead.
		const record = JSON.parse('{"name":"Stripe","__proto__":{"employees_count":9}}') as IDataObject;
		sandbox.inject('company', { kind: 'answer', json: record });
		const run = await enrich(['stripe.com', 'stripe.com']);
		expect(run.error).toBeUndefined();
		expect(sandbox.requests('company')).toHaveLength(1);
		const [first, repeat] = run.items.map((item) => item.json);
		expect(Object.keys(repeat)).toEqual(Object.keys(first));
		expect(repeat.employees_count).toBeUndefined();
	});

	it('with Send Repeated Values Once off, every item is sent', async () => {
		const run = await enrich(domains, { sendRepeatsOnce: false });
		expect(run.error).toBeUndefined();
		expect(sandbox.requests('company')).toHaveLength(6);
		expect(hintsOf(run)).toEqual([]);
	});

	it('a repeated value the service refused is not sent again: every item with it gets the refusal', async () => {
		const run = await runNode({
			type: 'abstractCompany',
			parameters: { domain: '={{ $json.domain }}', options: {} },
			credential: sandboxCredential(sandbox, 'company', {
				requestsPerSecond: 0,
				apiKey: sandbox.keys.email,
			}),
			items: ['stripe.com', 'stripe.com'].map((domain) => ({ json: { domain } })),
			onError: 'continueErrorOutput',
		});
		expect(sandbox.requests('company')).toHaveLength(1);
		expect(run.items).toEqual([]);
		expect(run.errorItems.map((item) => (item.json.error as IDataObject).message)).toEqual([
			expect.stringMatching(/\(401\)/),
			expect.stringMatching(/\(401\)/),
		]);
		expect(run.errorItems.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }]);
	});

	it('a value repeated after the plan ran out is not sent either', async () => {
		sandbox.setQuota('company', 1);
		const run = await runNode({
			type: 'abstractCompany',
			parameters: { domain: '={{ $json.domain }}', options: {} },
			credential: sandboxCredential(sandbox, 'company', { requestsPerSecond: 1 }),
			items: ['stripe.com', 'acme.io', 'northwind.io', 'northwind.io'].map((domain) => ({
				json: { domain },
			})),
			onError: 'continueRegularOutput',
		});
		expect(sandbox.requests('company')).toHaveLength(2);
		expect(run.items.map((item) => String(item.json.error ?? 'ok'))).toEqual([
			'ok',
			expect.stringMatching(/\(422\)/),
			"Item 3 was not sent: the plan's API credits for Company Enrichment ran out at item 2",
			"Item 4 was not sent: the plan's API credits for Company Enrichment ran out at item 2",
		]);
	});
});

describe('repeated values in a CSV file', () => {
	it('a 2,000-row file where every address occurs twice: 1,000 requests, 2,000 rows each with its own row', async () => {
		const lines = ['name,email'];
		for (let row = 0; row < 2000; row++)
			lines.push(`Lead ${row + 1},lead${row % 1000}@example.com`);
		const run = await runNode({
			type: 'abstractEmail',
			parameters: {
				input: 'csvFile',
				binaryPropertyName: 'data',
				emailColumn: 'email',
				options: {},
			},
			credential: sandboxCredential(sandbox, 'email', { requestsPerSecond: 0 }),
			items: [csvItem(`${lines.join('\n')}\n`)],
		});
		expect(run.error).toBeUndefined();
		expect(sandbox.requests('email')).toHaveLength(1000);
		expect(run.items).toHaveLength(2000);
		expect(run.items.map((item) => (item.json.csvRow as IDataObject).number)).toEqual(
			Array.from({ length: 2000 }, (_, index) => index + 2),
		);
		expect(run.items[1500].json).toMatchObject({
			email_address: 'lead500@example.com',
			csvRow: { columns: { name: 'Lead 1501' } },
		});
		expect(hintsOf(run)).toContainEqual(
			expect.stringMatching(
				/^2,000 rows answered with 1,000 requests: repeated values were sent once/,
			),
		);
	});

	it('two files of one run: a value once in each is sent once, a value only in one file once, and every row is answered', async () => {
		// File 1: a, b, c, a. File 2: c, d, b. Distinct: a, b, c, d. Counts of the files are
		// merged before the first request, so c and b (once in a file, twice in the run) are shared.
		const file = (emails: string[]) =>
			csvItem(
				`name,email\n${emails.map((email, index) => `Lead ${index + 1},${email}@example.com`).join('\n')}\n`,
			);
		const run = await runNode({
			type: 'abstractEmail',
			parameters: {
				input: 'csvFile',
				binaryPropertyName: 'data',
				emailColumn: 'email',
				options: {},
			},
			credential: sandboxCredential(sandbox, 'email', { requestsPerSecond: 0 }),
			items: [file(['a', 'b', 'c', 'a']), file(['c', 'd', 'b'])],
		});
		expect(run.error).toBeUndefined();
		expect(
			sandbox
				.requests('email')
				.map((request) => String(request.fields.email ?? request.query.email))
				.sort(),
		).toEqual(['a', 'b', 'c', 'd'].map((name) => `${name}@example.com`));
		expect(run.items.map((item) => item.json.email_address)).toEqual(
			['a', 'b', 'c', 'a', 'c', 'd', 'b'].map((name) => `${name}@example.com`),
		);
		expect(run.items.map((item) => item.pairedItem)).toEqual(
			[0, 0, 0, 0, 1, 1, 1].map((item) => ({ item })),
		);
	});
});

describe('repeated values with a file answer', () => {
	it('three items asking for one avatar: one request, each item its own description of the same stored file', async () => {
		const run = await runNode({
			type: 'abstractAvatars',
			parameters: { name: '={{ $json.name }}' },
			credential: sandboxCredential(sandbox, 'avatars'),
			items: ['Ada Lovelace', 'Ada Lovelace', 'Ada Lovelace'].map((name) => ({ json: { name } })),
		});
		expect(run.error).toBeUndefined();
		expect(sandbox.requests('avatars')).toHaveLength(1);
		expect(run.items).toHaveLength(3);
		const [first, second] = await Promise.all([
			binaryBytes(run.items[0]),
			binaryBytes(run.items[2]),
		]);
		expect(second.equals(first)).toBe(true);
		expect(run.items[2].binary?.data).not.toBe(run.items[0].binary?.data);
		expect(run.items[2].binary?.data).toMatchObject({
			fileName: 'avatar-Ada-Lovelace.png',
			mimeType: 'image/png',
		});
	});

	it('two uploads from the same binary field are two files: both are sent', async () => {
		const png = (seed: number) => Buffer.from(`not really a png ${seed}`);
		const run = await runNode({
			type: 'abstractImages',
			parameters: { source: 'binary', binaryPropertyName: 'data', options: {} },
			credential: sandboxCredential(sandbox, 'images'),
			items: [1, 2].map((seed) => ({
				json: {},
				binary: { data: { bytes: png(seed), mimeType: 'image/png', fileName: 'a.png' } },
			})),
			onError: 'continueRegularOutput',
		});
		expect(sandbox.requests('images')).toHaveLength(2);
		expect(run.items).toHaveLength(2);
	});
});
