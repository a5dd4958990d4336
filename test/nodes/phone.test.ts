import type { IDataObject } from 'n8n-workflow';

import { runNode } from '../harness/run';
import { sandboxCredential } from '../harness/sandboxCredentials';
import { startSandbox, type Sandbox } from '../sandbox/server';
import { phoneRecord } from '../sandbox/services/phone';

let sandbox: Sandbox;
beforeAll(async () => {
	sandbox = await startSandbox();
});
afterAll(async () => await sandbox.close());
beforeEach(() => sandbox.reset());

/** The node on items carrying `phone` (and `country`), the parameters read by expression. */
const phone = (
	rows: IDataObject[],
	options: IDataObject = {},
	extra: { continueOnFail?: boolean } = {},
) =>
	runNode({
		type: 'abstractPhone',
		parameters: { phone: '={{ $json.phone }}', options },
		credential: sandboxCredential(sandbox, 'phone'),
		items: rows.map((json) => ({ json })),
		...extra,
	});

const withCountry = { country: '={{ $json.country }}' };

describe('Phone intelligence: request forms', () => {
	it('sends by default a POST with a JSON body and the key as Bearer, nothing in the URL', async () => {
		const { items, error } = await phone(
			[{ phone: '+1 415 200 7986', country: 'US' }],
			withCountry,
		);
		expect(error).toBeUndefined();
		const [request] = sandbox.requests('phone');
		expect(sandbox.requests('phone')).toHaveLength(1);
		expect(request.method).toBe('POST');
		expect(request.path).toBe('/v1/');
		expect(request.query).toEqual({});
		expect(request.headers['content-type']).toMatch(/^application\/json/);
		expect(request.headers.authorization).toBe(`Bearer ${sandbox.keys.phone}`);
		expect(request.fields).toEqual({ phone: '+1 415 200 7986', country: 'US' });
		expect(items.map((item) => item.json)).toEqual([phoneRecord('+1 415 200 7986', 'US')]);
	});

	it('sends as a form body with api_key as a field when sendAs is form', async () => {
		const { items, error } = await phone([{ phone: '030 1234 5678', country: 'de' }], {
			...withCountry,
			sendAs: 'form',
		});
		expect(error).toBeUndefined();
		const [request] = sandbox.requests('phone');
		expect(request.method).toBe('POST');
		expect(request.path).toBe('/v1/');
		expect(request.query).toEqual({});
		expect(request.headers['content-type']).toMatch(/^application\/x-www-form-urlencoded/);
		expect(request.headers.authorization).toBeUndefined();
		expect(request.fields).toEqual({
			phone: '030 1234 5678',
			country: 'DE',
			api_key: sandbox.keys.phone,
		});
		expect(items[0].json).toEqual(phoneRecord('030 1234 5678', 'DE'));
		// The sandbox appended Germany's calling code to the national number, as the service does.
		expect((items[0].json.phone_format as IDataObject).international).toBe('+493012345678');
	});

	it('sends a GET with everything in the query when sendAs is query', async () => {
		const { items, error } = await phone([{ phone: '+442079460018' }], { sendAs: 'query' });
		expect(error).toBeUndefined();
		const [request] = sandbox.requests('phone');
		expect(request.method).toBe('GET');
		expect(request.query).toEqual({ phone: '+442079460018', api_key: sandbox.keys.phone });
		expect(request.fields).toEqual({});
		expect(request.headers.authorization).toBeUndefined();
		expect(items[0].json).toEqual(phoneRecord('+442079460018'));
		expect((items[0].json.phone_location as IDataObject).country_code).toBe('GB');
	});

	it('honours the Bearer rule: without the JSON content type the service does not find the phone', async () => {
		// The sandbox is strict: the same Bearer request with a JSON text but no JSON content type is a 400.
		const direct = await fetch(`${sandbox.baseUrls.phone}/v1/`, {
			method: 'POST',
			headers: { Authorization: `Bearer ${sandbox.keys.phone}` },
			body: JSON.stringify({ phone: '+14152007986' }),
		});
		expect(direct.status).toBe(400);
		sandbox.reset();

		const { items, error } = await phone([{ phone: '+14152007986' }], { sendAs: 'bearerJson' });
		expect(error).toBeUndefined();
		expect(items).toHaveLength(1);
		const [request] = sandbox.requests('phone');
		expect(request.status).toBe(200);
		expect(request.headers['content-type']).toMatch(/^application\/json/);
		expect(request.fields).toEqual({ phone: '+14152007986' });
	});

	it('leaves country out when none is given, and never puts the key in the output', async () => {
		const { items } = await phone([{ phone: '+61 2 9374 4000', country: '' }], withCountry);
		const [request] = sandbox.requests('phone');
		expect(request.fields).toEqual({ phone: '+61 2 9374 4000' });
		expect(items[0].json).toEqual(phoneRecord('+61 2 9374 4000'));
		expect(JSON.stringify(items)).not.toContain(sandbox.keys.phone);
	});
});

