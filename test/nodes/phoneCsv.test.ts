import { startSandbox, type Sandbox } from '../sandbox/server';
import { phoneRecord } from '../sandbox/services/phone';
import { csvItem, runPhoneCsv } from './csvHelpers';

/** Phone Intelligence over the rows of a CSV file: the number from the first column. */
let sandbox: Sandbox;
beforeAll(async () => {
	sandbox = await startSandbox();
});
afterAll(async () => await sandbox.close());
beforeEach(() => sandbox.reset());

const sentPhones = () =>
	sandbox.requests('phone').map((request) => request.fields.phone ?? request.query.phone);

describe('Phone CSV input', () => {
	it('reads the first column under a detected header row; one item per row with the row beside the record', async () => {
		const csv =
			'phone,name,city\r\n"+1 (415) 200-7986","Doe, Jane",SF\r\n+442079460018,Bob,"London\r\nUK"\r\n';
		const { items, error } = await runPhoneCsv({ sandbox, items: [csvItem(csv)] });
		expect(error).toBeUndefined();
		expect(sentPhones().sort()).toEqual(['+1 (415) 200-7986', '+442079460018']);
		expect(items.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 0 }]);
		expect(items.map((item) => item.json)).toEqual([
			{
				...phoneRecord('+1 (415) 200-7986'),
				csvRow: {
					number: 2,
					columns: { phone: '+1 (415) 200-7986', name: 'Doe, Jane', city: 'SF' },
				},
			},
			{
				...phoneRecord('+442079460018'),
				csvRow: {
					number: 3,
					columns: { phone: '+442079460018', name: 'Bob', city: 'London\r\nUK' },
				},
			},
		]);
	});

	it('detects a file without a header row: the first row holds a number', async () => {
		const { items, error } = await runPhoneCsv({
			sandbox,
			items: [csvItem('+14152007986,Ann\n+442079460018,Bob\n')],
		});
		expect(error).toBeUndefined();
		expect(sentPhones().sort()).toEqual(['+14152007986', '+442079460018']);
		expect(items[0].json.csvRow).toEqual({
			number: 1,
			columns: { column1: '+14152007986', column2: 'Ann' },
		});
	});

	it('sends the Country option with every row, in the chosen request form', async () => {
		const { items, error } = await runPhoneCsv({
			sandbox,
			items: [csvItem('Phone Number\n030 1234 5678\n089 987654\n')],
			options: { country: 'DE', sendAs: 'form' },
		});
		expect(error).toBeUndefined();
		for (const request of sandbox.requests('phone')) {
			expect(request.method).toBe('POST');
			expect(request.headers['content-type']).toMatch(/^application\/x-www-form-urlencoded/);
			expect(request.fields).toEqual(
				expect.objectContaining({ country: 'DE', api_key: sandbox.keys.phone }),
			);
		}
		expect(items.map((item) => item.json.phone_format)).toEqual([
			phoneRecord('030 1234 5678', 'DE').phone_format,
			phoneRecord('089 987654', 'DE').phone_format,
		]);
	});

	it('Header Row No sends the first row too', async () => {
		const { error } = await runPhoneCsv({
			sandbox,
			items: [csvItem('phone\n+14152007986\n')],
			options: { headerRow: 'no' },
		});
		expect(error).toBeUndefined();
		expect(sentPhones().sort()).toEqual(['+14152007986', 'phone']);
	});

	it('an empty row stops the whole file before any request', async () => {
		const { error } = await runPhoneCsv({
			sandbox,
			items: [csvItem('phone\n+14152007986\n\n+442079460018\n')],
		});
		expect(error?.message).toMatch(/row 3 is empty/);
		expect(sandbox.requests('phone')).toEqual([]);
	});

	it('an empty number in a row: the run stops before any request, or with Continue On Fail an error item with its row', async () => {
		const csv = 'phone,name\n+14152007986,Ann\n,Nobody\n';
		const stopped = await runPhoneCsv({ sandbox, items: [csvItem(csv)] });
		expect(stopped.error?.message).toMatch(/Invalid Phone \(row 3, column 1\): is required/);
		expect(sandbox.requests('phone')).toEqual([]);

		const { items, error } = await runPhoneCsv({
			sandbox,
			items: [csvItem(csv)],
			continueOnFail: true,
		});
		expect(error).toBeUndefined();
		expect(items.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 0 }]);
		expect(items[1].json).toMatchObject({
			error: expect.stringMatching(/row 3/),
			csvRow: { number: 3, columns: { phone: '', name: 'Nobody' } },
		});
		expect(sentPhones()).toEqual(['+14152007986']);
	});

	it('an invalid Country option stops the file before any request, as for single values', async () => {
		const { error } = await runPhoneCsv({
			sandbox,
			items: [csvItem('phone\n+14152007986\n')],
			options: { country: 'XX' },
		});
		expect(error?.message).toContain('Country (country)');
		expect(sandbox.requests('phone')).toEqual([]);
	});
});
