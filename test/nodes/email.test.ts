import type { IDataObject } from 'n8n-workflow';

import { runNode } from '../harness/run';
import { sandboxCredential } from '../harness/sandboxCredentials';
import { startSandbox, type Sandbox } from '../sandbox/server';
import { emailRecord, malformedEmailRecord } from '../sandbox/services/email';

let sandbox: Sandbox;
beforeAll(async () => {
	sandbox = await startSandbox();
});
afterAll(async () => await sandbox.close());
beforeEach(() => sandbox.reset());

/** The node on items carrying `email`, the parameter read by expression. */
const email = (
	addresses: string[],
	options: IDataObject = {},
	extra: { continueOnFail?: boolean } = {},
) =>
	runNode({
		type: 'abstractEmail',
		parameters: { email: '={{ $json.email }}', options },
		credential: sandboxCredential(sandbox, 'email'),
		items: addresses.map((address) => ({ json: { email: address } })),
		...extra,
	});

describe('Email reputation: request forms', () => {
	it('sends by default a POST with a JSON body and the key as Bearer, nothing in the URL', async () => {
		const { items, error } = await email(['jane.doe@acme.io']);
		expect(error).toBeUndefined();
		expect(sandbox.requests('email')).toHaveLength(1);
		const [request] = sandbox.requests('email');
		expect(request.method).toBe('POST');
		expect(request.path).toBe('/v1/');
		expect(request.query).toEqual({});
		expect(request.headers['content-type']).toMatch(/^application\/json/);
		expect(request.headers.authorization).toBe(`Bearer ${sandbox.keys.email}`);
		expect(request.fields).toEqual({ email: 'jane.doe@acme.io' });
		expect(items[0].json).toEqual(emailRecord('jane.doe@acme.io'));
	});

	it('sends as a form body with api_key as a field when sendAs is form', async () => {
		const { items, error } = await email(['sales@northwind.example'], { sendAs: 'form' });
		expect(error).toBeUndefined();
		const [request] = sandbox.requests('email');
		expect(request.method).toBe('POST');
		expect(request.query).toEqual({});
		expect(request.headers['content-type']).toMatch(/^application\/x-www-form-urlencoded/);
		expect(request.headers.authorization).toBeUndefined();
		expect(request.fields).toEqual({
			email: 'sales@northwind.example',
			api_key: sandbox.keys.email,
		});
		expect(items[0].json).toEqual(emailRecord('sales@northwind.example'));
	});

	it('sends a GET with everything in the query when sendAs is query', async () => {
		const { items, error } = await email(['someone@gmail.com'], { sendAs: 'query' });
		expect(error).toBeUndefined();
		const [request] = sandbox.requests('email');
		expect(request.method).toBe('GET');
		expect(request.query).toEqual({ email: 'someone@gmail.com', api_key: sandbox.keys.email });
		expect(request.fields).toEqual({});
		expect(items[0].json).toEqual(emailRecord('someone@gmail.com'));
	});

	it('honours the Bearer rule: without the JSON content type the service does not find the email', async () => {
		const direct = await fetch(`${sandbox.baseUrls.email}/v1/`, {
			method: 'POST',
			headers: { Authorization: `Bearer ${sandbox.keys.email}` },
			body: JSON.stringify({ email: 'jane.doe@acme.io' }),
		});
		expect(direct.status).toBe(400);
		sandbox.reset();

		const { items, error } = await email(['jane.doe@acme.io'], { sendAs: 'bearerJson' });
		expect(error).toBeUndefined();
		expect(items[0].json).toEqual(emailRecord('jane.doe@acme.io'));
		const [request] = sandbox.requests('email');
		expect(request.status).toBe(200);
		expect(request.headers['content-type']).toMatch(/^application\/json/);
	});
});

describe('Email reputation: records and pairing', () => {
	it('passes a malformed address through as the 2.2.2 result, not as an error', async () => {
		const { items, error } = await email(['not-an-email', 'user@', 'ok.person@acme.io']);
		expect(error).toBeUndefined();
		expect(items.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
		expect(items[0].json).toEqual(malformedEmailRecord('not-an-email'));
		expect(items[1].json).toEqual(malformedEmailRecord('user@'));
		const deliverability = items[0].json.email_deliverability as IDataObject;
		expect(deliverability).toEqual({
			status: 'undeliverable',
			status_detail: 'invalid_format',
			is_format_valid: false,
			is_smtp_valid: false,
			is_mx_valid: false,
			mx_records: [],
		});
		expect((items[0].json.email_breaches as IDataObject).breached_domains).toEqual([]);
		expect((items[0].json.email_quality as IDataObject).score).toBeNull();
		expect((items[2].json.email_deliverability as IDataObject).is_format_valid).toBe(true);
		expect(sandbox.requests('email').map((request) => request.status)).toEqual([200, 200, 200]);
	});

	it('returns each record unchanged, paired to its own input item, breach items with date_breached', async () => {
		const addresses = [
			'ana.silva@gmail.com',
			'john@gmial.com',
			'info+leads@acme.io',
			'temp123456@mailinator.com',
		];
		const { items, error } = await email(addresses);
		expect(error).toBeUndefined();
		expect(items.map((item) => item.pairedItem)).toEqual(addresses.map((_, item) => ({ item })));
		expect(items.map((item) => item.json)).toEqual(
			addresses.map((address) => emailRecord(address)),
		);
		expect(items[1].json.suggested_correction).toBe('john@gmail.com');
		const breaches = items.flatMap(
			(item) => (item.json.email_breaches as IDataObject).breached_domains as IDataObject[],
		);
		expect(breaches.length).toBeGreaterThan(0);
		for (const breach of breaches) expect(Object.keys(breach)).toEqual(['domain', 'date_breached']);
		expect(JSON.stringify(items)).not.toContain(sandbox.keys.email);
	});

	it('says the credits ran out when the email service answers 403 for a spent quota', async () => {
		sandbox.setQuota('email', 0, 403);
		const { error } = await email(['jane.doe@acme.io']);
		expect(error?.message).toMatch(/credits .*used up \(403\)/);
		expect(sandbox.requests('email')).toHaveLength(1);
	});
});

describe('Email reputation: input checks before any request', () => {
	it('rejects an empty email, naming the field', async () => {
		const { error, items } = await email(['']);
		expect(error?.message).toContain('Email (email)');
		expect(error?.message).toMatch(/required/);
		expect(items).toEqual([]);
		expect(sandbox.requests('email')).toEqual([]);
	});

	it('fails the run on a bad item among good ones before sending any of them', async () => {
		const { error } = await email(['a.b@acme.io', 'c.d@acme.io', ' ']);
		expect(error?.message).toContain('Email (email)');
		expect(error?.description).toContain('Item 3');
		expect(sandbox.requests('email')).toEqual([]);
	});

	it('with Continue On Fail makes the bad item a paired error item and sends the others', async () => {
		const { items, error } = await email(
			['a.b@acme.io', '', 'c.d@acme.io'],
			{},
			{ continueOnFail: true },
		);
		expect(error).toBeUndefined();
		expect(items.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
		expect(items[0].json).toEqual(emailRecord('a.b@acme.io'));
		expect(String(items[1].json.error)).toContain('Email (email)');
		expect(items[2].json).toEqual(emailRecord('c.d@acme.io'));
		expect(sandbox.requests('email').map((request) => request.fields.email)).toEqual([
			'a.b@acme.io',
			'c.d@acme.io',
		]);
	});
});