describe('Phone intelligence: records and pairing', () => {
	it('returns each record unchanged, paired to its own input item', async () => {
		const rows = [
			{ phone: '+14152007986', country: 'US' },
			{ phone: '+33 1 23 45 67 89', country: 'FR' },
			{ phone: '4165550123', country: 'CA' },
		];
		const { items, error } = await phone(rows, withCountry);
		expect(error).toBeUndefined();
		expect(items.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
		expect(items.map((item) => item.json)).toEqual(
			rows.map((row) => phoneRecord(row.phone, row.country)),
		);
		expect(items.map((item) => (item.json.phone_location as IDataObject).country_code)).toEqual([
			'US',
			'FR',
			'CA',
		]);
		expect(sandbox.requests('phone').map((request) => request.fields.phone)).toEqual(
			rows.map((row) => row.phone),
		);
	});

	it('keeps the whole 2.1 record: nested groups and breach items with breach_date', async () => {
		const { items } = await phone([{ phone: '+14152007986' }]);
		const record = items[0].json;
		expect(Object.keys(record)).toEqual([
			'phone_number',
			'phone_format',
			'phone_carrier',
			'phone_location',
			'phone_messaging',
			'phone_validation',
			'phone_registration',
			'phone_risk',
			'phone_breaches',
		]);
		const breaches = record.phone_breaches as IDataObject;
		const domains = breaches.breached_domains as IDataObject[];
		expect(domains.length).toBe(breaches.total_breaches);
		expect(Object.keys(domains[0])).toEqual(['domain', 'breach_date']);
	});
});

describe('Phone intelligence: input checks before any request', () => {
	it('rejects an empty phone, naming the field', async () => {
		const { error, items } = await phone([{ phone: '  ' }]);
		expect(error?.message).toContain('Phone (phone)');
		expect(error?.message).toMatch(/required/);
		expect(items).toEqual([]);
		expect(sandbox.requests('phone')).toEqual([]);
	});

	it('rejects a country outside the service list, naming the field', async () => {
		const { error } = await phone([{ phone: '+14152007986', country: 'XX' }], withCountry);
		expect(error?.message).toContain('Country (country)');
		expect(error?.message).toContain('"XX"');
		expect(sandbox.requests('phone')).toEqual([]);
	});

	it('rejects an unknown sendAs given by expression', async () => {
		const { error } = await phone([{ phone: '+14152007986' }], { sendAs: '={{ "xml" }}' });
		expect(error?.message).toContain('Send As (sendAs)');
		expect(sandbox.requests('phone')).toEqual([]);
	});

	it('fails the run on a bad item among good ones before sending any of them', async () => {
		const { error } = await phone([
			{ phone: '+14152007986' },
			{ phone: '+14152007987' },
			{ phone: '' },
			{ phone: '+14152007988' },
		]);
		expect(error?.message).toContain('Phone (phone)');
		expect(error?.description).toContain('Item 3');
		expect(sandbox.requests('phone')).toEqual([]);
	});

	it('with Continue On Fail makes the bad item a paired error item and sends the others', async () => {
		const { items, error } = await phone(
			[
				{ phone: '+14152007986', country: 'US' },
				{ phone: '+14152007987', country: 'ZZ' },
				{ phone: '+14152007988', country: 'US' },
			],
			withCountry,
			{ continueOnFail: true },
		);
		expect(error).toBeUndefined();
		expect(items.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
		expect(items[0].json).toEqual(phoneRecord('+14152007986', 'US'));
		expect(String(items[1].json.error)).toContain('Country (country)');
		expect(items[2].json).toEqual(phoneRecord('+14152007988', 'US'));
		expect(sandbox.requests('phone').map((request) => request.fields.phone)).toEqual([
			'+14152007986',
			'+14152007988',
		]);
	});
});
