import path from 'path';

import { ROOT } from '../harness/nodeTypes';
import { startSandbox, type Sandbox } from '../sandbox/server';
import { runIban, VALID_IBANS } from './ibanRun';

/**
 * A credential whose Base URL is left empty stands for the service's live address: the engine
 * sends there and the credential's `authenticate` lets the key go there (that it goes nowhere
 * else is test/credentials.test.ts's). The
 * tests must not reach the internet, so the live address of IBAN validation is pointed at the
 * sandbox for the duration, in the very table the built package reads.
 */
const { LIVE_BASE_URLS } = require(path.join(ROOT, 'dist/credentials/shared/liveBaseUrls.js')) as {
	LIVE_BASE_URLS: Record<string, string>;
};

let sandbox: Sandbox;
let live: string;
beforeAll(async () => {
	sandbox = await startSandbox();
	live = LIVE_BASE_URLS.abstractIbanApi;
	LIVE_BASE_URLS.abstractIbanApi = sandbox.baseUrls.iban;
});
afterAll(async () => {
	LIVE_BASE_URLS.abstractIbanApi = live;
	await sandbox.close();
});
beforeEach(() => sandbox.reset());

describe('an empty Base URL', () => {
	it('is the live address of IBAN validation', () => {
		expect(live).toBe('https://ibanvalidation.abstractapi.com');
	});

	it.each([[''], ['   '], [undefined]])(
		'(%p) sends to the live address, key included, through the engine',
		async (baseUrl) => {
			const { items, error } = await runIban(sandbox, [VALID_IBANS[0]], {
				credential: { baseUrl },
			});
			expect(error).toBeUndefined();
			expect(items[0].json.is_valid).toBe(true);
			const [request] = sandbox.requests('iban');
			expect(request.path).toBe('/v1/');
			expect(request.query.api_key).toBe(sandbox.keys.iban);
		},
	);
});
