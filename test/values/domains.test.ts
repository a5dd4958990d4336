import { toASCII } from 'punycode';

import type { IDataObject } from 'n8n-workflow';

import { runNode, type InputItem } from '../harness/run';
import { sandboxCredential } from '../harness/sandboxCredentials';
import { startSandbox, type Sandbox } from '../sandbox/server';
import { quoted } from '../../nodes/shared/values/quoted';
import { csvFileOf, domains, errorMessage, pairedIndex } from './corpora';

/**
 * Company Enrichment's domains, read as browsers read hosts (the WHATWG URL parser, IDNA per
 * UTS #46) and sent in the ASCII form DNS uses. The corpus (corpora/domains.json): `example.<tld>`
 * for every internationalised top-level domain of the root zone (tlds 1.261.0, IANA's list), in
 * Unicode and in punycode as the punycode package (2.3.1, RFC 3492) writes it; and the top-level
 * names RFC 2606 and RFC 6761 reserve. Expected forms come from the punycode package, not from
 * the parser under test.
 */

let sandbox: Sandbox;
beforeAll(async () => {
	sandbox = await startSandbox();
});
afterAll(async () => await sandbox.close());
beforeEach(() => sandbox.reset());

const company = (items: InputItem[], parameters: IDataObject) =>
	runNode({
		type: 'abstractCompany',
		parameters: { ...parameters, options: { skipWebmail: false } },
		credential: sandboxCredential(sandbox, 'company'),
		items,
		onError: 'continueErrorOutput',
	});
const byItem = (values: string[]) =>
	company(
		values.map((domain) => ({ json: { domain } })),
		{ domain: '={{ $json.domain }}' },
	);
const byFile = (values: string[]) =>
	company([csvFileOf('domain', values)], {
		input: 'csvFile',
		binaryPropertyName: 'data',
		domainColumn: 'domain',
	});
const sent = () => sandbox.requests('company').map((request) => String(request.query.domain));

const { internationalised, reserved } = domains;
const unicode = internationalised.map((entry) => entry.unicode);
const ascii = internationalised.map((entry) => entry.ascii);

/** Names in the forms UTS #46 maps, each with the ASCII form it stands for. */
const MAPPED: Array<[typed: string, sent: string, form: string]> = [
	['mu\u0308nchen.de', 'xn--mnchen-3ya.de', 'decomposed (as macOS writes file names)'],
	['Ｅｘａｍｐｌｅ．ｃｏｍ', 'example.com', 'full-width letters and dot'],
	['ＡＣＭＥ.com', 'acme.com', 'full-width capitals'],
	['MÜNCHEN.DE', 'xn--mnchen-3ya.de', 'capitals'],
	['उदाहरण.भारत', toASCII('उदाहरण.भारत'), 'Devanagari, with combining marks'],
	['สวัสดี.ไทย', toASCII('สวัสดี.ไทย'), 'Thai, with combining marks'],
	['ශ්‍රී.lk', toASCII('ශ්‍රී.lk'), 'Sinhala with a zero-width joiner'],
	['نامه\u200cای.ir', toASCII('نامه\u200cای.ir'), 'Persian with a zero-width non-joiner'],
];

describe('Company Enrichment: international domains, as the URL parser reads them', () => {
	it(`looks up example.<tld> of the ${unicode.length} internationalised top-level domains in punycode, naming it in lookupDomain; the punycode forms as typed`, async () => {
		const { items, errorItems } = await byItem([...unicode, ...ascii]);
		expect(errorItems.map(errorMessage)).toEqual([]);
		expect(items.map((item) => [item.json.domain, item.json.lookupDomain])).toEqual([
			...ascii.map((domain) => [domain, domain]),
			...ascii.map((domain) => [domain, undefined]),
		]);
		// Every request carries the punycode form (both forms of a name are one request once Company's request key leaves lookupDomain out).
		expect([...new Set(sent())]).toEqual(ascii);
	});

	it('looks them up the same from a CSV file, one item per row', async () => {
		const { items, errorItems } = await byFile([...unicode, ...ascii]);
		expect(errorItems.map(errorMessage)).toEqual([]);
		expect(items.map((item) => item.json.domain)).toEqual([...ascii, ...ascii]);
		expect([...new Set(sent())]).toEqual(ascii);
	});

	it.each(MAPPED)('reads %s as %s (%s)', async (typed, expected) => {
		const { items, errorItems } = await byItem([typed]);
		expect(errorItems.map(errorMessage)).toEqual([]);
		expect(sent()).toEqual([expected]);
		expect(items[0].json.lookupDomain).toBe(expected);
	});
});

describe('Company Enrichment: a domain that cannot exist costs no credit', () => {
	const tooLong = `${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(58)}.com`;
	const cases: Array<[value: string, rule: RegExp]> = [
		['acme.con', /the top-level domain "\.con" is not in the DNS root zone/],
		['acme.comm', /the top-level domain "\.comm" is not in the DNS root zone/],
		['acme.c0m', /the top-level domain "\.c0m" is not in the DNS root zone/],
		['www.acme', /the top-level domain "\.acme" is not in the DNS root zone/],
		['a@b.c', /the top-level domain "\.c" is not in the DNS root zone/],
		['n.a.', /the top-level domain "\.a" is not in the DNS root zone/],
		['https://www.acme.con/about', /the top-level domain "\.con" is not in the DNS root zone/],
		...reserved.map((domain): [string, RegExp] => [
			domain,
			new RegExp(`the top-level domain "\\.${domain.split('.')[1]}" is not in the DNS root zone`),
		]),
		[tooLong, /must be a domain name of at most 253 characters in its ASCII form/],
	];

	it('refuses each before any request, naming the field, the value and the rule, on the error output', async () => {
		const { items, errorItems } = await byItem([...cases.map(([value]) => value), 'acme.com']);
		expect(items.map(pairedIndex)).toEqual([cases.length]);
		expect(errorItems.map(pairedIndex)).toEqual(cases.map((_, index) => index));
		errorItems.forEach((item, index) => {
			const [value, rule] = cases[index];
			expect(errorMessage(item)).toMatch(/^Invalid Domain \(domain\): /);
			expect(errorMessage(item)).toMatch(rule);
			expect(errorMessage(item)).toContain(`got ${quoted(value)}`);
		});
		expect(sent()).toEqual(['acme.com']);
	});

	it('refuses the same rows of a CSV file, each naming its row', async () => {
		const { errorItems } = await byFile(cases.map(([value]) => value));
		expect(errorItems).toHaveLength(cases.length);
		errorItems.forEach((item, index) => expect(errorMessage(item)).toMatch(cases[index][1]));
		expect(errorMessage(errorItems[0])).toMatch(/^Invalid Domain \(row 2, column 1\)/);
		expect(sent()).toEqual([]);
	});
});
