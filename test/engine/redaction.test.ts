import { shortenRetryBudget } from '../harness/retryBudget';
import { startSandbox, type Sandbox } from '../sandbox/server';
import { everythingIn, runIban, VALID_IBANS } from './ibanRun';

/** The API key appears in no output item and no error, whatever the status. */
let sandbox: Sandbox;
let restoreBudget: () => void;
beforeAll(async () => {
	sandbox = await startSandbox();
	// Failures that last are retried for the time budget: two minutes in the product, 0.8 s here.
	restoreBudget = shortenRetryBudget(800);
});
afterAll(async () => {
	restoreBudget();
	await sandbox.close();
});
beforeEach(() => sandbox.reset());

const [iban] = VALID_IBANS;

describe('key redaction', () => {
	it.each([400, 401, 403, 404, 422, 429, 500, 503])(
		'status %i, even when the service echoes the key: not in the error, nor in Continue On Fail items',
		async (status) => {
			const key = sandbox.keys.iban;
			const fault = {
				kind: 'status' as const,
				status,
				retryAfter: 0,
				message: `Rejected request with key ${key}.`,
			};
			sandbox.faultPattern('iban', { every: 1, faults: [fault] });
			const stopped = await runIban(sandbox, [iban]);
			expect(stopped.error).toBeDefined();
			expect(stopped.error?.description).toContain('[redacted]');
			expect(everythingIn(stopped.error)).not.toContain(key);

			const continued = await runIban(sandbox, [iban], { continueOnFail: true });
			expect(continued.items[0].json.error).toBeDefined();
			expect(JSON.stringify(continued.items)).not.toContain(key);
		},
	);

	it('a dropped connection and a success carry no key either', async () => {
		const key = sandbox.keys.iban;
		const success = await runIban(sandbox, [iban]);
		expect(JSON.stringify(success.items)).not.toContain(key);
		sandbox.faultPattern('iban', { every: 1, faults: [{ kind: 'drop' }] });
		const dropped = await runIban(sandbox, [iban], { continueOnFail: true });
		expect(JSON.stringify(dropped.items)).not.toContain(key);
	});
});
