import type { IDataObject, INodeProperties } from 'n8n-workflow';

import { AbstractVat } from '../../dist/nodes/AbstractVat/AbstractVat.node';
import { searchCountries } from '../../dist/nodes/shared/values/countryLocator';
import { runNode } from '../harness/run';
import { sandboxCredential } from '../harness/sandboxCredentials';
import { startSandbox, type Sandbox } from '../sandbox/server';

let sandbox: Sandbox;
beforeAll(async () => {
	sandbox = await startSandbox();
});
afterAll(async () => await sandbox.close());
beforeEach(() => sandbox.reset());

/** The country comes by expression through the locator's code mode, as a person maps a column. */
const COUNTRY_FROM_ITEM = { __rl: true, mode: 'id', value: '={{ $json.country }}' };

const vat = (parameters: IDataObject, rows: IDataObject[], continueOnFail = false) =>
	runNode({
		type: 'abstractVat',
		parameters,
		credential: sandboxCredential(sandbox, 'vat'),
		items: rows.map((json) => ({ json })),
		continueOnFail,
	});

const sent = () =>
	sandbox
		.requests('vat')
		.map((request) => ({ method: request.method, path: request.path, query: request.query }));

describe('VAT: Get Categories (the default operation)', () => {
	it('sends country_code to GET /v1/categories and splits each answer into paired category items', async () => {
		const { items, error } = await vat({ countryCode: COUNTRY_FROM_ITEM }, [
			{ country: 'de' },
			{ country: 'FR' },
		]);
		expect(error).toBeUndefined();
		const key = sandbox.keys.vat;
		expect(sent()).toEqual([
			{ method: 'GET', path: '/v1/categories', query: { country_code: 'DE', api_key: key } },
			{ method: 'GET', path: '/v1/categories', query: { country_code: 'FR', api_key: key } },
		]);
		expect(items[0].json).toEqual({
			country_code: 'DE',
			rate: '0.190',
			category: 'standard',
			description: '',
		});
		const byInput = (index: number) =>
			items.filter((item) => (item.pairedItem as { item: number }).item === index);
		expect(byInput(0).map((item) => item.json.country_code)).toEqual(Array(6).fill('DE'));
		expect(byInput(1).map((item) => [item.json.category, item.json.rate])).toContainEqual([
			'books',
			'0.055',
		]);
		expect(byInput(1).every((item) => item.json.country_code === 'FR')).toBe(true);
		expect(items).toHaveLength(byInput(0).length + byInput(1).length);
	});

	it("reports the service's own message for a listed country without VAT data (the sandbox answers 400)", async () => {
		const { error } = await vat({ countryCode: { __rl: true, mode: 'list', value: 'US' } }, [{}]);
		expect(error?.httpCode).toBe('400');
		expect(error?.description).toContain('No VAT data for country "US"');
		expect(sandbox.requests('vat')).toHaveLength(1);
	});
});

describe('VAT: Validate', () => {
	it('sends a repeated number once, or every time with Send Repeated Values Once off (Options shows it for Validate too)', async () => {
		const numbers = [{ number: 'SE556656688001' }, { number: 'SE556656688001' }];
		const once = await vat({ operation: 'validate', vatNumber: '={{ $json.number }}' }, numbers);
		expect(once.error).toBeUndefined();
		expect(once.items).toHaveLength(2);
		expect(sandbox.requests('vat')).toHaveLength(1);
		sandbox.reset();
		const each = await vat(
			{
				operation: 'validate',
				vatNumber: '={{ $json.number }}',
				options: { sendRepeatsOnce: false },
			},
			numbers,
		);
		expect(each.error).toBeUndefined();
		expect(each.items).toHaveLength(2);
		expect(sandbox.requests('vat')).toHaveLength(2);
	});

	it('sends the trimmed number, inner spaces kept, to GET /v1/validate and passes the answer through', async () => {
		const { items, error } = await vat(
			{ operation: 'validate', vatNumber: '={{ $json.number }}' },
			[{ number: '  SE 5566 5668 8001 ' }],
		);
		expect(error).toBeUndefined();
		expect(sent()).toEqual([
			{
				method: 'GET',
				path: '/v1/validate',
				query: { vat_number: 'SE 5566 5668 8001', api_key: sandbox.keys.vat },
			},
		]);
		// The same question asked directly: the node's item is the service's answer, key for key.
		const direct = await fetch(
			`${sandbox.baseUrls.vat}/v1/validate?vat_number=${encodeURIComponent('SE 5566 5668 8001')}&api_key=${sandbox.keys.vat}`,
		);
		expect(items.map((item) => item.json)).toEqual([await direct.json()]);
		expect(items[0].json).toMatchObject({ valid: true, country: { code: 'SE', name: 'Sweden' } });
		expect(items[0].pairedItem).toEqual({ item: 0 });
	});
});

