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
import { PHONE_COUNTRY_OPTIONS } from '../shared/values/phoneCountries';
import { PHONE_ANSWER_COLUMNS } from '../shared/csv/answerColumns';
import {
	csvBinaryParameter,
	csvFileOptions,
	csvOutputParameter,
	inputParameter,
	resultFileFieldParameter,
} from '../shared/csv/csvParameters';
import { valueOrFile } from '../shared/csv/valueOrFile';
import {
	answerReuseOptions,
	estimateOnlyOption,
	runSettingsFromOptions,
	sendRepeatsOnceOption,
} from '../shared/parameters/options';
import { runService } from '../shared/engine/engine';
import { fieldLabel } from '../shared/parameters/fieldLabel';
import { sendAsFormOf, sendAsOption } from '../shared/parameters/sendAs';
import type { ServiceDefinition } from '../shared/engine/types';
import { isoCountryCode, LONGEST, requiredWithin } from '../shared/values/validate';
import { itemParameter } from '../shared/engine/itemParameter';

/*
 * Phone Intelligence: one number per item, or a CSV file with the numbers in its first column
 * (the service's bulk file format), each answered with the phone analysis record. Each number
 * goes to /v1/ in the form Send As chooses: POST JSON with the key in an `Authorization: Bearer`
 * header (the default), POST form-encoded with `api_key` in the body, or GET with `api_key` in
 * the query.
 */

const phoneParameter: INodeProperties = {
	displayName: 'Phone',
	name: 'phone',
	type: 'string',
	default: '',
	required: true,
	displayOptions: { show: { input: ['value'] } },
	placeholder: '+14152007986',
	hint: 'Best with + and the country code; without it, set the Country option',
	description:
		'The phone number to analyze, best in international form with + and country code. Spaces, dashes and brackets are fine. A number without a country code needs the Country option.',
};

const countryOption: INodeProperties = {
	displayName: 'Country',
	name: 'country',
	type: 'options',
	options: PHONE_COUNTRY_OPTIONS,
	default: 'US',
	description:
		'Country of a number written without its country code; the service adds the country code to its analysis. An expression may give a two-letter code such as US or DE.',
};

const phoneIntelligence: ServiceDefinition = {
	...serviceCredential('abstractPhoneApi'),
	serviceName: 'Phone Intelligence',
	...valueOrFile({
		value: phoneParameter,
		column: 'first',
		looksLikeValue: looksLikePhoneNumber,
		forItem(itemIndex) {
			const options = itemParameter(this, 'options', itemIndex, {}) as IDataObject;
			// An empty country (an expression that found none) means "not given", not an error.
			const countryGiven = options[countryOption.name];
			const country =
				countryGiven !== undefined && String(countryGiven).trim() !== ''
					? isoCountryCode(this, itemIndex, fieldLabel(countryOption), countryGiven)
					: undefined;
			const form = sendAsFormOf(this, itemIndex, options.sendAs);
			return {
				answerColumns: PHONE_ANSWER_COLUMNS,
				prepare: (value, field) => {
					const phone = requiredWithin(this, itemIndex, field, value, LONGEST.phone);
					return requestIn(form, '/v1/', country ? { phone, country } : { phone });
				},
			};
		},
	}),
};

/** For header detection: a phone number has digits (at least 3); a column name has hardly any. */
function looksLikePhoneNumber(cell: string): boolean {
	return (cell.match(/\d/g)?.length ?? 0) >= 3;
}

export class AbstractPhone implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Abstract Phone Intelligence',
		name: 'abstractPhone',
		icon: { light: 'file:abstractPhone.svg', dark: 'file:abstractPhone.dark.svg' },
		group: ['transform'],
		version: 1,
		subtitle:
			'={{$parameter["input"] === "csvFile" ? "Analyze a CSV file\'s numbers" : "Analyze " + $parameter["phone"]}}',
		description:
			'Analyze a phone number: format, carrier, location, validity, risk and breach history',
		documentationUrl: 'https://docs.abstractapi.com/api/phone-intelligence',
		defaults: { name: 'Phone Intelligence' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'abstractPhoneApi', required: true }],
		properties: [
			inputParameter('number'),
			phoneParameter,
			{
				...csvBinaryParameter,
				hint: 'The name of the input binary field holding the CSV file (numbers in the first column, at most 50,000 rows)',
			},
			csvOutputParameter,
			resultFileFieldParameter,
			{
				displayName: 'Options',
				name: 'options',
				type: 'collection',
				placeholder: 'Add Option',
				default: {},
				options: csvFileOptions(PHONE_ANSWER_COLUMNS, [
					countryOption,
					estimateOnlyOption,
					sendAsOption,
					sendRepeatsOnceOption,
					...answerReuseOptions,
				]),
			},
		],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await runService(this, phoneIntelligence, runSettingsFromOptions);
	}
}
