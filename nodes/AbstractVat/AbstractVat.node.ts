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
import { VAT_VALIDATION_ANSWER_COLUMNS } from '../shared/csv/answerColumns';
import {
	columnParameter,
	csvFileOptions,
	csvFileParameters,
	inputParameter,
	onlyWhere,
} from '../shared/csv/csvParameters';
import { valueOrFile } from '../shared/csv/valueOrFile';
import { countryLocatorProperty, searchCountries } from '../shared/values/countryLocator';
import { runService } from '../shared/engine/engine';
import { fieldLabel } from '../shared/parameters/fieldLabel';
import {
	answerReuseOptions,
	estimateOnlyOption,
	runSettingsFromOptions,
	sendRepeatsOnceOption,
} from '../shared/parameters/options';
import { invalidInput } from '../shared/engine/errors';
import { toolDescriptionProperties } from '../shared/parameters/toolDescription';
import type { ServiceDefinition, ServiceRequest } from '../shared/engine/types';
import { asGiven } from '../shared/values/quoted';
import { countryCode, LONGEST, requiredWithin } from '../shared/values/validate';
import { itemParameter } from '../shared/engine/itemParameter';

/*
 * VAT (GET /v1/categories, /v1/validate, /v1/calculate): categories per country, VAT number
 * validation (one number per item, or a CSV file of them), and VAT calculation. Categories are
 * split into one item each; validate and calculate answers pass through as they come, since
 * their field names are not documented consistently (a result file puts any field it does not
 * list in other_fields).
 */

const countryParameter = countryLocatorProperty({
	displayName: 'Country',
	name: 'countryCode',
	description:
		'The country in which the transaction takes place: pick it from the list, or give its two-letter code (an expression works too)',
	displayOptions: { show: { operation: ['getCategories', 'calculate'] } },
});

const amountParameter: INodeProperties = {
	displayName: 'Amount',
	name: 'amount',
	type: 'number',
	typeOptions: { minValue: 0.01, numberPrecision: 2 },
	default: 100,
	required: true,
	hint: 'The amount to calculate the VAT of: a number greater than 0',
	displayOptions: { show: { operation: ['calculate'] } },
};

/** Only Validate takes a CSV file: its parameters and options are shown for that operation alone. */
const VALIDATE = { operation: ['validate'] };

const vatNumberParameter: INodeProperties = {
	displayName: 'VAT Number',
	name: 'vatNumber',
	type: 'string',
	default: '',
	required: true,
	placeholder: 'e.g. SE556656688001',
	hint: 'With its country prefix, such as SE556656688001',
	description: 'The VAT number to check, with its country prefix. Spaces inside are fine.',
	displayOptions: { show: { operation: ['validate'], input: ['value'] } },
};

const vatNumberColumn = columnParameter({
	displayName: 'VAT Number Column',
	name: 'vatNumberColumn',
	default: 'vat_number',
	holds: 'the VAT numbers, each with its country prefix',
});

/** For header detection: a VAT number starts with its country prefix, then a digit. */
const looksLikeVatNumber = (cell: string) => /^[A-Za-z]{2}\s*\d/.test(cell.trim());

/** Validate: one VAT number per item, or every row of a CSV file. */
const validateVatNumbers = valueOrFile<ServiceRequest>({
	value: vatNumberParameter,
	column: vatNumberColumn,
	looksLikeValue: looksLikeVatNumber,
	forItem(itemIndex) {
		return {
			answerColumns: VAT_VALIDATION_ANSWER_COLUMNS,
			prepare: (value, field) =>
				requestIn('getKeyInQuery', '/v1/validate', {
					vat_number: requiredWithin(this, itemIndex, field, value, LONGEST.vatNumber),
				}),
		};
	},
});

/** An amount of money: a finite number above zero, from the number field or an expression's text. */
function positiveAmount(ctx: IExecuteFunctions, itemIndex: number, value: unknown): number {
	const amount = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
	if (typeof amount !== 'number' || !Number.isFinite(amount) || amount <= 0) {
		throw invalidInput(
			ctx,
			itemIndex,
			fieldLabel(amountParameter),
			`must be a number greater than 0, got ${asGiven(value)}`,
		);
	}
	return amount;
}

