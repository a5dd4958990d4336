import { NodeConnectionTypes } from 'n8n-workflow';
import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeType, INodeTypeDescription } from 'n8n-workflow';

import { bareDomain } from '../shared/values/domain';
import { sendRepeatsOnceOption } from '../shared/parameters/options';
import { runService } from '../shared/engine/engine';
import { fieldsOption, fieldsParameter } from '../shared/parameters/fields';
import type { ServiceDefinition } from '../shared/engine/types';

/** The top-level keys of the company record (contract 2.4), for `fields`. */
const RECORD_KEYS = [
	'domain',
	'company_name',
	'description',
	'logo',
	'year_founded',
	'street_address',
	'city',
	'state',
	'country',
	'country_iso_code',
	'postal_code',
	'latitude',
	'longitude',
	'sic_code',
	'naics_code',
	'industry',
	'employee_count',
	'employee_range',
	'annual_revenue',
	'revenue_range',
	'phone_numbers',
	'email_addresses',
	'type',
	'ticker',
	'exchange',
	'global_ranking',
	'tags',
	'technologies',
	'linkedin_url',
	'facebook_url',
	'twitter_url',
	'instagram_url',
	'crunchbase_url',
] as const;

/** Company enrichment (contract 4.4, version 2): one domain per item, answered with 2.4. */
const companyEnrichment: ServiceDefinition = {
	credentialType: 'abstractCompanyApi',
	serviceName: 'Company Enrichment',
	prepare(itemIndex) {
		const domain = bareDomain(this, itemIndex, 'Domain (domain)', this.getNodeParameter('domain', itemIndex));
		const options = this.getNodeParameter('options', itemIndex, {}) as IDataObject;
		const fields = fieldsParameter(this, itemIndex, options.fields, RECORD_KEYS);
		return { method: 'GET', path: '/v2/', qs: fields ? { domain, fields } : { domain } };
	},
};

export class AbstractCompany implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Abstract Company Enrichment',
		name: 'abstractCompany',
		icon: { light: 'file:abstractCompany.svg', dark: 'file:abstractCompany.dark.svg' },
		group: ['transform'],
		version: 1,
		subtitle: '={{"Enrich " + $parameter["domain"]}}',
		description: 'Get company details for a domain: name, industry, size, revenue, location and social profiles',
		documentationUrl: 'https://docs.abstractapi.com/company-enrichment',
		defaults: { name: 'Company Enrichment' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'abstractCompanyApi', required: true }],
		properties: [
			{
				displayName: 'Domain',
				name: 'domain',
				type: 'string',
				default: '',
				required: true,
				placeholder: 'example.com',
				hint: 'A bare domain such as example.com: no https://, no www., no path',
				description:
					'The domain the company\'s website is hosted on, bare: example.com, not https://www.example.com/about. For a lead\'s email address, use the part after the @.',
			},
			{
				displayName: 'Options',
				name: 'options',
				type: 'collection',
				placeholder: 'Add Option',
				default: {},
				options: [fieldsOption('company record', RECORD_KEYS), sendRepeatsOnceOption],
			},
		],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await runService(this, companyEnrichment);
	}
}
