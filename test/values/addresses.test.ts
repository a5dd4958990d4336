import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { runNode, type InputItem } from '../harness/run';
import { sandboxCredential } from '../harness/sandboxCredentials';
import { startSandbox, type Sandbox } from '../sandbox/server';
import { quoted } from '../../nodes/shared/values/quoted';
import { addresses, csvFileOf, errorMessage, pairedIndex } from './corpora';

/**
 * Email addresses as RFC 5322 writes them, in Company Enrichment (which looks up their domain)
 * and Email Reputation (which sends the address). The corpus (corpora/addresses.json, each case
 * naming its source): RFC 5322's Appendix A address fields, display names and comments included;
 * RFC 3696 section 3's local parts as its erratum 246 corrects them, and as printed; addresses in
 * UTF-8 at internationalised domains (RFC 6531, RFC 6532); RFC 2606 and RFC 6761's reserved
 * names; and forms RFC 5322's grammar and DNS's limits allow or refuse. Each case holds the domain
 * to look up, or null for a refusal.
 */

let sandbox: Sandbox;
beforeAll(async () => {
	sandbox = await startSandbox();
});
afterAll(async () => await sandbox.close());
beforeEach(() => sandbox.reset());

const { cases } = addresses;
const lookedUp = cases.filter((test) => test.domain !== null);
const inBrackets = cases.filter((test) => test.address !== undefined);

/** The node run with "Continue (using error output)", every value sent (no webmail skip, repeats sent again). */
const run = (type: string, items: InputItem[], parameters: IDataObject) =>
	runNode({
		type,
		parameters: {
			...parameters,
			options: {
				sendRepeatsOnce: false,
				...(type === 'abstractCompany' ? { skipWebmail: false } : {}),
				...(parameters.options as IDataObject),
			},
		},
		credential: sandboxCredential(sandbox, type === 'abstractCompany' ? 'company' : 'email'),
		items,
		onError: 'continueErrorOutput',
	});

/** Each input's outcome: the domain its output names, or null when it went to the error output. */
function outcomes(
	count: number,
	items: INodeExecutionData[],
	errorItems: INodeExecutionData[],
	indexOf: (item: INodeExecutionData, position: number) => number,
) {
	const outcome: Array<string | null> = new Array<string | null>(count).fill('missing');
	items.forEach(
		(item, position) => (outcome[indexOf(item, position)] = String(item.json.lookupDomain)),
	);
	for (const item of errorItems) {
		expect(errorMessage(item)).toMatch(/^Invalid Domain \((domain|row \d+.*column 1)\): /);
		outcome[indexOf(item, -1)] = null;
	}
	return outcome;
}

