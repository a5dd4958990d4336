import { parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js';
import type { IDataObject } from 'n8n-workflow';

import { runNode, type InputItem } from '../harness/run';
import { sandboxCredential } from '../harness/sandboxCredentials';
import { startSandbox, type Sandbox } from '../sandbox/server';
import { readMailAddress } from '../../nodes/shared/values/mailAddress';
import { LONGEST, tooLong } from '../../nodes/shared/values/validate';
import { addresses, csvFileOf, domains, errorMessage, phoneExamples } from './corpora';

/**
 * Every value rule refuses a value longer than its format allows before any request, naming the
 * field and the rule (nodes/shared/values/validate.ts, LONGEST): a value of 4 MiB was sent as
 * typed and drew HTTP 431. The bounds come from each format's standard with room, so that the
 * public corpora (corpora/) and the longest values the standards allow all pass.
 */

let sandbox: Sandbox;
beforeAll(async () => {
	sandbox = await startSandbox();
});
afterAll(async () => await sandbox.close());
beforeEach(() => sandbox.reset());

const FOUR_MIB = 4 * 1024 * 1024;

/** The longest email address RFC 5321 allows: a local part of 64 octets, 254 in all. */
const LONGEST_ADDRESS = `${'a'.repeat(64)}@${['b'.repeat(63), 'c'.repeat(63), 'd'.repeat(57), 'com'].join('.')}`;
/** A domain of 253 characters, DNS's longest (RFC 1035). */
const LONGEST_DOMAIN = [...new Array<string>(3).fill('e'.repeat(63)), 'f'.repeat(57), 'com'].join(
	'.',
);

interface Node {
	label: string;
	type: string;
	service: string;
	parameters: IDataObject;
	/** The field as errors name it. */
	field: string;
	/** Values as long as valid ones get, each sent. */
	valid: string[];
	/** The rule's bound. */
	most: number;
	/** A value one character past the bound, of the format's look. */
	pastBound: string;
}

const NODES: Node[] = [
	{
		label: 'Email Reputation',
		type: 'abstractEmail',
		service: 'email',
		parameters: { email: '={{ $json.value }}' },
		field: 'Email (email)',
		valid: [LONGEST_ADDRESS, `${'Ada Lovelace '.repeat(50)}<b${LONGEST_ADDRESS.slice(1)}>`],
		most: LONGEST.emailAddress.most,
		pastBound: `a${LONGEST_ADDRESS}`,
	},
	{
		label: 'Phone Intelligence',
		type: 'abstractPhone',
		service: 'phone',
		parameters: { phone: '={{ $json.value }}' },
		field: 'Phone (phone)',
		valid: [
			'+1 (201) 555-0123 ext. 12345',
			`tel:7042;phone-context=${LONGEST_DOMAIN}`,
			'tel:+1-201-555-0123;ext=1234;isub=1411',
		],
		most: LONGEST.phone.most,
		pastBound: `+1 ${'2'.repeat(LONGEST.phone.most - 2)}`,
	},
	{
		label: 'IBAN Validation',
		type: 'abstractIban',
		service: 'iban',
		parameters: { iban: '={{ $json.value }}' },
		field: 'IBAN (iban)',
		// Russia's IBAN, the longest in use (33), and ISO 13616's most (34), printed.
		valid: [
			'RU02 0445 2560 0407 0281 0412 3456 7890 1',
			'IBAN LC55 HEMM 0001 0001 0012 0012 0002 3015 99',
		],
		most: LONGEST.iban.most,
		pastBound: `DE${'8'.repeat(LONGEST.iban.most - 1)}`,
	},
	{
		label: 'VAT Validate',
		type: 'abstractVat',
		service: 'vat',
		parameters: { operation: 'validate', vatNumber: '={{ $json.value }}' },
		field: 'VAT Number (vatNumber)',
		valid: ['CHE-123.456.789 MWST', 'NL 8088 5617 8B01', 'ATU12345678'],
		most: LONGEST.vatNumber.most,
		pastBound: `SE${'5'.repeat(LONGEST.vatNumber.most - 1)}`,
	},
	{
		label: 'Company Enrichment',
		type: 'abstractCompany',
		service: 'company',
		parameters: { domain: '={{ $json.value }}', options: { skipWebmail: false } },
		field: 'Domain (domain)',
		valid: [LONGEST_DOMAIN, `https://www.acme.com/${'p'.repeat(LONGEST.url.most - 21)}`],
		most: LONGEST.url.most,
		pastBound: `https://www.acme.com/${'p'.repeat(LONGEST.url.most - 20)}`,
	},
	{
		label: 'Website Screenshot',
		type: 'abstractScreenshot',
		service: 'screenshot',
		parameters: { url: '={{ $json.value }}' },
		field: 'URL (url)',
		valid: [`https://example.com/?q=${'q'.repeat(LONGEST.url.most - 23)}`],
		most: LONGEST.url.most,
		pastBound: `https://example.com/?q=${'q'.repeat(LONGEST.url.most - 22)}`,
	},
	{
		label: 'Image Processing',
		type: 'abstractImages',
		service: 'images',
		parameters: { source: 'url', url: '={{ $json.value }}' },
		field: 'Image URL (url)',
		valid: [`https://example.com/${'i'.repeat(LONGEST.url.most - 24)}.png`],
		most: LONGEST.url.most,
		pastBound: `https://example.com/${'i'.repeat(LONGEST.url.most - 23)}.png`,
	},
	// Free texts the request carries in its address: no format, the address's bound.
	{
		label: 'Avatars',
		type: 'abstractAvatars',
		service: 'avatars',
		parameters: { name: '={{ $json.value }}' },
		field: 'Name (name)',
		valid: ['Ada Lovelace', `Ada ${'l'.repeat(LONGEST.inAddress.most - 4)}`],
		most: LONGEST.inAddress.most,
		pastBound: `Ada ${'l'.repeat(LONGEST.inAddress.most - 3)}`,
	},
	{
		label: 'Website Screenshot: CSS Injection',
		type: 'abstractScreenshot',
		service: 'screenshot',
		parameters: { url: 'https://example.com', options: { cssInjection: '={{ $json.value }}' } },
		field: 'CSS Injection (cssInjection)',
		valid: ['body { margin: 0 }', `/*${'c'.repeat(LONGEST.inAddress.most - 4)}*/`],
		most: LONGEST.inAddress.most,
		pastBound: `/*${'c'.repeat(LONGEST.inAddress.most - 3)}*/`,
	},
];

const run = (node: Node, items: InputItem[]) =>
	runNode({
		type: node.type,
		parameters: node.parameters,
		credential: sandboxCredential(sandbox, node.service),
		items,
		onError: 'continueErrorOutput',
	});

describe.each(NODES.map((node) => [node.label, node] as const))(
	'%s: a value longer than its format allows is refused before any request',
	(_label, node) => {
		it('the longest valid values are sent; one character more, and 4 MiB, are refused, naming the field and the rule', async () => {
			expect(node.pastBound).toHaveLength(node.most + 1);
			const values = [...node.valid, node.pastBound, node.pastBound[0].repeat(FOUR_MIB)];
			const { errorItems, error } = await run(
				node,
				values.map((value) => ({ json: { value } })),
			);
			expect(error).toBeUndefined();
			expect(errorItems.map(errorMessage)).toEqual([
				expect.stringMatching(
					new RegExp(
						`^Invalid ${node.field.replace(/[()]/g, '\\$&')}: is ${(node.most + 1).toLocaleString('en-US')} characters long, more than ${node.most.toLocaleString('en-US')}: .+; it starts ".{60}…"$`,
					),
				),
				expect.stringMatching(/: is 4,194,304 characters long, more than /),
			]);
			expect(sandbox.requests(node.service)).toHaveLength(node.valid.length);
		});
	},
);

describe('a CSV file with a value past its bound', () => {
	it('Email: refused before any request, naming the row', async () => {
		const { error } = await runNode({
			type: 'abstractEmail',
			parameters: { input: 'csvFile', binaryPropertyName: 'data', emailColumn: 'email' },
			credential: sandboxCredential(sandbox, 'email'),
			items: [csvFileOf('email', ['ada@acme.com', 'x'.repeat(FOUR_MIB - 100)])],
		});
		expect(error?.message).toMatch(
			/^Invalid Email \(row 3, column 1\): is 4,194,204 characters long, more than 998: no email address is that long/,
		);
		expect(sandbox.requests('email')).toEqual([]);
	});
});

describe('the public corpora are within the bounds', () => {
	it("every address of corpora/addresses.json: as typed, and its address; only one past DNS's limits is longer", () => {
		const refused: string[] = [];
		for (const { value } of addresses.cases) {
			expect(tooLong(value, LONGEST.emailAsTyped)).toBeUndefined();
			if (tooLong(readMailAddress(value)?.address ?? value, LONGEST.emailAddress))
				refused.push(value);
		}
		// Its domain has 259 characters, more than DNS's 253 (the corpus's case of DNS's limits).
		expect(refused.map((value) => value.length - value.indexOf('@') - 1)).toEqual([259]);
	});

	it('every domain of corpora/domains.json, in Unicode and in ASCII, also as a website address', () => {
		const names = domains.internationalised.flatMap(({ unicode, ascii }) => [unicode, ascii]);
		for (const name of names) {
			expect(tooLong(name, LONGEST.url)).toBeUndefined();
			expect(tooLong(`https://www.${name}/about`, LONGEST.url)).toBeUndefined();
		}
	});

	it('every example number of corpora/phoneExamples.json, written every way libphonenumber writes it', () => {
		for (const { region, number } of phoneExamples.numbers) {
			const parsed = parsePhoneNumberFromString(number, region as CountryCode);
			const forms = [number];
			if (parsed) {
				parsed.setExt('123456');
				forms.push(
					parsed.format('NATIONAL'),
					parsed.format('INTERNATIONAL'),
					parsed.format('E.164'),
					parsed.format('RFC3966'),
				);
			}
			for (const form of forms) expect(tooLong(form, LONGEST.phone)).toBeUndefined();
		}
	});
});

describe('an error quotes a value by its first 60 characters', () => {
	// A value of megabytes quoted whole made an error as large, kept in every execution's data.
	const value = `${'x'.repeat(60)}${'y'.repeat(FOUR_MIB)}`;
	// As a text ("xx…") or as JSON, the value's opening quote counted among the 60 ("x…).
	const cut = `${'x'.repeat(59)}…`;

	it.each([
		['IP Geolocation', 'abstractIpGeolocation', 'geo', { ipAddress: '={{ $json.value }}' }],
		[
			'Public Holidays',
			'abstractHolidays',
			'holidays',
			{ country: { __rl: true, mode: 'id', value: '={{ $json.value }}' }, options: {} },
		],
		[
			'Avatars',
			'abstractAvatars',
			'avatars',
			{ name: 'Ada Lovelace', options: { backgroundColor: '={{ $json.value }}' } },
		],
		// The choices and numbers an expression may fill: each error says what it got.
		[
			'Avatars: Rounded',
			'abstractAvatars',
			'avatars',
			{ name: 'Ada Lovelace', options: { isRounded: '={{ $json.value }}' } },
		],
		[
			'Website Screenshot: Export Format',
			'abstractScreenshot',
			'screenshot',
			{ url: 'https://example.com', options: { exportFormat: '={{ $json.value }}' } },
		],
		[
			'VAT Calculate: Amount',
			'abstractVat',
			'vat',
			{
				operation: 'calculate',
				amount: '={{ $json.value }}',
				countryCode: { __rl: true, mode: 'id', value: 'DE' },
			},
		],
		[
			'Image Processing: Crop Mode',
			'abstractImages',
			'images',
			{
				source: 'url',
				url: 'https://example.com/a.png',
				resizeStrategy: 'crop',
				width: 100,
				height: 100,
				cropMode: '={{ $json.value }}',
			},
		],
	] as const)('%s', async (_label, type, service, parameters) => {
		const { error } = await runNode({
			type,
			parameters: parameters as IDataObject,
			credential: sandboxCredential(sandbox, service),
			items: [{ json: { value } }],
		});
		expect(error?.message).toContain(cut);
		expect(error?.message.length).toBeLessThan(400);
		expect(sandbox.requests(service)).toEqual([]);
	});

	it("a bulk file's Header Row option (Email Reputation)", async () => {
		const { error } = await runNode({
			type: 'abstractEmail',
			parameters: {
				input: 'csvFile',
				binaryPropertyName: 'data',
				emailColumn: 'email',
				options: { headerRow: '={{ $json.value }}' },
			},
			credential: sandboxCredential(sandbox, 'email'),
			items: [csvFileOf('email', ['ada@acme.com'], { value })],
		});
		expect(error?.message).toContain(cut);
		expect(error?.message.length).toBeLessThan(400);
		expect(sandbox.requests('email')).toEqual([]);
	});
});
