import type { IDataObject } from 'n8n-workflow';

import { AbstractHolidays } from '../../dist/nodes/AbstractHolidays/AbstractHolidays.node';
import { COUNTRY_CODES } from '../../dist/nodes/shared/values/countries';
import { countriesMatching, searchCountries } from '../../dist/nodes/shared/values/countryLocator';
import { runNode } from '../harness/run';
import { sandboxCredential } from '../harness/sandboxCredentials';
import { startSandbox, type Sandbox } from '../sandbox/server';

let sandbox: Sandbox;
beforeAll(async () => {
	sandbox = await startSandbox();
});
afterAll(async () => await sandbox.close());
beforeEach(() => sandbox.reset());

/** Each input item carries its country and options; the node reads them by expression. */
interface Row {
	country: unknown;
	options?: IDataObject;
}

const holidays = (rows: Row[], extra: { continueOnFail?: boolean; options?: IDataObject } = {}) =>
	runNode({
		type: 'abstractHolidays',
		parameters: {
			country: { __rl: true, mode: 'id', value: '={{ $json.country }}' },
			options: extra.options ?? {
				year: '={{ $json.options.year }}',
				month: '={{ $json.options.month }}',
				day: '={{ $json.options.day }}',
			},
		},
		credential: sandboxCredential(sandbox, 'holidays'),
		items: rows.map((row) => ({
			json: { country: row.country, options: row.options ?? {} } as IDataObject,
		})),
		continueOnFail: extra.continueOnFail,
	});

const queries = () => sandbox.requests('holidays').map((request) => request.query);

describe('Public holidays: requests', () => {
	it('sends country, year and zero-padded month and day under the service names to GET /v1/', async () => {
		const { items, error } = await holidays([
			{ country: 'de', options: { year: '2025', month: 1, day: 1 } },
			{ country: 'US', options: { year: 2025, month: '7', day: '04' } },
		]);
		expect(error).toBeUndefined();
		const requests = sandbox.requests('holidays');
		expect(requests.map((request) => `${request.method} ${request.path}`)).toEqual([
			'GET /v1/',
			'GET /v1/',
		]);
		expect(queries()).toEqual([
			{ country: 'DE', year: '2025', month: '01', day: '01', api_key: sandbox.keys.holidays },
			{ country: 'US', year: '2025', month: '07', day: '04', api_key: sandbox.keys.holidays },
		]);
		expect(items.map((item) => item.json)).toEqual([
			{
				name: "New Year's Day",
				name_local: 'Neujahr',
				language: 'German',
				description: '',
				country: 'DE',
				location: '',
				type: 'National',
				date: '01/01/2025',
				date_year: '2025',
				date_month: '01',
				date_day: '01',
				week_day: 'Wednesday',
			},
			{
				name: 'Independence Day',
				name_local: '',
				language: '',
				description: 'Long weekend: Friday to Sunday.',
				country: 'US',
				location: '',
				type: 'National',
				date: '07/04/2025',
				date_year: '2025',
				date_month: '07',
				date_day: '04',
				week_day: 'Friday',
			},
		]);
	});

	it('takes the country from the searchable list mode, and sends only the options that are set', async () => {
		const { items, error } = await runNode({
			type: 'abstractHolidays',
			parameters: { country: { __rl: true, mode: 'list', value: 'FR' }, options: { year: '2026' } },
			credential: sandboxCredential(sandbox, 'holidays'),
		});
		expect(error).toBeUndefined();
		expect(queries()).toEqual([{ country: 'FR', year: '2026', api_key: sandbox.keys.holidays }]);
		expect(items.map((item) => item.json.date)).toEqual([
			'01/01/2026',
			'04/06/2026',
			'05/01/2026',
			'05/08/2026',
			'05/14/2026',
			'05/25/2026',
			'07/14/2026',
			'08/15/2026',
			'11/01/2026',
			'11/11/2026',
			'12/25/2026',
		]);
	});
});

