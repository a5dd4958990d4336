import type { IDataObject } from 'n8n-workflow';

import { COMPANY_ANSWER_COLUMNS } from '../../nodes/shared/csv/answerColumns';
import { runNode, type NodeRun } from '../harness/run';
import { sandboxCredential } from '../harness/sandboxCredentials';
import { startSandbox, type Sandbox } from '../sandbox/server';
import { companyRecord } from '../sandbox/services/company';
import { csvItem } from './csvHelpers';
import { resultOf } from './resultFileCases';

/**
 * Company Enrichment from what a lead form collects: an email address or a website read as the
 * domain to look up, and an address at a free, disposable or relay email provider answered
 * without a request (no credit spent), in items and in a CSV file, through n8n-core.
 */

let sandbox: Sandbox;
beforeAll(async () => {
	sandbox = await startSandbox();
});
afterAll(async () => await sandbox.close());
beforeEach(() => sandbox.reset());

const sent = () => sandbox.requests('company').map((request) => String(request.query.domain));

/** The node on items carrying `value`, read by expression into Domain. */
const enrich = (values: string[], options: IDataObject = {}, onError?: NodeRun['onError']) =>
	runNode({
		type: 'abstractCompany',
		parameters: { domain: '={{ $json.value }}', options },
		credential: sandboxCredential(sandbox, 'company'),
		items: values.map((value) => ({ json: { value } })),
		onError,
	});

/** The record answered for a domain that came in an email address or a website: it names the domain looked up. */
const answered = (domain: string) => ({ ...companyRecord(domain), lookupDomain: domain });
const skipped = (kind: string, domain: string) => ({ skipped: kind, lookupDomain: domain });

describe('Company enrichment reads a domain, an email address or a website', () => {
	it('looks up the domain of each form, and names it in the item when it was not typed as a domain', async () => {
		const values = [
			'acme.io',
			'ada@northwind.io',
			'https://www.stripe.com/about?ref=x',
			'www.acme.co.uk',
			'globex.com/contact',
			'mailto:grace@initech.com',
			'Grace.Hopper@Navy-Compilers.ORG',
			'http://shop.example.org:8080/',
		];
		const { items, error } = await enrich(values);
		expect(error).toBeUndefined();
		expect(sent()).toEqual([
			'acme.io',
			'northwind.io',
			'stripe.com',
			'www.acme.co.uk',
			'globex.com',
			'initech.com',
			'navy-compilers.org',
			'shop.example.org',
		]);
		expect(items.map((item) => item.json)).toEqual([
			// A bare domain: the record exactly as before, its request unchanged (www. kept as typed).
			companyRecord('acme.io'),
			answered('northwind.io'),
			answered('stripe.com'),
			companyRecord('www.acme.co.uk'),
			answered('globex.com'),
			answered('initech.com'),
			answered('navy-compilers.org'),
			answered('shop.example.org'),
		]);
		expect(items.map((item) => item.pairedItem)).toEqual(values.map((_, item) => ({ item })));
		expect(sandbox.requests('company')[0].query).toEqual({
			domain: 'acme.io',
			api_key: sandbox.keys.company,
		});
	});

	it('keeps the chosen fields and adds the domain looked up', async () => {
		const { items } = await enrich(['ada@stripe.com'], { fields: ['company_name'] });
		expect(sandbox.requests('company')[0].query).toEqual({
			domain: 'stripe.com',
			fields: 'company_name',
			api_key: sandbox.keys.company,
		});
		expect(items[0].json).toEqual({
			company_name: companyRecord('stripe.com').company_name,
			lookupDomain: 'stripe.com',
		});
	});

	it.each([
		['ada@', 'an address without a domain'],
		['@acme.com', 'an address without a name'],
		['ada@localhost', 'an address whose domain has one label'],
		['ftp://acme.com/file', 'a website address that is not http(s)'],
		['https:///about', 'a website address without a host'],
		['acme io', 'a value with a space'],
		['http://192.168.0.1/', 'a website at an IP address'],
	])('refuses %s (%s) before any request, naming the field and the three forms', async (value) => {
		const { error, items } = await enrich([value]);
		expect(error?.message).toBe(
			`Invalid Domain (domain): must be a domain (example.com), an email address (ada@example.com) or a website address (https://www.example.com/about); got "${value}"`,
		);
		expect(items).toEqual([]);
		expect(sent()).toEqual([]);
	});
});

