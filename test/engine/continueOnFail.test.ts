import { startSandbox, type Sandbox } from '../sandbox/server';
import { runIban, VALID_IBANS } from './ibanRun';

/** Continue On Fail: failed items become paired error items, the others go on. */
let sandbox: Sandbox;
beforeAll(async () => {
	sandbox = await startSandbox();
});
afterAll(async () => await sandbox.close());
beforeEach(() => sandbox.reset());

describe('Continue On Fail', () => {
	it('a bad input and a refused request become paired error items; the other items succeed', async () => {
		const ibans = [VALID_IBANS[0], '   ', VALID_IBANS[1], VALID_IBANS[2]];
		sandbox.setQuota('iban', 2);
		const { items, error } = await runIban(sandbox, ibans, { continueOnFail: true });
		expect(error).toBeUndefined();
		expect(items).toHaveLength(4);
		expect(items.map((item) => item.pairedItem)).toEqual([0, 1, 2, 3].map((item) => ({ item })));
		expect(items[1].json.error).toMatch(/Invalid IBAN \(iban\): is required/);
		const sent = [0, 2, 3].map((index) => items[index].json);
		// Two credits: two items succeed with their own record, the third is the 422 error item.
		expect(sent.filter((json) => json.is_valid === true)).toHaveLength(2);
		const failed = sent.filter((json) => json.error !== undefined);
		expect(failed).toHaveLength(1);
		expect(String(failed[0].error)).toMatch(/\(422\)/);
		for (const index of [0, 2, 3]) {
			if (items[index].json.is_valid) expect(items[index].json.iban).toBe(ibans[index]);
		}
		// The bad input was never sent.
		expect(sandbox.requests('iban')).toHaveLength(3);
	});

	it('without Continue On Fail, one bad row stops the run before any request', async () => {
		const { error, items } = await runIban(sandbox, [VALID_IBANS[0], '', VALID_IBANS[1]]);
		expect(error?.message).toMatch(/Invalid IBAN \(iban\)/);
		expect(items).toHaveLength(0);
		expect(sandbox.log).toHaveLength(0);
	});
});