describe('Public holidays: output items', () => {
	it('splits each answer into one item per holiday, paired to the input item it came from', async () => {
		const { items, error } = await holidays([
			{ country: 'US', options: { year: '2025', month: 7 } },
			{ country: 'DE', options: { year: '2025', month: 10 } },
			{ country: 'FR', options: { year: '2025', month: 5 } },
		]);
		expect(error).toBeUndefined();
		expect(items.map((item) => [item.json.country, item.json.name, item.pairedItem])).toEqual([
			['US', 'Independence Day', { item: 0 }],
			['DE', 'Day of German Unity', { item: 1 }],
			['FR', 'Labour Day', { item: 2 }],
			['FR', 'Victory in Europe Day', { item: 2 }],
			['FR', 'Ascension Day', { item: 2 }],
		]);
		expect(sandbox.requests('holidays')).toHaveLength(3);
	});

	it('gives no item for a period without holidays when splitting, and the other items stay paired', async () => {
		const { items, error } = await holidays([
			{ country: 'DE', options: { year: '2025', month: 2 } },
			{ country: 'GB', options: { year: '2025', month: 12 } },
		]);
		expect(error).toBeUndefined();
		expect(sandbox.requests('holidays').map((request) => request.status)).toEqual([200, 200]);
		expect(items.map((item) => [item.json.name, item.pairedItem])).toEqual([
			['Christmas Day', { item: 1 }],
			['Boxing Day', { item: 1 }],
		]);
	});

	it('with Split Into Items off, gives one item {holidays: [...]} per input item, an empty list included', async () => {
		const { items, error } = await holidays(
			[
				{ country: 'GB', options: { year: '2025', month: 12 } },
				{ country: 'DE', options: { year: '2025', month: 2 } },
			],
			{
				options: {
					year: '={{ $json.options.year }}',
					month: '={{ $json.options.month }}',
					splitIntoItems: false,
				},
			},
		);
		expect(error).toBeUndefined();
		expect(items).toHaveLength(2);
		expect((items[0].json.holidays as IDataObject[]).map((holiday) => holiday.name)).toEqual([
			'Christmas Day',
			'Boxing Day',
		]);
		expect(items[1].json).toEqual({ holidays: [] });
		expect(items.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }]);
	});

	it.each([
		['on, on, off', [true, true, false]],
		['off, on, off', [false, true, false]],
	])(
		'a repeated query (sent once) gives each item its own holidays, Split Into Items %s',
		async (_, splits) => {
			const { items, error } = await holidays(
				splits.map((split) => ({ country: 'GB', options: { year: '2025', month: 12, split } })),
				{
					options: {
						year: '={{ $json.options.year }}',
						month: '={{ $json.options.month }}',
						splitIntoItems: '={{ $json.options.split }}',
					},
				},
			);
			expect(error).toBeUndefined();
			expect(queries()).toHaveLength(1);
			const names = ['Christmas Day', 'Boxing Day'];
			const expected = splits.flatMap((split, item): unknown[][] =>
				split ? names.map((name) => [name, { item }]) : [[names, { item }]],
			);
			expect(
				items.map((item) => [
					item.json.name ?? (item.json.holidays as IDataObject[]).map(({ name }) => name),
					item.pairedItem,
				]),
			).toEqual(expected);
		},
	);
});

