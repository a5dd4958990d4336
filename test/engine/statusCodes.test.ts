import { shortenRetryBudget } from '../harness/retryBudget';
import { startSandbox, type Sandbox } from '../sandbox/server';
import type { Fault } from '../sandbox/types';
import { everythingIn, runIban, VALID_IBANS } from './ibanRun';

/** Every status code the lookup services answer (400, 401, 422, 429, 500, 503), through the engine, as a person reads it in n8n. */
let sandbox: Sandbox;
let restoreBudget: () => void;
beforeAll(async () => {
	sandbox = await startSandbox();
	restoreBudget = shortenRetryBudget(1500);
});
afterAll(async () => {
	restoreBudget();
	await sandbox.close();
});
beforeEach(() => sandbox.reset());

const [iban] = VALID_IBANS;

describe('status codes of 7.1', () => {
	it('200: the record as it came', async () => {
		const { items, error } = await runIban(sandbox, [iban]);
		expect(error).toBeUndefined();
		expect(items[0].json).toEqual({ iban, is_valid: true });
	});

	it('400: named as a malformed request, the service message quoted, sent once', async () => {
		sandbox.inject('iban', {
			kind: 'status',
			status: 400,
			message: 'Parameter iban is malformed.',
		});
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

	it("422: the plan's credits ran out; sent once", async () => {
		sandbox.setQuota('iban', 0);
		const { error } = await runIban(sandbox, [iban]);
		expect(error?.message).toMatch(/credits for IBAN Validation are used up \(422\)/);
		expect(error?.httpCode).toBe('422');
		expect(sandbox.requests('iban')).toHaveLength(1);
	});

	// Retries are bounded by time (two minutes in the product); shortened here to 1.5 s.
	const always = (fault: Fault) => sandbox.faultPattern('iban', { every: 1, faults: [fault] });

	it.each([429, 500, 503])(
		'%i that lasts: retried for the time budget, then named with how long and how many requests',
		async (status) => {
			always({ kind: 'status', status, retryAfter: 0 });
			const { error } = await runIban(sandbox, [iban]);
			const requests = sandbox.requests('iban').length;
			expect(requests).toBeGreaterThan(2);
			expect(error?.message).toContain(`(${status})`);
			expect(error?.message).toMatch(new RegExp(`for \\d+\\.\\d s \\(${requests} requests\\)`));
			expect(error?.httpCode).toBe(String(status));
		},
	);

	it('429 that lasts, pacing off: the message says pacing is off and what to set', async () => {
		always({ kind: 'status', status: 429, retryAfter: 0 });
		const { error } = await runIban(sandbox, [iban]);
		expect(error?.message).toMatch(/pacing is off .*Set Requests per Second to your plan's rate/);
	});

	it('429 that lasts although paced: the message says the node paces to N/s and others may share the key', async () => {
		always({ kind: 'status', status: 429 });
		const { error } = await runIban(sandbox, [iban], { credential: { requestsPerSecond: 5 } });
		expect(error?.message).toMatch(
			/although this node paces its requests to 5 per second; other executions, workers or tools may be using the same key/,
		);
		expect(error?.message).not.toMatch(/Set Requests per Second to your plan's rate/);
	});

	it('a Retry-After beyond the budget: the node stops at once and says so', async () => {
		sandbox.inject('iban', { kind: 'status', status: 429, retryAfter: 600 });
		const { error } = await runIban(sandbox, [iban]);
		expect(error?.message).toMatch(/asked to wait 600 s more, beyond the retry time budget/);
		expect(sandbox.requests('iban')).toHaveLength(1);
	});

	it('a dropped connection, every time: a network error naming the host, never the URL', async () => {
		always({ kind: 'drop' });
		const { error } = await runIban(sandbox, [iban]);
		expect(error?.message).toMatch(
			/Could not reach the IBAN Validation service at 127\.0\.0\.1:\d+: the connection was closed before an answer came; it kept failing for \d+\.\d s \(\d+ requests\)/,
		);
		expect(error?.description).toMatch(/ECONNRESET/);
		expect(everythingIn(error)).not.toContain(sandbox.keys.iban);
		expect(sandbox.requests('iban').length).toBeGreaterThan(2);
	});

	it('a Base URL with a trailing slash keeps its path prefix', async () => {
		const { items } = await runIban(sandbox, [iban], {
			credential: { baseUrl: `${sandbox.baseUrls.iban}/` },
		});
		expect(items[0].json.is_valid).toBe(true);
		expect(sandbox.requests('iban')[0].path).toBe('/v1/');
	});

	it('a Base URL that is not http(s) is refused before any request', async () => {
		const { error } = await runIban(sandbox, [iban], {
			credential: { baseUrl: 'ftp://127.0.0.1/iban' },
		});
		expect(error?.message).toMatch(/Base URL/);
		expect(sandbox.log).toHaveLength(0);
	});
});
