import type { INodePropertyOptions } from 'n8n-workflow';

import { runNode } from '../harness/run';
import { sandboxCredential } from '../harness/sandboxCredentials';
import { startSandbox, type Sandbox } from '../sandbox/server';
import { AbstractPhone } from '../../dist/nodes/AbstractPhone/AbstractPhone.node';
import { csvFileOf, errorMessage, pairedIndex, phoneExamples } from './corpora';

/**
 * Phone Intelligence's Country against libphonenumber's example numbers (source and version:
 * corpora/phoneExamples.json, libphonenumber-js 1.13.16's examples.mobile.json): every region with
 * an ISO 3166-1 code, its example mobile number written nationally, Country its own code. The
 * phone service takes the ISO country code of the number, so each must reach it as chosen.
 */

let sandbox: Sandbox;
beforeAll(async () => {
	sandbox = await startSandbox();
});
afterAll(async () => await sandbox.close());
beforeEach(() => sandbox.reset());

const { numbers } = phoneExamples;
const sent = () =>
	sandbox.requests('phone').map((request) => ({
		phone: String(request.fields.phone),
		country: String(request.fields.country),
	}));

describe('Phone Intelligence: every ISO 3166-1 country, from libphonenumber example numbers', () => {
	it(`sends each of the ${numbers.length} regions' example number with its own code as Country, one value per item`, async () => {
		const { items, errorItems, error } = await runNode({
			type: 'abstractPhone',
			parameters: { phone: '={{ $json.number }}', options: { country: '={{ $json.region }}' } },
			credential: sandboxCredential(sandbox, 'phone'),
			items: numbers.map((example) => ({ json: example })),
			onError: 'continueErrorOutput',
		});
		expect(error).toBeUndefined();
		expect(errorItems.map(errorMessage)).toEqual([]);
		expect(items).toHaveLength(numbers.length);
		expect(sent()).toEqual(
			numbers.map(({ region, number }) => ({ phone: number, country: region })),
		);
		// Among them the codes the holidays service's list lacks or files elsewhere.
		expect(sent().map((request) => request.country)).toEqual(
			expect.arrayContaining([
				'RU',
				'BS',
				'AX',
				'BQ',
				'CC',
				'CX',
				'EH',
				'IO',
				'NF',
				'NU',
				'PS',
				'SJ',
				'TK',
				'RE',
				'BH',
			]),
		);
	});

	it('sends them the same from CSV files: one file per region, its Country by expression', async () => {
		const { items, errorItems } = await runNode({
			type: 'abstractPhone',
			parameters: {
				input: 'csvFile',
				binaryPropertyName: 'data',
				options: { country: '={{ $json.region }}' },
			},
			credential: sandboxCredential(sandbox, 'phone'),
			items: numbers.map((example) => csvFileOf('phone', [example.number], example)),
			onError: 'continueErrorOutput',
		});
		expect(errorItems.map(errorMessage)).toEqual([]);
		expect(items).toHaveLength(numbers.length);
		expect(sent()).toEqual(
			numbers.map(({ region, number }) => ({ phone: number, country: region })),
		);
	});

	it('refuses a code ISO 3166-1 does not assign (UK, EU, XX), naming field, value and rule, on the error output', async () => {
		const rows = [
			{ number: '020 7946 0018', region: 'UK' },
			{ number: '030 123456', region: 'EU' },
			{ number: '9123456789', region: 'RU' },
			{ number: '5551234', region: 'xx' },
		];
		const { items, errorItems } = await runNode({
			type: 'abstractPhone',
			parameters: { phone: '={{ $json.number }}', options: { country: '={{ $json.region }}' } },
			credential: sandboxCredential(sandbox, 'phone'),
			items: rows.map((json) => ({ json })),
			onError: 'continueErrorOutput',
		});
		expect(items.map(pairedIndex)).toEqual([2]);
		expect(errorItems.map(pairedIndex)).toEqual([0, 1, 3]);
		expect(errorItems.map(errorMessage)).toEqual([
			'Invalid Country (country): "UK" is not an ISO 3166-1 alpha-2 country code (two letters, for instance US, DE, RU)',
			'Invalid Country (country): "EU" is not an ISO 3166-1 alpha-2 country code (two letters, for instance US, DE, RU)',
			'Invalid Country (country): "xx" is not an ISO 3166-1 alpha-2 country code (two letters, for instance US, DE, RU)',
		]);
		expect(sent()).toEqual([{ phone: '9123456789', country: 'RU' }]);
	});
});

describe("Phone Intelligence: the Country option's list", () => {
	const country = new AbstractPhone().description.properties
		.find((property) => property.name === 'options')
		?.options?.find((option) => 'name' in option && option.name === 'country') as {
		options: INodePropertyOptions[];
		default: string;
	};
	const names = new Intl.DisplayNames(['en'], { type: 'region' });

	it("offers every ISO 3166-1 code once, each under the platform's English name (Intl.DisplayNames), sorted by name", () => {
		const codes = country.options.map((option) => String(option.value));
		expect(new Set(codes).size).toBe(codes.length);
		// Every region of the example numbers (all of ISO 3166-1 but the uninhabited ones) is offered.
		expect(codes).toEqual(expect.arrayContaining(numbers.map((example) => example.region)));
		expect(codes).toEqual(expect.arrayContaining(['AQ', 'BV', 'GS', 'HM', 'PN', 'TF', 'UM']));
		for (const option of country.options) {
			const name = names.of(String(option.value))!;
			// A name with accents shows them left out too, for the editor's letter-for-letter filter.
			const plain = name.normalize('NFD').replace(/\p{M}/gu, '');
			expect(option.name).toBe(
				plain === name
					? `${name} (${String(option.value)})`
					: `${name} (${plain}, ${String(option.value)})`,
			);
		}
		const sorted = [...country.options].sort((a, b) => a.name.localeCompare(b.name, 'en'));
		expect(country.options).toEqual(sorted);
	});

	it('keeps RE and BH, the values saved workflows may hold, each under its own name; Russia and the Bahamas have their own codes', () => {
		const byValue = new Map(country.options.map((option) => [option.value, option.name]));
		expect(byValue.get('RE')).toBe('Réunion (Reunion, RE)');
		expect(byValue.get('BH')).toBe('Bahrain (BH)');
		expect(byValue.get('RU')).toBe('Russia (RU)');
		expect(byValue.get('BS')).toBe('Bahamas (BS)');
		expect(country.default).toBe('US');
	});
});

describe('Public Holidays: the service files Russia under RE and the Bahamas under BH', () => {
	it('refuses RU and BS on the error output, saying under which code the service keeps each', async () => {
		const { errorItems, items } = await runNode({
			type: 'abstractHolidays',
			parameters: {
				country: { __rl: true, mode: 'id', value: '={{ $json.country }}' },
				options: { year: '2025' },
			},
			credential: sandboxCredential(sandbox, 'holidays'),
			items: [
				{ json: { country: 'RU' } },
				{ json: { country: 'BS' } },
				{ json: { country: 'RE' } },
			],
			onError: 'continueErrorOutput',
		});
		expect(errorItems.map(errorMessage)).toEqual([
			'Invalid Country (country): "RU" is not a two-letter country code of the service\'s list (for instance US, DE, FR); the service files Russia under RE',
			'Invalid Country (country): "BS" is not a two-letter country code of the service\'s list (for instance US, DE, FR); the service files the Bahamas under BH',
		]);
		expect(items.every((item) => pairedIndex(item) === 2)).toBe(true);
		expect(sandbox.requests('holidays').map((request) => request.query.country)).toEqual(['RE']);
	});
});
