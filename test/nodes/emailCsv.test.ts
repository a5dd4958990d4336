import type { IDataObject } from 'n8n-workflow';

import { runNode } from '../harness/run';
import { sandboxCredential } from '../harness/sandboxCredentials';
import { startSandbox, type Sandbox } from '../sandbox/server';
import { emailRecord } from '../sandbox/services/email';
import { csvItem, leadsCsv, runEmailCsv } from './csvHelpers';

/** Email Reputation over the rows of a CSV file: one request and one output item per row. */
let sandbox: Sandbox;
beforeAll(async () => {
	sandbox = await startSandbox();
});
afterAll(async () => await sandbox.close());
beforeEach(() => sandbox.reset());

const sentEmails = () =>
	sandbox.requests('email').map((request) => request.fields.email ?? request.query.email);

describe('Email CSV input: rows, columns and output', () => {
	it('one item per row: the record as it came, the row beside it, paired to the file item; quotes, commas, line breaks, BOM, CRLF', async () => {
		const csv =
			'\ufeffname,email,note\r\n' +
			'"Doe, Jane",jane.doe@acme.io,"said ""call me""\r\nnext week"\r\n' +
			'Bob,bob@gmail.com,\r\n' +
			'"Zoë ""Z"" Ünal","zoe@northwind.example","a,b,c"';
		const { items, error } = await runEmailCsv({ sandbox, items: [csvItem(csv)] });
		expect(error).toBeUndefined();
		expect(sentEmails().sort()).toEqual([
			'bob@gmail.com',
			'jane.doe@acme.io',
			'zoe@northwind.example',
		]);
		expect(items.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 0 }, { item: 0 }]);
		expect(items.map((item) => item.json)).toEqual([
			{
				...emailRecord('jane.doe@acme.io'),
				csvRow: {
					number: 2,
					columns: {
						name: 'Doe, Jane',
						email: 'jane.doe@acme.io',
						note: 'said "call me"\r\nnext week',
					},
				},
			},
			{
				...emailRecord('bob@gmail.com'),
				csvRow: { number: 3, columns: { name: 'Bob', email: 'bob@gmail.com', note: '' } },
			},
			{
				...emailRecord('zoe@northwind.example'),
				csvRow: {
					number: 4,
					columns: { name: 'Zoë "Z" Ünal', email: 'zoe@northwind.example', note: 'a,b,c' },
				},
			},
		]);
	});

	it('finds the column by header name whatever its case, and keeps every cell (extra, empty and repeated names too)', async () => {
		const csv = 'Name,E-Mail,,Name\nAnn,ann@acme.io,x,A.,overflow\n';
		const { items, error } = await runEmailCsv({
			sandbox,
			items: [csvItem(csv)],
			parameters: { emailColumn: 'e-mail' },
		});
		expect(error).toBeUndefined();
		expect(sentEmails()).toEqual(['ann@acme.io']);
		expect(items[0].json.csvRow).toEqual({
			number: 2,
			columns: {
				Name: 'Ann',
				'E-Mail': 'ann@acme.io',
				column3: 'x',
				column4: 'A.',
				column5: 'overflow',
			},
		});
	});

	it('keeps a column named like an object property as a plain column', async () => {
		const { items, error } = await runEmailCsv({
			sandbox,
			items: [csvItem('__proto__,constructor,email\nx,y,ann@acme.io\n')],
		});
		expect(error).toBeUndefined();
		const columns = (items[0].json.csvRow as { columns: object }).columns;
		expect(Object.entries(columns)).toEqual([
			['__proto__', 'x'],
			['constructor', 'y'],
			['email', 'ann@acme.io'],
		]);
	});

	it('by position without a header row: Auto sees an address in the first row, columns are named by position', async () => {
		const csv = 'Ann,ann@acme.io\nBob,bob@acme.io\n';
		const { items, error } = await runEmailCsv({
			sandbox,
			items: [csvItem(csv)],
			parameters: { emailColumn: '2' },
		});
		expect(error).toBeUndefined();
		expect(sentEmails().sort()).toEqual(['ann@acme.io', 'bob@acme.io']);
		expect(items.map((item) => item.json.csvRow)).toEqual([
			{ number: 1, columns: { column1: 'Ann', column2: 'ann@acme.io' } },
			{ number: 2, columns: { column1: 'Bob', column2: 'bob@acme.io' } },
		]);
	});

	it('by position with a header row: Auto sees a name, not an address, in the first row', async () => {
		const csv = 'name,contact\nAnn,ann@acme.io\n';
		const { items, error } = await runEmailCsv({
			sandbox,
			items: [csvItem(csv)],
			parameters: { emailColumn: '2' },
		});
		expect(error).toBeUndefined();
		expect(sentEmails()).toEqual(['ann@acme.io']);
		expect(items[0].json.csvRow).toEqual({
			number: 2,
			columns: { name: 'Ann', contact: 'ann@acme.io' },
		});
	});

	it('Header Row set: Yes skips a first row that holds an address, No sends a first row that looks like names', async () => {
		const yes = await runEmailCsv({
			sandbox,
			items: [csvItem('old@acme.io\nnew@acme.io\n')],
			parameters: { emailColumn: '1' },
			options: { headerRow: 'yes' },
		});
		expect(yes.error).toBeUndefined();
		expect(sentEmails()).toEqual(['new@acme.io']);
		expect(yes.items[0].json.csvRow).toEqual({
			number: 2,
			columns: { 'old@acme.io': 'new@acme.io' },
		});

		sandbox.reset();
		const no = await runEmailCsv({
			sandbox,
			items: [csvItem('contact\nann@acme.io\n')],
			parameters: { emailColumn: '1' },
			options: { headerRow: 'no' },
		});
		expect(no.error).toBeUndefined();
		expect(sentEmails().sort()).toEqual(['ann@acme.io', 'contact']);
		expect(no.items.map((item) => (item.json.csvRow as IDataObject).number)).toEqual([1, 2]);
	});

	it('pairs each row to the item that held its file, across several file items', async () => {
		const { items, error } = await runEmailCsv({
			sandbox,
			items: [csvItem(leadsCsv(2)), csvItem('email\nsolo@acme.io\n'), csvItem(leadsCsv(3))],
		});
		expect(error).toBeUndefined();
		expect(items.map((item) => item.pairedItem)).toEqual(
			[0, 0, 1, 2, 2, 2].map((item) => ({ item })),
		);
		expect(items.map((item) => item.json.email_address)).toEqual([
			'lead1@example.com',
			'lead2@example.com',
			'solo@acme.io',
			'lead1@example.com',
			'lead2@example.com',
			'lead3@example.com',
		]);
		// lead1 and lead2 are in two files of the run: each is sent once, and both rows get the answer.
		expect(sandbox.requests('email')).toHaveLength(4);
	});

	it('takes the file from the binary property the user names', async () => {
		const { items, error } = await runEmailCsv({
			sandbox,
			items: [csvItem('email\nann@acme.io\n', 'leads')],
			parameters: { binaryPropertyName: 'leads' },
		});
		expect(error).toBeUndefined();
		expect(items).toHaveLength(1);
	});
});