describe('Public holidays: inputs checked before any request', () => {
	const cases: Array<[string, Row, string[]]> = [
		[
			'a day without month',
			{ country: 'US', options: { year: '2025', day: 5 } },
			['Day (day)', 'Month (month)'],
		],
		[
			'a day without year',
			{ country: 'US', options: { month: 3, day: 5 } },
			['Day (day)', 'Year (year)'],
		],
		[
			'a month without year',
			{ country: 'US', options: { month: 3 } },
			['Month (month)', 'Year (year)'],
		],
		[
			'month 13',
			{ country: 'US', options: { year: '2025', month: 13 } },
			['Month (month)', '1 to 12'],
		],
		[
			'February 30',
			{ country: 'US', options: { year: '2024', month: 2, day: 30 } },
			['Day (day)', '29 days'],
		],
		[
			'day 32',
			{ country: 'US', options: { year: '2025', month: 1, day: 32 } },
			['Day (day)', '1 to 31'],
		],
		['year 20x5', { country: 'US', options: { year: '20x5' } }, ['Year (year)', 'four digits']],
		['country XX', { country: 'XX', options: { year: '2025' } }, ['Country (country)', '"XX"']],
		[
			'an empty country',
			{ country: '', options: { year: '2025' } },
			['Country (country)', 'required'],
		],
	];

	it.each(cases)(
		'rejects %s, naming the field, and sends nothing',
		async (_name, row, expected) => {
			const { items, error } = await holidays([row]);
			expect(items).toEqual([]);
			for (const text of expected) expect(error?.message).toContain(text);
			expect(sandbox.requests('holidays')).toEqual([]);
		},
	);

	it('accepts February 29 of a leap year', async () => {
		const { error } = await holidays([
			{ country: 'US', options: { year: '2024', month: 2, day: 29 } },
		]);
		expect(error).toBeUndefined();
		expect(queries()).toEqual([
			{ country: 'US', year: '2024', month: '02', day: '29', api_key: sandbox.keys.holidays },
		]);
	});

	it('checks every item before the first request: a bad last item stops the run with nothing sent', async () => {
		const { error } = await holidays([
			{ country: 'US', options: { year: '2025', month: 7 } },
			{ country: 'US', options: { month: 7 } },
		]);
		expect(error?.message).toContain('Month (month)');
		expect(sandbox.requests('holidays')).toEqual([]);
	});

	it('with Continue On Fail, a bad item becomes a paired error item and the others go on', async () => {
		const { items, error } = await holidays(
			[
				{ country: 'US', options: { year: '2025', month: 7 } },
				{ country: 'XX', options: { year: '2025', month: 7 } },
				{ country: 'FR', options: { year: '2025', month: 7 } },
			],
			{ continueOnFail: true },
		);
		expect(error).toBeUndefined();
		expect(items.map((item) => [item.json.name ?? 'error', item.pairedItem])).toEqual([
			['Independence Day', { item: 0 }],
			['error', { item: 1 }],
			['Bastille Day', { item: 2 }],
		]);
		expect(items[1].json.error).toContain('Country (country)');
		expect(queries().map((query) => query.country)).toEqual(['US', 'FR']);
	});
});

describe('Public holidays: the searchable country list', () => {
	it('wires the list mode to the shared listSearch method', () => {
		const node = new AbstractHolidays();
		const country = node.description.properties.find((property) => property.name === 'country');
		expect(country?.type).toBe('resourceLocator');
		const listMode = country?.modes?.find((mode) => mode.type === 'list');
		const method = listMode?.typeOptions?.searchListMethod as string;
		expect(node.methods.listSearch[method as 'searchCountries']).toBe(searchCountries);
	});

	it('filters the service countries by name or code, an exact code first', () => {
		expect(countriesMatching('germ')).toEqual([{ name: 'Germany (DE)', value: 'DE' }]);
		const us = countriesMatching('us');
		expect(us[0]).toEqual({ name: 'United States (US)', value: 'US' });
		expect(us.map((option) => option.value)).toEqual(
			expect.arrayContaining(['AU', 'BY', 'CY', 'MU']),
		);
		expect(countriesMatching('  FRANCE ')).toEqual([{ name: 'France (FR)', value: 'FR' }]);
		expect(countriesMatching('zzz')).toEqual([]);
		expect(
			countriesMatching('')
				.map((option) => option.value)
				.sort(),
		).toEqual([...COUNTRY_CODES].sort());
	});
});