describe('Company enrichment skips webmail addresses at no credit', () => {
	it('answers an address at a free, disposable or relay provider with an item that says so, and sends nothing', async () => {
		const values = [
			'ana.silva@gmail.com',
			'kim@NAVER.com',
			'temp123@mailinator.com',
			'shield@duck.com',
			'x1y2@sub.mozmail.com',
			'ada@outlook.com',
		];
		const { items, error } = await enrich(values);
		expect(error).toBeUndefined();
		expect(sent()).toEqual([]);
		expect(items.map((item) => item.json)).toEqual([
			skipped('free email provider', 'gmail.com'),
			skipped('free email provider', 'naver.com'),
			skipped('disposable email provider', 'mailinator.com'),
			skipped('email relay service', 'duck.com'),
			skipped('email relay service', 'sub.mozmail.com'),
			skipped('free email provider', 'outlook.com'),
		]);
		expect(items.map((item) => item.pairedItem)).toEqual(values.map((_, item) => ({ item })));
	});

	it('still looks up a webmail domain typed as a domain, and a website at one: the user asked for it', async () => {
		const { items } = await enrich(['gmail.com', 'https://mail.yahoo.com/']);
		expect(sent()).toEqual(['gmail.com', 'mail.yahoo.com']);
		expect(items.map((item) => item.json)).toEqual([
			companyRecord('gmail.com'),
			answered('mail.yahoo.com'),
		]);
	});

	it('looks a webmail address up when Skip Webmail Addresses is off', async () => {
		const { items } = await enrich(['ana.silva@gmail.com', 'temp123@mailinator.com'], {
			skipWebmail: false,
		});
		expect(sent()).toEqual(['gmail.com', 'mailinator.com']);
		expect(items.map((item) => item.json)).toEqual([
			answered('gmail.com'),
			answered('mailinator.com'),
		]);
	});

	it('sends one request for the leads of one company (Send Repeated Values Once), and one each when it is off', async () => {
		const leads = ['ada@acme.com', 'grace@acme.com', 'https://acme.com/team'];
		const { items } = await enrich(leads);
		expect(sent()).toEqual(['acme.com']);
		expect(items.map((item) => item.json)).toEqual([
			answered('acme.com'),
			answered('acme.com'),
			answered('acme.com'),
		]);

		sandbox.reset();
		await enrich(leads, { sendRepeatsOnce: false });
		expect(sent()).toEqual(['acme.com', 'acme.com', 'acme.com']);
	});

	it('counts a skipped item as neither answered nor sent in the hint of repeated values', async () => {
		const { items, run } = await enrich([
			'ada@acme.com',
			'grace@acme.com',
			'bob@gmail.com',
			'eve@gmail.com',
		]);
		expect(sent()).toEqual(['acme.com']);
		expect(items).toHaveLength(4);
		const hints = JSON.stringify(run.data.resultData.runData.Node[0].hints ?? []);
		expect(hints).toContain('2 items answered with 1 request:');
		expect(hints).toContain('2 email addresses were skipped at no credit');
	});
	it("still skips a webmail address after the plan's credits ran out: it never needed a credit", async () => {
		sandbox.setQuota('company', 1);
		// One request at a time (a free plan's rate), so that the plan has run out before the last item.
		const { items } = await runNode({
			type: 'abstractCompany',
			parameters: { domain: '={{ $json.value }}', options: {} },
			credential: sandboxCredential(sandbox, 'company', { requestsPerSecond: 1 }),
			items: ['ada@acme.io', 'bob@globex.com', 'eve@gmail.com'].map((value) => ({
				json: { value },
			})),
			onError: 'continueRegularOutput',
		});
		expect(sent()).toEqual(['acme.io', 'globex.com']);
		expect(items[0].json).toEqual(answered('acme.io'));
		expect(String(items[1].json.error)).toMatch(/credits/);
		expect(items[2].json).toEqual(skipped('free email provider', 'gmail.com'));
	});
});