describe('Email CSV input: the three request forms, pacing and retries, as for single values', () => {
	it.each([
		['bearerJson', 'POST', /^application\/json/],
		['form', 'POST', /^application\/x-www-form-urlencoded/],
		['query', 'GET', undefined],
	] as const)('sendAs %s', async (sendAs, method, contentType) => {
		const { items, error } = await runEmailCsv({
			sandbox,
			items: [csvItem(leadsCsv(3))],
			options: { sendAs },
		});
		expect(error).toBeUndefined();
		expect(items.map((item) => item.json.email_address)).toEqual([
			'lead1@example.com',
			'lead2@example.com',
			'lead3@example.com',
		]);
		const requests = sandbox.requests('email');
		expect(requests).toHaveLength(3);
		for (const request of requests) {
			expect(request.method).toBe(method);
			if (contentType) expect(request.headers['content-type']).toMatch(contentType);
			if (sendAs === 'bearerJson') {
				expect(request.headers.authorization).toBe(`Bearer ${sandbox.keys.email}`);
				expect(request.query).toEqual({});
			}
			if (sendAs === 'form') expect(request.fields.api_key).toBe(sandbox.keys.email);
			if (sendAs === 'query') expect(request.query.api_key).toBe(sandbox.keys.email);
		}
		expect(JSON.stringify(items)).not.toContain(sandbox.keys.email);
	});

	it('retries a row on 429, 503 and a dropped connection: one extra request each, every row once successful', async () => {
		sandbox.inject(
			'email',
			{ kind: 'status', status: 429 },
			{ kind: 'status', status: 503 },
			{ kind: 'drop' },
		);
		const { items, error } = await runEmailCsv({ sandbox, items: [csvItem(leadsCsv(5))] });
		expect(error).toBeUndefined();
		expect(items).toHaveLength(5);
		expect(sandbox.requests('email')).toHaveLength(8);
		const succeeded = sandbox.requests('email').filter((request) => request.status === 200);
		expect(succeeded.map((request) => request.fields.email).sort()).toEqual(
			[1, 2, 3, 4, 5].map((index) => `lead${index}@example.com`).sort(),
		);
	});

	it('paces the rows to the credential rate: no 429 from a service limited to that rate', async () => {
		sandbox.limitRate('email', 5);
		const { items, error } = await runEmailCsv({
			sandbox,
			items: [csvItem(leadsCsv(6))],
			credential: { requestsPerSecond: 5 },
		});
		expect(error).toBeUndefined();
		expect(items).toHaveLength(6);
		const log = sandbox.requests('email');
		expect(log.map((request) => request.status)).toEqual([200, 200, 200, 200, 200, 200]);
		// Six starts at 5 a second span at least five intervals of 200 ms.
		expect(log[5].at - log[0].at).toBeGreaterThanOrEqual(5 * 200 - 50);
	});
});

