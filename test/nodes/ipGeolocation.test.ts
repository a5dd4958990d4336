import type { IDataObject } from 'n8n-workflow';

import { runNode } from '../harness/run';
import { sandboxCredential } from '../harness/sandboxCredentials';
import { startSandbox, type Sandbox } from '../sandbox/server';
import { CALLER_ADDRESS, geoRecord } from '../sandbox/services/geo';

let sandbox: Sandbox;
beforeAll(async () => {
	sandbox = await startSandbox();
});
afterAll(async () => await sandbox.close());
beforeEach(() => sandbox.reset());

/** The node on items carrying `ip`, the parameter read by expression. */
const locate = (
	addresses: string[],
	options: IDataObject = {},
	extra: { continueOnFail?: boolean } = {},
) =>
	runNode({
		type: 'abstractIpGeolocation',
		parameters: { ipAddress: '={{ $json.ip }}', options },
		credential: sandboxCredential(sandbox, 'geo'),
		items: addresses.map((ip) => ({ json: { ip } })),
		...extra,
	});

const pick = (record: IDataObject, keys: string[]) =>
	Object.fromEntries(Object.entries(record).filter(([key]) => keys.includes(key)));

describe('IP geolocation: requests and records', () => {
	it('sends ip_address and the key in the query of GET /v1/ and returns the record unchanged', async () => {
		const { items, error } = await locate(['8.8.8.8', '2a03:2880:f12f:83:face:b00c:0:25de']);
		expect(error).toBeUndefined();
		const requests = sandbox.requests('geo');
		expect(requests).toHaveLength(2);
		expect(requests[0].method).toBe('GET');
		expect(requests[0].path).toBe('/v1/');
		expect(requests[0].query).toEqual({ ip_address: '8.8.8.8', api_key: sandbox.keys.geo });
		expect(requests[1].query.ip_address).toBe('2a03:2880:f12f:83:face:b00c:0:25de');
		expect(items.map((item) => item.json)).toEqual([
			geoRecord('8.8.8.8'),
			geoRecord('2a03:2880:f12f:83:face:b00c:0:25de'),
		]);
		expect(items[0].json.city).toBe('Mountain View');
		expect(items.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }]);
		expect(JSON.stringify(items)).not.toContain(sandbox.keys.geo);
	});

	it('leaves ip_address out for an empty address, so the service locates the caller', async () => {
		const { items, error } = await locate(['', '   ']);
		expect(error).toBeUndefined();
		// Both items ask for the caller's own record: one request answers both.
		expect(sandbox.requests('geo')).toHaveLength(1);
		for (const request of sandbox.requests('geo')) {
			expect(request.query).toEqual({ api_key: sandbox.keys.geo });
		}
		expect(items.map((item) => item.json)).toEqual([
			geoRecord(CALLER_ADDRESS),
			geoRecord(CALLER_ADDRESS),
		]);
	});

	it('sends the chosen fields comma-separated and outputs only those keys', async () => {
		const { items, error } = await locate(['81.2.69.142'], {
			fields: ['country', 'city', 'timezone'],
		});
		expect(error).toBeUndefined();
		const [request] = sandbox.requests('geo');
		expect(request.query).toEqual({
			ip_address: '81.2.69.142',
			fields: 'country,city,timezone',
			api_key: sandbox.keys.geo,
		});
		expect(Object.keys(items[0].json).sort()).toEqual(['city', 'country', 'timezone']);
		expect(items[0].json).toEqual(pick(geoRecord('81.2.69.142'), ['country', 'city', 'timezone']));
	});

	it('accepts fields from an expression as comma-separated text', async () => {
		const { items } = await locate(['81.2.69.142'], { fields: '={{ "flag, currency" }}' });
		expect(sandbox.requests('geo')[0].query.fields).toBe('flag,currency');
		expect(items[0].json).toEqual(pick(geoRecord('81.2.69.142'), ['flag', 'currency']));
	});

	it('turns a 204 into a paired item that says there is no location data', async () => {
		const { items, error } = await locate(['81.2.69.142', '192.0.2.10', '2001:db8::1']);
		expect(error).toBeUndefined();
		expect(sandbox.requests('geo').map((request) => request.status)).toEqual([200, 204, 204]);
		expect(items).toHaveLength(3);
		expect(items.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
		expect(items[0].json).toEqual(geoRecord('81.2.69.142'));
		expect(items[1].json).toEqual({
			ip_address: '192.0.2.10',
			no_data: true,
			message: 'The service has no location data for 192.0.2.10',
		});
		expect(items[2].json).toMatchObject({ ip_address: '2001:db8::1', no_data: true });
	});
});

describe('IP geolocation: input checks before any request', () => {
	it.each([['999.1.1.1'], ['not-an-ip'], ['1.2.3'], ['2001:db8::1::2']])(
		'rejects %s, naming the field',
		async (address) => {
			const { error, items } = await locate([address]);
			expect(error?.message).toContain('IP Address (ipAddress)');
			expect(error?.message).toContain(`"${address}"`);
			expect(items).toEqual([]);
			expect(sandbox.requests('geo')).toEqual([]);
		},
	);

	it('rejects a field that is not a top-level key of the record', async () => {
		const { error } = await locate(['8.8.8.8'], { fields: '={{ "country,zip" }}' });
		expect(error?.message).toContain('Fields (fields)');
		expect(error?.message).toContain('"zip"');
		expect(sandbox.requests('geo')).toEqual([]);
	});

	it('fails the run on a bad item among good ones before sending any of them', async () => {
		const { error } = await locate(['8.8.8.8', '1.1.1.1', '999.1.1.1', '9.9.9.9']);
		expect(error?.message).toContain('IP Address (ipAddress)');
		expect(error?.description).toContain('Item 3');
		expect(sandbox.requests('geo')).toEqual([]);
	});

	it('with Continue On Fail makes the bad item a paired error item and sends the others', async () => {
		const { items, error } = await locate(
			['8.8.8.8', 'not-an-ip', '1.1.1.1'],
			{},
			{ continueOnFail: true },
		);
		expect(error).toBeUndefined();
		expect(items.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
		expect(items[0].json).toEqual(geoRecord('8.8.8.8'));
		expect(String(items[1].json.error)).toContain('IP Address (ipAddress)');
		expect(items[2].json).toEqual(geoRecord('1.1.1.1'));
		expect(sandbox.requests('geo').map((request) => request.query.ip_address)).toEqual([
			'8.8.8.8',
			'1.1.1.1',
		]);
	});
});