describe('Company enrichment of leads: the three On Error settings', () => {
	const leads = ['ada@acme.io', 'bob@gmail.com', 'not a domain', 'https://www.globex.com/'];

	it('stops the run before any request on a value that is none of the three forms (default)', async () => {
		const { error, items } = await enrich(leads);
		expect(error?.message).toContain(
			'Invalid Domain (domain): must be a domain (example.com), an email address',
		);
		expect(error?.description).toContain('Item 3 was not sent');
		expect(items).toEqual([]);
		expect(sent()).toEqual([]);
	});

	it('Continue (using regular output): the refused value is an error item, the webmail one is skipped, each paired', async () => {
		const { error, items } = await enrich(leads, {}, 'continueRegularOutput');
		expect(error).toBeUndefined();
		expect(sent()).toEqual(['acme.io', 'globex.com']);
		expect(items.map((item) => item.pairedItem)).toEqual([
			{ item: 0 },
			{ item: 1 },
			{ item: 2 },
			{ item: 3 },
		]);
		expect(items[0].json).toEqual(answered('acme.io'));
		expect(items[1].json).toEqual(skipped('free email provider', 'gmail.com'));
		expect(String(items[2].json.error)).toContain('Invalid Domain (domain)');
		expect(items[3].json).toEqual(answered('globex.com'));
	});

	it('Continue (using error output): the skipped item is an answer on the success output, the refused one goes to the error output', async () => {
		const { error, items, errorItems } = await enrich(leads, {}, 'continueErrorOutput');
		expect(error).toBeUndefined();
		expect(items.map((item) => item.json)).toEqual([
			answered('acme.io'),
			skipped('free email provider', 'gmail.com'),
			answered('globex.com'),
		]);
		expect(items.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 3 }]);
		expect(errorItems).toHaveLength(1);
		expect(errorItems[0].pairedItem).toEqual({ item: 2 });
		expect(JSON.stringify(errorItems[0].json)).toContain('Invalid Domain (domain)');
		expect(sent()).toEqual(['acme.io', 'globex.com']);
	});
});

/** A lead list as a form export has it: name, email, website. */
const LEADS_CSV = [
	'name,email,website',
	'Ada Lovelace,ada@acme.io,',
	'Grace Hopper,grace@acme.io,https://acme.io',
	'Bob,bob@gmail.com,',
	'Eve,eve@mailinator.com,',
	'Alan Turing,https://www.globex.com/about,',
	'Edsger,initech.com,',
].join('\n');

const enrichFile = (
	csv: string,
	parameters: IDataObject = {},
	options: IDataObject = {},
	onError?: NodeRun['onError'],
) =>
	runNode({
		type: 'abstractCompany',
		parameters: {
			input: 'csvFile',
			binaryPropertyName: 'data',
			domainColumn: 'email',
			...parameters,
			options,
		},
		credential: sandboxCredential(sandbox, 'company'),
		items: [csvItem(csv)],
		onError,
	});

