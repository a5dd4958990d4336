import type { IDataObject } from 'n8n-workflow';

import { firstTimeOnly, newWorkflowId, RETRY_ON_FAIL } from '../harness/retryOnFail';
import { runNode, type InputItem, type NodeRun } from '../harness/run';
import { sandboxCredential } from '../harness/sandboxCredentials';
import { csvItem } from '../nodes/csvHelpers';
import { binaryBytes, picture } from '../nodes/mediaHelpers';
import { startSandbox, type Sandbox } from '../sandbox/server';
import { carrying } from './errorOutputMatrix';
import { VALID_IBANS } from './ibanRun';

/**
 * Every service node under n8n's Retry On Fail (3 tries), through n8n-core's WorkflowExecute: a
 * request refused once (default On Error: the node throws, n8n tries again), and a first item
 * that fails its check under either Continue setting (n8n tries again while the first item is an
 * error item). Either way each value is paid for once (one 200) and every item is answered.
 */
let sandbox: Sandbox;
beforeAll(async () => {
	sandbox = await startSandbox();
});
afterAll(async () => await sandbox.close());
beforeEach(() => sandbox.reset());


interface NodeCase {
	name: string;
	type: string;
	service: string;
	parameters: IDataObject;
	/** Three distinct values, each one request. */
	values: [string, string, string];
	/** A value that fails the node's check before anything is sent. */
	invalid: string;
	/** The input items of `values` (default: one item per value, `{ value }`). */
	items?: (values: string[]) => InputItem[];
	/** Whether each value answers with a file. */
	file?: boolean;
}

const CASES: NodeCase[] = [
	{ name: 'Phone (Value)', type: 'abstractPhone', service: 'phone', parameters: { phone: '={{ $json.value }}', options: {} }, values: ['+14152007986', '+442079460018', '+33142685300'], invalid: '' },
	{
		name: 'Phone (CSV rows)',
		type: 'abstractPhone',
		service: 'phone',
		parameters: { input: 'csvFile', binaryPropertyName: 'data', options: {} },
		values: ['+14152007986', '+442079460018', '+33142685300'],
		invalid: '',
		// A second column, so that a row without a number is a row whose value fails, not an empty row.
		items: (values) => [csvItem(`phone,name\n${values.map((value, index) => `${value},Lead ${index}`).join('\n')}\n`)],
	},
	{ name: 'Email (Value)', type: 'abstractEmail', service: 'email', parameters: { email: '={{ $json.value }}', options: {} }, values: ['ann@acme.io', 'bob@acme.io', 'cy@acme.io'], invalid: '' },
	{ name: 'IP Geolocation', type: 'abstractIpGeolocation', service: 'geo', parameters: { ipAddress: '={{ $json.value }}', options: {} }, values: ['8.8.8.8', '1.1.1.1', '9.9.9.9'], invalid: 'not-an-ip' },
	{ name: 'Company', type: 'abstractCompany', service: 'company', parameters: { domain: '={{ $json.value }}', options: {} }, values: ['acme.io', 'stripe.com', 'example.com'], invalid: '' },
	{
		name: 'Public Holidays',
		type: 'abstractHolidays',
		service: 'holidays',
		parameters: { country: { __rl: true, mode: 'id', value: '={{ $json.value }}' }, options: { year: '2025' } },
		values: ['DE', 'US', 'FR'],
		invalid: 'XX',
	},
	{ name: 'VAT (Get Categories)', type: 'abstractVat', service: 'vat', parameters: { countryCode: { __rl: true, mode: 'id', value: '={{ $json.value }}' } }, values: ['DE', 'FR', 'IT'], invalid: 'ZZ' },
	{ name: 'IBAN', type: 'abstractIban', service: 'iban', parameters: { iban: '={{ $json.value }}' }, values: [VALID_IBANS[0], VALID_IBANS[1], VALID_IBANS[2]], invalid: '   ' },
	// The nodes that read a file with a chosen column: a row of the file per value, as Phone's rows.
	...(
		[
			['IP Geolocation (CSV rows)', 'abstractIpGeolocation', 'geo', { ipAddressColumn: 'value' }, ['8.8.8.8', '1.1.1.1', '9.9.9.9']],
			['Company (CSV rows)', 'abstractCompany', 'company', { domainColumn: 'value' }, ['acme.io', 'stripe.com', 'example.com']],
			['VAT Validate (CSV rows)', 'abstractVat', 'vat', { operation: 'validate', vatNumberColumn: 'value' }, ['SE556656688001', 'DE259597697', 'FR40303265045']],
			['IBAN (CSV rows)', 'abstractIban', 'iban', { ibanColumn: 'value' }, [VALID_IBANS[0], VALID_IBANS[1], VALID_IBANS[2]]],
		] as const
	).map(
		([name, type, service, column, values]): NodeCase => ({
			name,
			type,
			service,
			parameters: { input: 'csvFile', binaryPropertyName: 'data', ...column, options: {} },
			values: [...values],
			invalid: '',
			items: (rows) => [csvItem(`value,name\n${rows.map((value, index) => `${value},Lead ${index}`).join('\n')}\n`)],
		}),
	),
	{
		name: 'Image Processing (URL, result downloaded)',
		type: 'abstractImages',
		service: 'images',
		parameters: { source: 'url', url: '={{ $json.value }}', downloadResult: true },
		values: ['https://cdn.example.com/a.jpg', 'https://cdn.example.com/b.jpg', 'https://cdn.example.com/c.jpg'],
		invalid: '',
		file: true,
	},
	{ name: 'Avatars', type: 'abstractAvatars', service: 'avatars', parameters: { name: '={{ $json.value }}' }, values: ['Ada Lovelace', 'Alan Turing', 'Grace Hopper'], invalid: '', file: true },
	{
		name: 'Website Screenshot',
		type: 'abstractScreenshot',
		service: 'screenshot',
		parameters: { url: '={{ $json.value }}' },
		values: ['https://a.example', 'https://b.example', 'https://c.example'],
		invalid: 'ftp://a.example',
		file: true,
	},
];

