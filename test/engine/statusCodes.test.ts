import { startSandbox, type Sandbox } from '../sandbox/server';
import { everythingIn, runIban, VALID_IBANS } from './ibanRun';

/** Every status code of contract 7.1, through the engine, as a person reads it in n8n. */
let sandbox: Sandbox;
beforeAll(async () => {
	sandbox = await startSandbox();
});
afterAll(async () => await sandbox.close());
beforeEach(() => sandbox.reset());

const [iban] = VALID_IBANS;

describe('status codes of 7.1', () => {
	it('200: the record as it came', async () => {
		const { items, error } = await runIban(sandbox, [iban]);
		expect(error).toBeUndefined();
		expect(items[0].json).toEqual({ iban, is_valid: true });
	});

	it('400: named as a malformed request, the service message quoted, sent once', async () => {
		sandbox.inject('iban', { kind: 'status', status: 400, message: 'Parameter iban is malformed.' });
		const { error } = await runIban(sandbox, [iban]);
		expect(error?.message).toMatch(/rejected the request as malformed \(400\)/);
		expect(error?.description).toContain('"Parameter iban is malformed."');
		expect(error?.httpCode).toBe('400');
		expect(sandbox.requests('iban')).toHaveLength(1);
	});

	it('401: the key was rejected, and keys are per service; sent once', async () => {
		// A key of another service: the sandbox, like the live suite, rejects it here.
		const { error } = await runIban(sandbox, [iban], { credential: { apiKey: sandbox.keys.vat } });
		expect(error?.message).toMatch(/API key was rejected \(401\)/);
		expect(error?.message).toMatch(/Keys are per service.*IBAN Validation/);
		expect(error?.description).toContain('"Invalid API key provided."');
		expect(sandbox.requests('iban')).toHaveLength(1);
		expect(everythingIn(error)).not.toContain(sandbox.keys.vat);
	});

	it('422: the plan\'s credits ran out; sent once', async () => {
		sandbox.setQuota('iban', 0);
		const { error } = await runIban(sandbox, [iban]);
		expect(error?.message).toMatch(/credits for IBAN Validation are used up \(422\)/);
		expect(error?.httpCode).toBe('422');
		expect(sandbox.requests('iban')).toHaveLength(1);
	});

	it.each([429, 500, 503])('%i: retried, then named with the number of retries', async (status) => {
		const fault = { kind: 'status' as const, status, retryAfter: 0 };
		sandbox.inject('iban', fault, fault, fault, fault, fault);
		const { error } = await runIban(sandbox, [iban]);
		expect(error?.message).toMatch(new RegExp(`\\(${status}\\).*still after 4 retries|still after 4 retries`));
		expect(error?.message).toContain(`(${status})`);
		expect(error?.httpCode).toBe(String(status));
		expect(sandbox.requests('iban')).toHaveLength(5);
	});

	it('429 after retries tells the person to lower Requests per Second', async () => {
		const fault = { kind: 'status' as const, status: 429, retryAfter: 0 };
		sandbox.inject('iban', fault, fault, fault, fault, fault);
		const { error } = await runIban(sandbox, [iban]);
		expect(error?.message).toMatch(/Set the credential's Requests per Second to your plan's rate/);
	});

	it('a dropped connection, every time: a network error naming the host, never the URL', async () => {
		sandbox.inject('iban', { kind: 'drop' }, { kind: 'drop' }, { kind: 'drop' }, { kind: 'drop' }, { kind: 'drop' });
		const { error } = await runIban(sandbox, [iban]);
		expect(error?.message).toMatch(/Could not reach the IBAN Validation service at 127\.0\.0\.1:\d+: the connection was closed before an answer came, still after 4 retries/);
		expect(error?.description).toMatch(/ECONNRESET/);
		expect(everythingIn(error)).not.toContain(sandbox.keys.iban);
		expect(sandbox.requests('iban')).toHaveLength(5);
	});

	it('a Base URL with a trailing slash keeps its path prefix', async () => {
		const { items } = await runIban(sandbox, [iban], { credential: { baseUrl: `${sandbox.baseUrls.iban}/` } });
		expect(items[0].json.is_valid).toBe(true);
		expect(sandbox.requests('iban')[0].path).toBe('/v1/');
	});

	it('a Base URL that is not http(s) is refused before any request', async () => {
		const { error } = await runIban(sandbox, [iban], { credential: { baseUrl: 'ftp://127.0.0.1/iban' } });
		expect(error?.message).toMatch(/Base URL/);
		expect(sandbox.log).toHaveLength(0);
	});
});