describe('Company Enrichment: addresses from the RFCs', () => {
	it(`looks up the domain of each of the ${lookedUp.length} addresses it should, and refuses the other ${cases.length - lookedUp.length}, one value per item`, async () => {
		const { items, errorItems } = await run(
			'abstractCompany',
			cases.map((test) => ({ json: { domain: test.value } })),
			{ domain: '={{ $json.domain }}' },
		);
		const got = outcomes(cases.length, items, errorItems, (item) => pairedIndex(item));
		expect(cases.map((test, index) => ({ value: test.value, domain: got[index] }))).toEqual(
			cases.map(({ value, domain }) => ({ value, domain })),
		);
		expect(sandbox.requests('company').map((request) => request.query.domain)).toEqual(
			lookedUp.map((test) => test.domain),
		);
		for (const item of errorItems)
			expect(errorMessage(item)).toContain(`got ${quoted(cases[pairedIndex(item)].value)}`);
	});

	it('gives the same outcomes from a CSV file, one row per address', async () => {
		const { items, errorItems } = await run(
			'abstractCompany',
			[
				csvFileOf(
					'domain',
					cases.map((test) => test.value),
				),
			],
			{
				input: 'csvFile',
				binaryPropertyName: 'data',
				domainColumn: 'domain',
				options: { headerRow: 'yes' },
			},
		);
		// A data row's number counts the header row as row 1, in errors and in csvRow alike.
		const rowOf = (item: INodeExecutionData) =>
			Number(/\(row (\d+)/.exec(errorMessage(item))?.[1]) - 2;
		const got = outcomes(cases.length, items, errorItems, (item, position) =>
			position >= 0 ? Number((item.json.csvRow as IDataObject).number) - 2 : rowOf(item),
		);
		expect(cases.map((test, index) => ({ value: test.value, domain: got[index] }))).toEqual(
			cases.map(({ value, domain }) => ({ value, domain })),
		);
	});

	it('refuses a reserved top-level domain (.example, .test, .invalid, .localhost) naming the rule', async () => {
		const reserved = cases.filter((test) =>
			/\.(example|test|invalid|localhost)>?$/.test(test.value),
		);
		expect(reserved.length).toBeGreaterThan(5);
		const { items, errorItems } = await run(
			'abstractCompany',
			reserved.map((test) => ({ json: { domain: test.value } })),
			{ domain: '={{ $json.domain }}' },
		);
		expect(items).toEqual([]);
		expect(errorItems).toHaveLength(reserved.length);
		for (const item of errorItems)
			expect(errorMessage(item)).toMatch(
				/top-level domain "\.(example|test|invalid|localhost)" is not in the DNS root zone/,
			);
	});
});

describe('Email Reputation: addresses from the RFCs', () => {
	/**
	 * Values longer than any email address (RFC 5321: 254 octets), refused before any request: the
	 * corpus's address past DNS's limits. Every other value is sent.
	 */
	const overLong = (test: (typeof cases)[number]) => (test.address ?? test.value).length > 254;
	const sentCases = cases.filter((test) => !overLong(test));
	/** What the node must send for a case: the address in the brackets of `Name <address>`, any other value as typed. */
	const sent = sentCases.map((test) => test.address ?? test.value);
	const refusedForLength = (errorItems: INodeExecutionData[]) => {
		expect(cases.filter(overLong)).toHaveLength(1);
		expect(errorItems.map(errorMessage)).toEqual([
			expect.stringMatching(/: is 263 characters long, more than 254: no email address is longer/),
		]);
	};

	it('sends the address in the brackets and names it in lookupEmail; every other value as typed, one value per item', async () => {
		const { items, errorItems } = await run(
			'abstractEmail',
			cases.map((test) => ({ json: { email: test.value } })),
			{ email: '={{ $json.email }}' },
		);
		refusedForLength(errorItems);
		expect(sandbox.requests('email').map((request) => String(request.fields.email))).toEqual(sent);
		expect(items.map((item) => item.json.lookupEmail)).toEqual(
			sentCases.map((test) => test.address),
		);
	});

	it('does the same for a CSV file of them, each row item naming the address sent', async () => {
		const { items, errorItems } = await run(
			'abstractEmail',
			[
				csvFileOf(
					'email',
					cases.map((test) => test.value),
				),
			],
			{ input: 'csvFile', binaryPropertyName: 'data', emailColumn: 'email' },
		);
		refusedForLength(errorItems);
		expect(sandbox.requests('email').map((request) => String(request.fields.email))).toEqual(sent);
		expect(items.map((item) => item.json.lookupEmail)).toEqual(
			sentCases.map((test) => test.address),
		);
		expect(inBrackets.length).toBeGreaterThan(5);
	});

	it('sends one request for an address written bare and as Name <address>, in items and in a CSV file; each item names what it was given', async () => {
		const values = ['ada@acme.com', 'Ada Lovelace <ada@acme.com>', '<ada@acme.com>'];
		const single = await runNode({
			type: 'abstractEmail',
			parameters: { email: '={{ $json.email }}' },
			credential: sandboxCredential(sandbox, 'email'),
			items: values.map((email) => ({ json: { email } })),
		});
		expect(single.error).toBeUndefined();
		expect(sandbox.requests('email').map((request) => String(request.fields.email))).toEqual([
			'ada@acme.com',
		]);
		expect(single.items.map((item) => item.json.lookupEmail)).toEqual([
			undefined,
			'ada@acme.com',
			'ada@acme.com',
		]);
		sandbox.reset();
		const file = await runNode({
			type: 'abstractEmail',
			parameters: { input: 'csvFile', binaryPropertyName: 'data', emailColumn: 'email' },
			credential: sandboxCredential(sandbox, 'email'),
			items: [csvFileOf('email', values)],
		});
		expect(file.error).toBeUndefined();
		expect(sandbox.requests('email')).toHaveLength(1);
		expect(file.items.map((item) => item.json.lookupEmail)).toEqual([
			undefined,
			'ada@acme.com',
			'ada@acme.com',
		]);
	});
});
