import { NodeConnectionTypes } from 'n8n-workflow';
import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeType, INodeTypeDescription } from 'n8n-workflow';

import { COUNTRY_OPTIONS } from '../shared/countries';
import { runService } from '../shared/engine';
import { lookupRequest, sendAsOf, sendAsOption } from '../shared/sendAs';
import type { ServiceDefinition } from '../shared/types';
import { countryCode, requiredText } from '../shared/validate';

/** Phone intelligence (contract 4.1): one number per item, answered with the record of 2.1. */
const phoneIntelligence: ServiceDefinition = {
	credentialType: 'abstractPhoneApi',
	serviceName: 'Phone Intelligence',
	prepare(itemIndex) {
		const phone = requiredText(this, itemIndex, 'Phone (phone)', this.getNodeParameter('phone', itemIndex));
		const options = this.getNodeParameter('options', itemIndex, {}) as IDataObject;
		const fields: Record<string, string> = { phone };
		// An empty country (an expression that found none) means "not given", not an error.
		if (options.country !== undefined && String(options.country).trim() !== '') {
			fields.country = countryCode(this, itemIndex, 'Country (country)', options.country);
		}
		return lookupRequest('/v1/', fields, sendAsOf(this, itemIndex, options.sendAs));
	},
};

export class AbstractPhone implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Abstract Phone Intelligence',
		name: 'abstractPhone',
		icon: { light: 'file:abstractPhone.svg', dark: 'file:abstractPhone.dark.svg' },
		group: ['transform'],
		version: 1,
		subtitle: '={{"Analyze " + $parameter["phone"]}}',
		description: 'Analyze a phone number: format, carrier, location, validity, risk and breach history',
		documentationUrl: 'https://docs.abstractapi.com/phone-intelligence',
		defaults: { name: 'Phone Intelligence' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'abstractPhoneApi', required: true }],
		properties: [
			{
				displayName: 'Phone',
				name: 'phone',
				type: 'string',
				default: '',
				required: true,
				placeholder: '+14152007986',
				hint: 'Best with + and the country code; without it, set the Country option',
				description:
					'The phone number to analyze, best in international form with + and country code. Spaces, dashes and brackets are fine. A number without a country code needs the Country option.',
			},
			{
				displayName: 'Options',
				name: 'options',
				type: 'collection',
				placeholder: 'Add Option',
				default: {},
				options: [
					{
						displayName: 'Country',
						name: 'country',
						type: 'options',
						options: COUNTRY_OPTIONS,
						default: 'US',
						description:
							'Country of a number written without its country code; the service adds the country code to its analysis. An expression may give a two-letter code such as US or DE.',
					},
					sendAsOption,
				],
			},
		],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await runService(this, phoneIntelligence);
	}
}