describe("Email CSV input: the file's rules, checked for the whole file before any request", () => {
	const rejected = async (
		csv: string | Buffer,
		parameters: IDataObject = {},
		options: IDataObject = {},
	) => {
		const { error, items } = await runEmailCsv({
			sandbox,
			items: [csvItem(csv)],
			parameters,
			options,
		});
		expect(items).toEqual([]);
		expect(sandbox.requests('email')).toEqual([]);
		return error;
	};

	it('an empty row, named', async () => {
		const error = await rejected('name,email\nAnn,ann@acme.io\n\nBob,bob@acme.io\n');
		expect(error?.message).toMatch(
			/Invalid CSV file .*row 3 is empty: a bulk CSV file has no empty rows/,
		);
		expect(error?.description).toMatch(/cost no credit/);
	});

	it('a row of empty cells is an empty row too, and its line is given when it differs from the row number', async () => {
		const error = await rejected('name,email\n"Ann\nSmith",ann@acme.io\n , \n');
		expect(error?.message).toMatch(/row 3 \(line 4\) is empty/);
	});

	it('a row without the selected column, named with the column', async () => {
		const error = await rejected('name,email\nAnn,ann@acme.io\nBob\n');
		expect(error?.message).toMatch(/row 3 has no column 2 \("email"\): it has 1 column/);
	});

	it("a row without the column, the header's long name for it cut to 60 characters", async () => {
		const error = await rejected(`name,${'h'.repeat(1000)}\nAnn,ann@acme.io\nBob\n`, {
			emailColumn: '2',
		});
		expect(error?.message).toMatch(/row 3 has no column 2 \("h{60}…"\): it has 1 column/);
	});

	it('a header without the named column, listing those it has', async () => {
		const error = await rejected('name,mail\nAnn,ann@acme.io\n');
		expect(error?.message).toMatch(
			/Email Column \(emailColumn\).*first row has no column named "email" \(it has: "name", "mail"\)/,
		);
	});

	it('a column name with Header Row No', async () => {
		const error = await rejected('name,email\nAnn,ann@acme.io\n', {}, { headerRow: 'no' });
		expect(error?.message).toMatch(/"email" is a column name, but Header Row is No/);
	});

	it('position 0', async () => {
		const error = await rejected('ann@acme.io\n', { emailColumn: '0' });
		expect(error?.message).toMatch(/Email Column \(emailColumn\): a position counts from 1/);
	});

	it('text after a closing quote, with its line', async () => {
		const error = await rejected('name,email\n"Ann"x,ann@acme.io\n');
		expect(error?.message).toMatch(/not valid CSV: Line 2 has text after the closing quote/);
	});

	it('a quote never closed, with its line', async () => {
		const error = await rejected('name,email\nAnn,"ann@acme.io\n');
		expect(error?.message).toMatch(
			/not valid CSV: A quoted field opened on line 2 is never closed/,
		);
	});

	it('a row of more than 4 MiB of text, with the cause its cell shows: no line break outside quotes, a quote never closed inside', async () => {
		const text = 'y'.repeat(4 * 1024 * 1024 + 1);
		const unquoted = await rejected(`name,email\nAnn,ann@acme.io\n${text},bob@acme.io\n`);
		expect(unquoted?.message).toBe(
			"Invalid CSV file in Input Binary Field (binaryPropertyName): row 3 holds more than 4 MiB of text (4,194,304 bytes; a lead list's row holds a few KB): it runs on with no line break, outside any quoted cell: one long line, not rows of CSV?",
		);
		const quoted = await rejected(`name,email\nAnn,"ann@acme.io\n${text}\n`);
		expect(quoted?.message).toMatch(
			/row 2 holds more than 4 MiB of text \(.*\): it runs on inside a quoted cell opened on line 2: a quote never closed\?$/,
		);
	});

	it('bytes that are not UTF-8', async () => {
		const error = await rejected(Buffer.from('name,email\nZo\xeb,zoe@acme.io\n', 'latin1'));
		expect(error?.message).toMatch(/Line 2 is not valid UTF-8/);
	});

	it('an empty file, and a header without data', async () => {
		expect((await rejected(''))?.message).toMatch(/the file is empty/);
		expect((await rejected('name,email\n'))?.message).toMatch(/header row but no rows of data/);
	});

	it('an item without the binary property, naming the field', async () => {
		const { error } = await runEmailCsv({ sandbox, items: [{ json: {} }] });
		expect(error?.message).toMatch(
			/Input Binary Field \(binaryPropertyName\).*no binary property "data"/,
		);
		expect(sandbox.requests('email')).toEqual([]);
	});

	it('50,000 rows pass the rule; 50,001 do not, and nothing is sent', async () => {
		// Every row's address is empty, so the 50,000 rows are checked but none is sent: the rule is
		// on the row count. 50,000 rows sent for real: the benchmark (npm run bench).
		const rows = (count: number, cell = '') => `name,email\n${`x,${cell}\n`.repeat(count)}`;
		const ok = await runEmailCsv({ sandbox, items: [csvItem(rows(50_000))], continueOnFail: true });
		expect(ok.error).toBeUndefined();
		expect(ok.items).toHaveLength(50_000);
		expect(ok.items[49_999].json.csvRow).toEqual({
			number: 50_001,
			columns: { name: 'x', email: '' },
		});
		const error = await rejected(rows(50_001, 'lead@example.com'));
		expect(error?.message).toMatch(/more than 50,000 rows \(row 50002 is row 50,001 of data\)/);
	}, 120_000);

	it('a bad file among good ones stops the run before any file is sent; with Continue On Fail it is one paired error item', async () => {
		const files = [csvItem(leadsCsv(2)), csvItem('email\n\n'), csvItem(leadsCsv(1))];
		const stopped = await runEmailCsv({ sandbox, items: files });
		expect(stopped.error?.message).toMatch(/row 2 is empty/);
		expect(sandbox.requests('email')).toEqual([]);

		const { items, error } = await runEmailCsv({ sandbox, items: files, continueOnFail: true });
		expect(error).toBeUndefined();
		expect(items.map((item) => item.pairedItem)).toEqual([0, 0, 1, 2].map((item) => ({ item })));
		expect(String(items[2].json.error)).toMatch(/row 2 is empty/);
		// lead1 is in both good files: sent once.
		expect(sandbox.requests('email')).toHaveLength(2);
	});
});