describe('Company enrichment of a lead list (CSV file)', () => {
	it('One Item per Row: each row looked up by its email column, webmail rows skipped, one request per company', async () => {
		const { items, error } = await enrichFile(LEADS_CSV);
		expect(error).toBeUndefined();
		expect(sent()).toEqual(['acme.io', 'globex.com', 'initech.com']);
		expect(
			items.map((item) => ({ ...item.json, csvRow: (item.json.csvRow as IDataObject).number })),
		).toEqual([
			{ ...answered('acme.io'), csvRow: 2 },
			{ ...answered('acme.io'), csvRow: 3 },
			{ ...skipped('free email provider', 'gmail.com'), csvRow: 4 },
			{ ...skipped('disposable email provider', 'mailinator.com'), csvRow: 5 },
			{ ...answered('globex.com'), csvRow: 6 },
			{ ...companyRecord('initech.com'), csvRow: 7 },
		]);
		expect(items.every((item) => (item.pairedItem as { item: number }).item === 0)).toBe(true);
	});

	it('Result File: a skipped row says why in its status and is counted in the summary; a row costs a request only for a company', async () => {
		const { items, error, run } = await enrichFile(LEADS_CSV, {
			output: 'resultFile',
			resultBinaryPropertyName: 'result',
		});
		expect(error).toBeUndefined();
		expect(sent()).toEqual(['acme.io', 'globex.com', 'initech.com']);
		expect(items[0].json).toMatchObject({
			rows: 6,
			answered: 4,
			skipped: 2,
			requestsSent: 3,
			requestsSaved: 1,
			nextRow: null,
		});
		expect(JSON.stringify(run.data.resultData.runData.Node[0].hints ?? [])).toContain(
			'2 email addresses were skipped at no credit',
		);
		expect(items[0].json.failed).toEqual({
			invalidValue: 0,
			serviceError: 0,
			planRanOut: 0,
			keyRejected: 0,
		});
		const { header, rows } = await resultOf(items[0]);
		expect(header).toEqual([
			'name',
			'email',
			'website',
			...COMPANY_ANSWER_COLUMNS,
			'other_fields',
			'status',
		]);
		const status = rows.map((row) => row[row.length - 1]);
		expect(status).toEqual([
			'ok',
			'ok',
			'skipped: free email provider (gmail.com)',
			'skipped: disposable email provider (mailinator.com)',
			'ok',
			'ok',
		]);
		// The answer's domain column says which company answered; nothing of the package's own lands in other_fields.
		const domainAt = header.indexOf('domain');
		expect(rows.map((row) => row[domainAt])).toEqual([
			'acme.io',
			'acme.io',
			'',
			'',
			'globex.com',
			'initech.com',
		]);
		expect(rows.map((row) => row[header.indexOf('other_fields')])).toEqual([
			'',
			'',
			'',
			'',
			'',
			'',
		]);
	});

	it('reads a website column as well, and a first row of data when Header Row is Auto and the column is a position', async () => {
		const { items } = await enrichFile('ada@acme.io,x\nbob@gmail.com,y\n', { domainColumn: '1' });
		expect(sent()).toEqual(['acme.io']);
		expect(items.map((item) => item.json.lookupDomain)).toEqual(['acme.io', 'gmail.com']);

		sandbox.reset();
		const { items: sites } = await enrichFile(
			LEADS_CSV.split('\n').slice(0, 3).join('\n'),
			{ domainColumn: 'website', output: 'resultFile' },
			{},
			'continueRegularOutput',
		);
		// Row 2's website is empty: a refused value in its status, the other row answered.
		expect(sent()).toEqual(['acme.io']);
		expect(sites[0].json).toMatchObject({
			rows: 2,
			answered: 1,
			skipped: 0,
			failed: { invalidValue: 1 },
		});
	});

	it('looks webmail rows up too when the option is off', async () => {
		await enrichFile(LEADS_CSV, {}, { skipWebmail: false });
		expect(sent()).toEqual(['acme.io', 'gmail.com', 'mailinator.com', 'globex.com', 'initech.com']);
	});

	const BAD_CSV = [
		'name,email',
		'Ada,ada@acme.io',
		'Bob,bob@gmail.com',
		'Zed,zed at acme',
		'Alan,alan@globex.com',
	].join('\n');

	it('stops before any request on a row that is none of the three forms (default On Error)', async () => {
		const { error } = await enrichFile(BAD_CSV);
		expect(error?.message).toMatch(
			/^Invalid Domain \(row 4, column 2\): must be a domain \(example\.com\), an email address/,
		);
		expect(sent()).toEqual([]);
	});

	it('Continue (using regular output): the refused row is an error item, the others answered or skipped, in order', async () => {
		const { items } = await enrichFile(BAD_CSV, {}, {}, 'continueRegularOutput');
		expect(sent()).toEqual(['acme.io', 'globex.com']);
		expect(
			items.map((item) => item.json.lookupDomain ?? String(item.json.error).slice(0, 31)),
		).toEqual(['acme.io', 'gmail.com', 'Invalid Domain (row 4, column 2', 'globex.com']);
		expect(items[1].json.skipped).toBe('free email provider');
	});

	it('Continue (using error output): the skipped row is on the success output, the refused one on the error output', async () => {
		const { items, errorItems } = await enrichFile(BAD_CSV, {}, {}, 'continueErrorOutput');
		expect(items.map((item) => item.json.lookupDomain)).toEqual([
			'acme.io',
			'gmail.com',
			'globex.com',
		]);
		expect(errorItems).toHaveLength(1);
		expect(JSON.stringify(errorItems[0].json)).toContain('row 4');
		expect(sent()).toEqual(['acme.io', 'globex.com']);
	});

	it('Result File with a refused row: its status says so, the webmail row is skipped, both cost nothing', async () => {
		const { items } = await enrichFile(
			BAD_CSV,
			{ output: 'resultFile', resultBinaryPropertyName: 'result' },
			{},
			'continueRegularOutput',
		);
		expect(sent()).toEqual(['acme.io', 'globex.com']);
		expect(items[0].json).toMatchObject({
			rows: 4,
			answered: 2,
			skipped: 1,
			failed: { invalidValue: 1 },
			requestsSent: 2,
		});
		const { rows } = await resultOf(items[0]);
		const status = rows.map((row) => row[row.length - 1]);
		expect(status[1]).toBe('skipped: free email provider (gmail.com)');
		expect(status[2]).toMatch(/^invalid value: Invalid Domain \(row 4, column 2\)/);
	});
});