/** What the node does. n8n adds "Custom API Call" to a node's Operation list (its value is none of these): prepare refuses it. */
const operationParameter: INodeProperties = {
	displayName: 'Operation',
	name: 'operation',
	type: 'options',
	noDataExpression: true,
	options: [
		{
			name: 'Calculate',
			value: 'calculate',
			description: 'Calculate the VAT of an amount in a country',
			action: 'Calculate VAT of an amount',
		},
		{
			name: 'Get Categories',
			value: 'getCategories',
			description: 'Get the standard and reduced VAT rates of a country, one item per category',
			action: 'Get VAT categories of a country',
		},
		{
			name: 'Validate',
			value: 'validate',
			description: 'Check a VAT number and get the company registered under it',
			action: 'Validate a VAT number',
		},
	],
	default: 'getCategories',
};

const vat: ServiceDefinition = {
	...serviceCredential('abstractVatApi'),
	serviceName: 'VAT',
	async prepare(itemIndex, planning) {
		const operation = this.getNodeParameter('operation', itemIndex) as string;
		const country = () =>
			countryCode(
				this,
				itemIndex,
				fieldLabel(countryParameter),
				this.getNodeParameter(countryParameter.name, itemIndex, '', { extractValue: true }),
			);

		if (operation === 'validate')
			return await validateVatNumbers.prepare.call(this, itemIndex, planning);
		if (operation === 'calculate') {
			const amount = positiveAmount(
				this,
				itemIndex,
				this.getNodeParameter(amountParameter.name, itemIndex),
			);
			const qs: IDataObject = { amount, country_code: country() };
			const options = itemParameter(this, 'options', itemIndex, {}) as IDataObject;
			if (options.isVatIncluded !== undefined)
				qs.is_vat_incl = options.isVatIncluded === true || options.isVatIncluded === 'true';
			const category = String(options.vatCategory ?? '').trim();
			if (category !== '') qs.vat_category = category;
			return requestIn('getKeyInQuery', '/v1/calculate', qs);
		}
		if (operation === 'getCategories')
			return requestIn('getKeyInQuery', '/v1/categories', { country_code: country() });
		// n8n's "Custom API Call": a call this node does not make is the HTTP Request node's, with this credential.
		throw invalidInput(
			this,
			itemIndex,
			fieldLabel(operationParameter),
			`must be one of ${operationParameter.options!.map((option) => (option as { name: string }).name).join(', ')}, got ${JSON.stringify(operation)}: for another call to the VAT API, use an HTTP Request node with Authentication set to Predefined Credential Type and this node's credential`,
		);
	},
};

export class AbstractVat implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Abstract VAT',
		name: 'abstractVat',
		icon: { light: 'file:abstractVat.svg', dark: 'file:abstractVat.dark.svg' },
		group: ['transform'],
		version: 1,
		subtitle: '={{$parameter["operation"]}}',
		description: 'Get VAT rates per category, validate VAT numbers and calculate VAT',
		documentationUrl: 'https://docs.abstractapi.com/api/vat-validation',
		defaults: { name: 'VAT' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'abstractVatApi', required: true }],
		properties: [
			operationParameter,
			...toolDescriptionProperties('operation', {
				calculate: 'Calculate the VAT on an amount in a country, at its standard or a reduced rate',
				getCategories: 'Get the standard and reduced VAT rates of a country, one per category',
				validate: 'Validate a VAT number and get the company registered under it',
			}),
			...onlyWhere([inputParameter('VAT number')], VALIDATE),
			countryParameter,
			vatNumberParameter,
			...onlyWhere(csvFileParameters(vatNumberColumn), VALIDATE),
			amountParameter,
			{
				displayName: 'Options',
				name: 'options',
				type: 'collection',
				placeholder: 'Add Option',
				default: {},
				// Every operation has Send Repeated Values Once; the file's options belong to Validate, the others to Calculate.
				options: csvFileOptions(
					VAT_VALIDATION_ANSWER_COLUMNS,
					[
						{
							displayName: 'Is VAT Included',
							name: 'isVatIncluded',
							type: 'boolean',
							default: false,
							displayOptions: { show: { '/operation': ['calculate'] } },
							description:
								'Whether the amount already includes VAT (then the service splits it into net amount and VAT)',
						},
						estimateOnlyOption,
						sendRepeatsOnceOption,
						...answerReuseOptions,
						{
							displayName: 'VAT Category',
							name: 'vatCategory',
							type: 'string',
							default: '',
							displayOptions: { show: { '/operation': ['calculate'] } },
							placeholder: 'e.g. books',
							description:
								'A category name as Get Categories lists it, for a reduced rate. Empty: the standard rate.',
						},
					],
					VALIDATE,
				),
			},
		],
	};

	methods = { listSearch: { searchCountries } };

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await runService(this, vat, runSettingsFromOptions);
	}
}
