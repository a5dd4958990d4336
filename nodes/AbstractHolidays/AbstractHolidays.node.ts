import { NodeConnectionTypes } from 'n8n-workflow';
import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';

import { serviceCredential } from '../../credentials/shared/liveBaseUrls';
import { requestIn } from '../../credentials/shared/requestForms';
import { countryLocatorProperty, searchCountries } from '../shared/values/countryLocator';
import { runService } from '../shared/engine/engine';
import { fieldLabel } from '../shared/parameters/fieldLabel';
import {
	answerReuseOptions,
	estimateOnlyOption,
	runSettingsFromOptions,
	sendRepeatsOnceOption,
} from '../shared/parameters/options';
import type { ServiceDefinition, ServiceRequest } from '../shared/engine/types';
import { countryCode, HOLIDAYS_FILED_UNDER } from '../shared/values/validate';
import { dayOption, holidayPeriod, monthOption, yearOption } from './holidayPeriod';
import { itemParameter } from '../shared/engine/itemParameter';

/*
 * Public Holidays (GET /v1/ with country and an optional year, month, day): the service answers
 * an array of holiday records per country and period, which becomes one item per holiday unless
 * Split Into Items is off.
 */

const countryParameter = countryLocatorProperty({
	displayName: 'Country',
	name: 'country',
	description:
		'The country whose holidays to get: pick it from the list, or give its two-letter code (an expression works too)',
});

interface HolidaysQuery {
	request: ServiceRequest;
	splitIntoItems: boolean;
}

const publicHolidays: ServiceDefinition<HolidaysQuery> = {
	...serviceCredential('abstractHolidaysApi'),
	serviceName: 'Public Holidays',
	// The request alone: Split Into Items only shapes the output (`present`).
	requestOf: (query) => query.request,
	prepare(itemIndex) {
		const country = countryCode(
			this,
			itemIndex,
			fieldLabel(countryParameter),
			this.getNodeParameter(countryParameter.name, itemIndex, '', { extractValue: true }),
			HOLIDAYS_FILED_UNDER,
		);
		const options = itemParameter(this, 'options', itemIndex, {}) as IDataObject;
		const period = holidayPeriod(this, itemIndex, options);
		return {
			request: requestIn('getKeyInQuery', '/v1/', { country, ...period }),
			splitIntoItems: options.splitIntoItems !== false,
		};
	},
	// The answer is kept as one item, the service's list, so that it serves either Split Into Items.
	async run(_itemIndex, query, client) {
		const { body } = await client.request(query.request);
		// The service answers an array (empty when the period has no holiday); anything else is kept rather than dropped.
		const holidays = (Array.isArray(body) ? body : body == null ? [] : [body]) as IDataObject[];
		return [{ json: { holidays } }];
	},
	// Given the answer, or a repeat's copy of its first item's output (split or not), as the engine asks.
	present(_itemIndex, query, items) {
		const holidays = items.flatMap(({ json }) =>
			Array.isArray(json.holidays) ? (json.holidays as IDataObject[]) : [json],
		);
		if (!query.splitIntoItems) return [{ json: { holidays } }];
		return holidays.map((holiday) => ({ json: holiday }));
	},
};

export class AbstractHolidays implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Abstract Public Holidays',
		name: 'abstractHolidays',
		icon: { light: 'file:abstractHolidays.svg', dark: 'file:abstractHolidays.dark.svg' },
		group: ['transform'],
		version: 1,
		subtitle: '={{"Holidays in " + ($parameter["country"].value || $parameter["country"])}}',
		description: 'Get the public holidays of a country, for a year, a month or a day',
		documentationUrl: 'https://docs.abstractapi.com/api/holidays',
		defaults: { name: 'Public Holidays' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'abstractHolidaysApi', required: true }],
		properties: [
			countryParameter,
			{
				displayName: 'Options',
				name: 'options',
				type: 'collection',
				placeholder: 'Add Option',
				default: {},
				options: [
					dayOption,
					estimateOnlyOption,
					monthOption,
					...answerReuseOptions,
					sendRepeatsOnceOption,
					{
						displayName: 'Split Into Items',
						name: 'splitIntoItems',
						type: 'boolean',
						default: true,
						description:
							'Whether to output one item per holiday. A period without holidays then gives no item for that input item (the service answers an empty list): turn this off to get one item {holidays: [...]} per input item instead, with an empty list when there are none.',
					},
					yearOption,
				],
			},
		],
	};

	methods = { listSearch: { searchCountries } };

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await runService(this, publicHolidays, runSettingsFromOptions);
	}
}
