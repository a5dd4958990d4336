import { runNode } from '../harness/run';
import { sandboxCredential } from '../harness/sandboxCredentials';
import { startSandbox, type Sandbox } from '../sandbox/server';

let sandbox: Sandbox;
beforeAll(async () => {
	sandbox = await startSandbox();
});
afterAll(async () => await sandbox.close());
beforeEach(() => sandbox.reset());

const iban = (items: string[], extra: { continueOnFail?: boolean } = {}) =>
	runNode({
		type: 'abstractIban',
		parameters: { iban: '={{ $json.iban }}' },
		credential: sandboxCredential(sandbox, 'iban'),
		items: items.map((value) => ({ json: { iban: value } })),
		...extra,
	});

describe('IBAN validation', () => {
	it('validates spaced and compact IBANs, one paired item each, key in the query', async () => {
		const { items, error } = await iban(['DE89 3704 0044 0532 0130 00', 'DE89370400440532013001']);
		expect(error).toBeUndefined();
		expect(items.map((item) => item.json)).toEqual([
			{ iban: 'DE89 3704 0044 0532 0130 00', is_valid: true },
			{ iban: 'DE89370400440532013001', is_valid: false },
		]);
		expect(items.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }]);
		const requests = sandbox.requests('iban');
		expect(requests).toHaveLength(2);
		expect(requests[0].path).toBe('/v1/');
		expect(requests[0].query).toEqual({
			iban: 'DE89 3704 0044 0532 0130 00',
			api_key: sandbox.keys.iban,
		});
	});
});
