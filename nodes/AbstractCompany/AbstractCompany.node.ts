import { NodeConnectionTypes } from 'n8n-workflow';
import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeType, INodeTypeDescription } from 'n8n-workflow';

import { columnsOfKeys, COMPANY_ANSWER_COLUMNS } from '../shared/csv/answerColumns';
import { columnOf, columnParameter, csvFileOptions, csvFileParameters } from '../shared/csv/csvParameters';
import { csvFanOut, inputKindOf, inputParameter } from '../shared/csv/csvInput';
import { bareDomain } from '../shared/values/domain';
import { answerReuseOptions, sendRepeatsOnceOption } from '../shared/parameters/options';
import { runService } from '../shared/engine/engine';
import { fieldsOption, fieldsParameter } from '../shared/parameters/fields';
import type { ServiceDefinition, ServiceRequest } from '../shared/engine/types';

/** The keys of the company record (all top-level), for `fields`. */
const RECORD_KEYS = COMPANY_ANSWER_COLUMNS;

const domainColumn = columnParameter({ displayName: 'Domain Column', name: 'domainColumn', default: 'domain', holds: 'the domains (bare, such as example.com)' });

/** For header detection: a domain has a dot between two parts and no space; a column name hardly. */
const looksLikeDomain = (cell: string) => /^[^\s.]+(\.[^\s.]+)+\.?$/.test(cell.trim());

/** Company enrichment (its API version 2, /v2/): one domain per item, or every row of a CSV file, answered with the company record. */
const companyEnrichment: ServiceDefinition = {
	credentialType: 'abstractCompanyApi',
	serviceName: 'Company Enrichment',
	async prepare(itemIndex) {
		const options = this.getNodeParameter('options', itemIndex, {}) as IDataObject;
		const fields = fieldsParameter(this, itemIndex, options.fields, RECORD_KEYS);
		const request = (domain: string): ServiceRequest => ({ method: 'GET', path: '/v2/', qs: fields ? { domain, fields } : { domain } });
		if (inputKindOf(this, itemIndex) === 'csvFile') {
			return await csvFanOut(this, itemIndex, {
				column: columnOf(this, itemIndex, domainColumn),
				looksLikeValue: looksLikeDomain,
				valueLabel: 'Domain',
				answerColumns: columnsOfKeys(COMPANY_ANSWER_COLUMNS, fields),
				prepare: (value, field) => request(bareDomain(this, itemIndex, field, value)),
			});
		}
		return request(bareDomain(this, itemIndex, 'Domain (domain)', this.getNodeParameter('domain', itemIndex)));
	},
};

export class AbstractCompany implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Abstract Company Enrichment',
		name: 'abstractCompany',
		icon: { light: 'file:abstractCompany.svg', dark: 'file:abstractCompany.dark.svg' },
		group: ['transform'],
		version: 1,
		subtitle: '={{$parameter["input"] === "csvFile" ? "Enrich a CSV file\'s domains" : "Enrich " + $parameter["domain"]}}',
		description: 'Get company details for a domain: name, industry, size, revenue, location and social profiles',
		documentationUrl: 'https://docs.abstractapi.com/company-enrichment',
		defaults: { name: 'Company Enrichment' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'abstractCompanyApi', required: true }],
		properties: [
			inputParameter('domain'),
			{
				displayName: 'Domain',
				name: 'domain',
				type: 'string',
				default: '',
				required: true,
				displayOptions: { show: { input: ['value'] } },
				placeholder: 'example.com',
				hint: 'A bare domain such as example.com: no https://, no www., no path',
				description:
					'The domain the company\'s website is hosted on, bare: example.com, not https://www.example.com/about. For a lead\'s email address, use the part after the @.',
			},
			...csvFileParameters(domainColumn),
			{
				displayName: 'Options',
				name: 'options',
				type: 'collection',
				placeholder: 'Add Option',
				default: {},
				options: csvFileOptions(COMPANY_ANSWER_COLUMNS, [fieldsOption('company record', RECORD_KEYS), sendRepeatsOnceOption, ...answerReuseOptions]),
			},
		],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await runService(this, companyEnrichment);
	}
}
