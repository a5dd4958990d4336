import { NodeConnectionTypes } from 'n8n-workflow';
import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';

import { serviceCredential } from '../../credentials/shared/liveBaseUrls';
import { requestIn } from '../../credentials/shared/requestForms';
import { columnsOfKeys, COMPANY_ANSWER_COLUMNS } from '../shared/csv/answerColumns';
import {
	columnParameter,
	csvFileOptions,
	csvFileParameters,
	inputParameter,
} from '../shared/csv/csvParameters';
import { valueOrFile, writesResultFile } from '../shared/csv/valueOrFile';
import {
	answerReuseOptions,
	estimateOnlyOption,
	runSettingsFromOptions,
	sendRepeatsOnceOption,
} from '../shared/parameters/options';
import { recordItems, runService } from '../shared/engine/engine';
import { fieldsOption, fieldsParameter } from '../shared/parameters/fields';
import type { ServiceDefinition } from '../shared/engine/types';
import {
	addSkippedHint,
	companyLookup,
	looksLikeCompanyValue,
	skippedItems,
	skippedStatus,
	skipWebmailOption,
	LOOKUP_DOMAIN_KEY,
	type CompanyLookup,
	type CompanyRequest,
	type LookupSetup,
} from './companyLookup';
import { itemParameter } from '../shared/engine/itemParameter';

/*
 * Company Enrichment (GET /v2/): one domain, email address or website per item, or a CSV file of
 * them, each sent as the domain it holds (companyLookup.ts). With Skip Webmail Addresses (on by
 * default) an address at a webmail provider is answered without a request: the provider is not
 * the lead's company.
 */

/** The keys of the company record (all top-level), for `fields`. */
const RECORD_KEYS = COMPANY_ANSWER_COLUMNS;

const domainParameter: INodeProperties = {
	displayName: 'Domain',
	name: 'domain',
	type: 'string',
	default: '',
	required: true,
	displayOptions: { show: { input: ['value'] } },
	placeholder: 'example.com',
	hint: 'A domain (example.com), an email address (ada@example.com) or a website (https://www.example.com/about)',
	description:
		"The company's domain, or a lead's email address (the part after the @ is looked up) or website (its host, without www.). An address at a free, disposable or relay email provider is skipped at no credit (see Options).",
};

const domainColumn = columnParameter({
	displayName: 'Domain Column',
	name: 'domainColumn',
	default: 'domain',
	holds:
		'the domains, email addresses (ada@example.com) or websites (https://www.example.com) of the companies',
});

const companyEnrichment: ServiceDefinition<CompanyLookup> = {
	...serviceCredential('abstractCompanyApi'),
	serviceName: 'Company Enrichment',
	answerWithoutRequest: skippedItems,
	// The request alone: stripe.com, ada@stripe.com and https://stripe.com send the same one, and the
	// domain an item named (lookupDomain) is its presentation, added by `present`. A skipped
	// webmail address has none: it sends nothing, so it is neither counted nor shared.
	requestOf: (lookup) => ('request' in lookup ? lookup.request : undefined),
	...valueOrFile({
		value: domainParameter,
		column: domainColumn,
		looksLikeValue: looksLikeCompanyValue,
		skippedOf: skippedStatus,
		forItem(itemIndex) {
			const options = itemParameter(this, 'options', itemIndex, {}) as IDataObject;
			const fields = fieldsParameter(this, itemIndex, options.fields, RECORD_KEYS);
			const setup: LookupSetup = {
				request: (domain) =>
					requestIn('getKeyInQuery', '/v2/', fields ? { domain, fields } : { domain }),
				skipWebmail: options.skipWebmail !== false,
				nameDomain: !writesResultFile(this, itemIndex),
			};
			return {
				answerColumns: columnsOfKeys(COMPANY_ANSWER_COLUMNS, fields),
				prepare: (value, field) => companyLookup(this, itemIndex, field, value, setup),
			};
		},
	}),
	async run(itemIndex, lookup, client) {
		return recordItems((await client.request((lookup as CompanyRequest).request)).body);
	},
	present(itemIndex, lookup, items) {
		const { lookupDomain } = lookup as CompanyRequest;
		for (const item of items) {
			delete item.json[LOOKUP_DOMAIN_KEY];
			if (lookupDomain !== undefined) item.json[LOOKUP_DOMAIN_KEY] = lookupDomain;
		}
		return items;
	},
};

export class AbstractCompany implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Abstract Company Enrichment',
		name: 'abstractCompany',
		icon: { light: 'file:abstractCompany.svg', dark: 'file:abstractCompany.dark.svg' },
		group: ['transform'],
		version: 1,
		subtitle:
			'={{$parameter["input"] === "csvFile" ? "Enrich a CSV file\'s companies" : "Enrich " + $parameter["domain"]}}',
		description:
			'Get company details for a domain, email address or website: name, industry, size, revenue, location and social profiles',
		documentationUrl: 'https://docs.abstractapi.com/api/company-enrichment',
		defaults: { name: 'Company Enrichment' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'abstractCompanyApi', required: true }],
		properties: [
			inputParameter('domain, email address or website'),
			domainParameter,
			...csvFileParameters(domainColumn),
			{
				displayName: 'Options',
				name: 'options',
				type: 'collection',
				placeholder: 'Add Option',
				default: {},
				options: csvFileOptions(COMPANY_ANSWER_COLUMNS, [
					fieldsOption('company record', RECORD_KEYS),
					estimateOnlyOption,
					sendRepeatsOnceOption,
					skipWebmailOption,
					...answerReuseOptions,
				]),
			},
		],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const output = await runService(this, companyEnrichment, runSettingsFromOptions);
		addSkippedHint(this, output);
		return output;
	}
}
