import type { IDataObject } from 'n8n-workflow';

import type { InputItem } from '../harness/run';
import { csvItem } from '../nodes/csvHelpers';
import { VALID_IBANS } from './ibanRun';

/**
 * Every service node (and each input of a file), as the engine tests run them: three distinct
 * values, each one request, and a value that fails the node's check before anything is sent.
 */
export interface NodeCase {
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

export const CASES: NodeCase[] = [
	{
		name: 'Phone (Value)',
		type: 'abstractPhone',
		service: 'phone',
		parameters: { phone: '={{ $json.value }}', options: {} },
		values: ['+14152007986', '+442079460018', '+33142685300'],
		invalid: '',
	},
	{
		name: 'Phone (CSV rows)',
		type: 'abstractPhone',
		service: 'phone',
		parameters: { input: 'csvFile', binaryPropertyName: 'data', options: {} },
		values: ['+14152007986', '+442079460018', '+33142685300'],
		invalid: '',
		// A second column, so that a row without a number is a row whose value fails, not an empty row.
		items: (values) => [
			csvItem(`phone,name\n${values.map((value, index) => `${value},Lead ${index}`).join('\n')}\n`),
		],
	},
	{
		name: 'Email (Value)',
		type: 'abstractEmail',
		service: 'email',
		parameters: { email: '={{ $json.value }}', options: {} },
		values: ['ann@acme.io', 'bob@acme.io', 'cy@acme.io'],
		invalid: '',
	},
	{
		name: 'IP Geolocation',
		type: 'abstractIpGeolocation',
		service: 'geo',
		parameters: { ipAddress: '={{ $json.value }}', options: {} },
		values: ['8.8.8.8', '1.1.1.1', '9.9.9.9'],
		invalid: 'not-an-ip',
	},
	{
		name: 'Company',
		type: 'abstractCompany',
		service: 'company',
		parameters: { domain: '={{ $json.value }}', options: {} },
		values: ['acme.io', 'stripe.com', 'example.com'],
		invalid: '',
	},
	{
		name: 'Public Holidays',
		type: 'abstractHolidays',
		service: 'holidays',
		parameters: {
			country: { __rl: true, mode: 'id', value: '={{ $json.value }}' },
			options: { year: '2025' },
		},
		values: ['DE', 'US', 'FR'],
		invalid: 'XX',
	},
	{
		name: 'VAT (Get Categories)',
		type: 'abstractVat',
		service: 'vat',
		parameters: { countryCode: { __rl: true, mode: 'id', value: '={{ $json.value }}' } },
		values: ['DE', 'FR', 'IT'],
		invalid: 'ZZ',
	},
	{
		name: 'IBAN',
		type: 'abstractIban',
		service: 'iban',
		parameters: { iban: '={{ $json.value }}' },
		values: [VALID_IBANS[0], VALID_IBANS[1], VALID_IBANS[2]],
		invalid: '   ',
	},
	// The nodes that read a file with a chosen column: a row of the file per value, as Phone's rows.
	...(
		[
			[
				'IP Geolocation (CSV rows)',
				'abstractIpGeolocation',
				'geo',
				{ ipAddressColumn: 'value' },
				['8.8.8.8', '1.1.1.1', '9.9.9.9'],
			],
			[
				'Company (CSV rows)',
				'abstractCompany',
				'company',
				{ domainColumn: 'value' },
				['acme.io', 'stripe.com', 'example.com'],
			],
			[
				'VAT Validate (CSV rows)',
				'abstractVat',
				'vat',
				{ operation: 'validate', vatNumberColumn: 'value' },
				['SE556656688001', 'DE259597697', 'FR40303265045'],
			],
			[
				'IBAN (CSV rows)',
				'abstractIban',
				'iban',
				{ ibanColumn: 'value' },
				[VALID_IBANS[0], VALID_IBANS[1], VALID_IBANS[2]],
			],
		] as const
	).map(
		([name, type, service, column, values]): NodeCase => ({
			name,
			type,
			service,
			parameters: { input: 'csvFile', binaryPropertyName: 'data', ...column, options: {} },
			values: [...values],
			invalid: '',
			items: (rows) => [
				csvItem(`value,name\n${rows.map((value, index) => `${value},Lead ${index}`).join('\n')}\n`),
			],
		}),
	),
	{
		name: 'Image Processing (URL, result downloaded)',
		type: 'abstractImages',
		service: 'images',
		parameters: { source: 'url', url: '={{ $json.value }}', downloadResult: true },
		values: [
			'https://cdn.example.com/a.jpg',
			'https://cdn.example.com/b.jpg',
			'https://cdn.example.com/c.jpg',
		],
		invalid: '',
		file: true,
	},
	{
		name: 'Avatars',
		type: 'abstractAvatars',
		service: 'avatars',
		parameters: { name: '={{ $json.value }}' },
		values: ['Ada Lovelace', 'Alan Turing', 'Grace Hopper'],
		invalid: '',
		file: true,
	},
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

export const valueItems = (values: string[]): InputItem[] =>
	values.map((value) => ({ json: { value } }));