describe('VAT: Calculate', () => {
	it('sends amount, country_code, is_vat_incl and vat_category to GET /v1/calculate', async () => {
		const { items, error } = await vat(
			{
				operation: 'calculate',
				countryCode: COUNTRY_FROM_ITEM,
				amount: '={{ $json.amount }}',
				options: { isVatIncluded: true, vatCategory: ' books ' },
			},
			[{ country: 'DE', amount: 100 }],
		);
		expect(error).toBeUndefined();
		expect(sent()).toEqual([
			{
				method: 'GET',
				path: '/v1/calculate',
				query: {
					amount: '100',
					country_code: 'DE',
					is_vat_incl: 'true',
					vat_category: 'books',
					api_key: sandbox.keys.vat,
				},
			},
		]);
		expect(items.map((item) => item.json)).toEqual([
			{
				amount_excl_vat: '93.46',
				amount_incl_vat: '100.00',
				vat_amount: '6.54',
				vat_category: 'books',
				vat_rate: '0.070',
				country: { code: 'DE', name: 'Germany' },
			},
		]);
	});

	it('leaves out the options that are not set, and sends is_vat_incl=false when set off', async () => {
		const calculate = (options: IDataObject, row: IDataObject) =>
			vat(
				{
					operation: 'calculate',
					countryCode: COUNTRY_FROM_ITEM,
					amount: '={{ $json.amount }}',
					options,
				},
				[row],
			);
		const first = await calculate({}, { country: 'FR', amount: 19.99 });
		const second = await calculate(
			{ isVatIncluded: false, vatCategory: '  ' },
			{ country: 'IT', amount: '50' },
		);
		expect([first.error, second.error]).toEqual([undefined, undefined]);
		expect(sandbox.requests('vat').map((request) => request.query)).toEqual([
			{ amount: '19.99', country_code: 'FR', api_key: sandbox.keys.vat },
			{ amount: '50', country_code: 'IT', is_vat_incl: 'false', api_key: sandbox.keys.vat },
		]);
		expect([first.items[0].json.amount_incl_vat, second.items[0].json.amount_incl_vat]).toEqual([
			'23.99',
			'61.00',
		]);
	});
});

describe('VAT: inputs checked before any request', () => {
	const calculate = {
		operation: 'calculate',
		countryCode: COUNTRY_FROM_ITEM,
		amount: '={{ $json.amount }}',
	};
	const cases: Array<[string, IDataObject, IDataObject, string[]]> = [
		[
			'country ZZ (Get Categories)',
			{ countryCode: COUNTRY_FROM_ITEM },
			{ country: 'ZZ' },
			['Country (countryCode)', '"ZZ"'],
		],
		[
			'an empty country (Get Categories)',
			{ countryCode: COUNTRY_FROM_ITEM },
			{ country: '' },
			['Country (countryCode)', 'required'],
		],
		[
			'country ZZ (Calculate)',
			calculate,
			{ country: 'ZZ', amount: 10 },
			['Country (countryCode)', '"ZZ"'],
		],
		[
			'an empty VAT number',
			{ operation: 'validate', vatNumber: '={{ $json.number }}' },
			{ number: '   ' },
			['VAT Number (vatNumber)', 'required'],
		],
		['amount -5', calculate, { country: 'DE', amount: -5 }, ['Amount (amount)', 'greater than 0']],
		['amount abc', calculate, { country: 'DE', amount: 'abc' }, ['Amount (amount)', '"abc"']],
		['amount 0', calculate, { country: 'DE', amount: 0 }, ['Amount (amount)', 'greater than 0']],
		[
			// n8n adds this choice to every node's Operation list whose credential places its own key.
			"n8n's Custom API Call as the operation",
			{ operation: '__CUSTOM_API_CALL__', countryCode: COUNTRY_FROM_ITEM },
			{ country: 'DE' },
			['Operation (operation)', 'Calculate, Get Categories, Validate', 'HTTP Request node'],
		],
	];

	it.each(cases)(
		'rejects %s, naming the field, and sends nothing',
		async (_name, parameters, row, expected) => {
			const { items, error } = await vat(parameters, [row]);
			expect(items).toEqual([]);
			for (const text of expected) expect(error?.message).toContain(text);
			expect(sandbox.requests('vat')).toEqual([]);
		},
	);

	it('with Continue On Fail, a bad amount becomes a paired error item and the others go on', async () => {
		const { items, error } = await vat(
			calculate,
			[
				{ country: 'DE', amount: 100 },
				{ country: 'DE', amount: -5 },
				{ country: 'AT', amount: 10 },
			],
			true,
		);
		expect(error).toBeUndefined();
		expect(items.map((item) => [item.json.amount_incl_vat ?? 'error', item.pairedItem])).toEqual([
			['119.00', { item: 0 }],
			['error', { item: 1 }],
			['12.00', { item: 2 }],
		]);
		expect(items[1].json.error).toContain('Amount (amount)');
		expect(sent().map((request) => request.query.amount)).toEqual(['100', '10']);
	});
});

describe('VAT: node description', () => {
	it('shows each parameter only for its operations and wires the country list to the shared search', () => {
		const node = new AbstractVat();
		const shownFor = (name: string) =>
			node.description.properties.find((property) => property.name === name)?.displayOptions?.show
				?.operation;
		expect(shownFor('countryCode')).toEqual(['getCategories', 'calculate']);
		expect(shownFor('vatNumber')).toEqual(['validate']);
		expect(shownFor('amount')).toEqual(['calculate']);
		// Options for every operation (Send Repeated Values Once); Calculate's own options only there.
		const options = node.description.properties.find((property) => property.name === 'options')!;
		expect(options.displayOptions).toBeUndefined();
		const optionShownFor = (name: string) =>
			(options.options as INodeProperties[]).find((option) => option.name === name)?.displayOptions
				?.show?.['/operation'];
		expect(optionShownFor('isVatIncluded')).toEqual(['calculate']);
		expect(optionShownFor('vatCategory')).toEqual(['calculate']);
		expect(optionShownFor('sendRepeatsOnce')).toBeUndefined();
		const operation = node.description.properties.find((property) => property.name === 'operation');
		expect(operation?.default).toBe('getCategories');
		expect(operation?.noDataExpression).toBe(true);
		const listMode = node.description.properties
			.find((property) => property.name === 'countryCode')
			?.modes?.find((mode) => mode.type === 'list');
		expect(
			node.methods.listSearch[listMode?.typeOptions?.searchListMethod as 'searchCountries'],
		).toBe(searchCountries);
	});
});