describe('Email CSV input: a row whose value is not valid follows the usual rule', () => {
	const csv = 'name,email\nAnn,ann@acme.io\nNobody,  \nBob,bob@acme.io\n';

	it('without Continue On Fail the run stops before any request, naming the row', async () => {
		const { error, items } = await runEmailCsv({ sandbox, items: [csvItem(csv)] });
		expect(error?.message).toMatch(/Invalid Email \(row 3, column 2\): is required/);
		expect(items).toEqual([]);
		expect(sandbox.requests('email')).toEqual([]);
	});

	it('with Continue On Fail the row is an error item carrying its row, paired to the file item; the others are sent', async () => {
		const { error, items } = await runEmailCsv({
			sandbox,
			items: [csvItem(csv)],
			continueOnFail: true,
		});
		expect(error).toBeUndefined();
		expect(items.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 0 }, { item: 0 }]);
		expect(items[0].json).toEqual({
			...emailRecord('ann@acme.io'),
			csvRow: { number: 2, columns: { name: 'Ann', email: 'ann@acme.io' } },
		});
		expect(items[1].json).toMatchObject({
			error: expect.stringMatching(/Invalid Email \(row 3, column 2\)/),
			csvRow: { number: 3, columns: { name: 'Nobody', email: '  ' } },
		});
		expect(items[2].json.email_address).toBe('bob@acme.io');
		expect(sentEmails().sort()).toEqual(['ann@acme.io', 'bob@acme.io']);
	});

	it('a row the service refuses: with Continue On Fail an error item with its row; without, the error names the row', async () => {
		sandbox.setQuota('email', 1, 422);
		const cof = await runEmailCsv({
			sandbox,
			items: [csvItem('email\nann@acme.io\nbob@acme.io\n')],
			continueOnFail: true,
			credential: { requestsPerSecond: 1000 },
		});
		expect(cof.error).toBeUndefined();
		const failed = cof.items.filter((item) => item.json.error);
		expect(failed).toHaveLength(1);
		expect(failed[0].json.error).toMatch(/^CSV row [23]: .*credits/);
		expect(failed[0].json.csvRow).toEqual(expect.objectContaining({ number: expect.any(Number) }));

		sandbox.reset();
		sandbox.setQuota('email', 0, 422);
		const stopped = await runEmailCsv({ sandbox, items: [csvItem('email\nann@acme.io\n')] });
		expect(stopped.error?.message).toMatch(/^CSV row 2: .*credits/);
	});
});

describe('Email: saved workflows without the input parameter', () => {
	it('keep reading the Email parameter', async () => {
		const { items, error } = await runNode({
			type: 'abstractEmail',
			parameters: { email: 'jane.doe@acme.io', options: {} },
			credential: sandboxCredential(sandbox, 'email'),
		});
		expect(error).toBeUndefined();
		expect(items.map((item) => item.json)).toEqual([emailRecord('jane.doe@acme.io')]);
	});
});