const valueItems = (values: string[]): InputItem[] => values.map((value) => ({ json: { value } }));

const run = (testCase: NodeCase, values: string[], onError?: NodeRun['onError']) =>
	runNode({
		type: testCase.type,
		parameters: testCase.parameters,
		credential: sandboxCredential(sandbox, testCase.service),
		items: (testCase.items ?? valueItems)(values),
		onError,
		settings: RETRY_ON_FAIL,
		workflowId: newWorkflowId('retry-nodes'),
	});

/** How many 200s the service gave for each value. */
const paidPerValue = (testCase: NodeCase) =>
	testCase.values.map((value) => sandbox.requests(testCase.service).filter((request) => request.status === 200 && carrying(value)(request)).length);

for (const testCase of CASES) {
	describe(testCase.name, () => {
		it('a request refused once: the second try sends only it; every value paid once', async () => {
			sandbox.faultWhen(testCase.service, firstTimeOnly(carrying(testCase.values[1])), { kind: 'status', status: 400 });
			const { error, items } = await run(testCase, testCase.values);
			expect(error).toBeUndefined();
			expect(paidPerValue(testCase)).toEqual([1, 1, 1]);
			expect(sandbox.requests(testCase.service)).toHaveLength(4);
			expect(items.every((item) => item.json.error === undefined)).toBe(true);
			if (testCase.file) {
				expect(items).toHaveLength(3);
				for (const item of items) expect((await binaryBytes(item, Object.keys(item.binary ?? {})[0])).length).toBeGreaterThan(0);
			}
		});

		for (const onError of ['continueRegularOutput', 'continueErrorOutput'] as const) {
			it(`${onError}: the first item fails its check; n8n's three tries pay each value once`, async () => {
				const { error, items, errorItems } = await run(testCase, [testCase.invalid, ...testCase.values], onError);
				expect(error).toBeUndefined();
				expect(paidPerValue(testCase)).toEqual([1, 1, 1]);
				expect(sandbox.requests(testCase.service)).toHaveLength(3);
				const failed = onError === 'continueErrorOutput' ? errorItems : items.filter((item) => item.json.error !== undefined);
				expect(failed).toHaveLength(1);
			});
		}
	});
}

describe('Image Processing with a binary source', () => {
	it('an upload is never kept: the next try uploads again', async () => {
		const photo = (width: number): InputItem => ({ json: {}, binary: { photo: { bytes: picture('png', width, 100), mimeType: 'image/png', fileName: 'photo.png' } } });
		let seen = 0;
		sandbox.faultWhen('images', () => ++seen === 2, { kind: 'status', status: 400 });
		const { error } = await runNode({
			type: 'abstractImages',
			parameters: { source: 'binary', binaryPropertyName: 'photo' },
			credential: sandboxCredential(sandbox, 'images'),
			items: [photo(100), photo(120)],
			settings: RETRY_ON_FAIL,
			workflowId: newWorkflowId('retry-nodes'),
		});
		expect(error).toBeUndefined();
		// Two uploads on the first try (the second refused), both again on the second.
		expect(sandbox.requests('images')).toHaveLength(4);
	});
});
