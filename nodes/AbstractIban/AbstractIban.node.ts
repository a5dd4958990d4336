import { NodeConnectionTypes } from 'n8n-workflow';
import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';

import { serviceCredential } from '../../credentials/shared/liveBaseUrls';
import { requestIn } from '../../credentials/shared/requestForms';
import { IBAN_ANSWER_COLUMNS } from '../shared/csv/answerColumns';
import {
	columnParameter,
	csvFileOptions,
	csvFileParameters,
	inputParameter,
} from '../shared/csv/csvParameters';
import { valueOrFile } from '../shared/csv/valueOrFile';
import { runService } from '../shared/engine/engine';
import {
	answerReuseOptions,
	estimateOnlyOption,
	runSettingsFromOptions,
	sendRepeatsOnceOption,
} from '../shared/parameters/options';
import type { ServiceDefinition } from '../shared/engine/types';
import { LONGEST, requiredWithin } from '../shared/values/validate';

/*
 * IBAN Validation: one IBAN per item, or a CSV file of them, spaced or compact, answered with
 * `{ iban, is_valid }`. An IBAN that is not valid is not refused here: that is the service's
 * answer (is_valid false), which the person wants for that row.
 */

const ibanParameter: INodeProperties = {
	displayName: 'IBAN',
	name: 'iban',
	type: 'string',
	default: '',
	required: true,
	displayOptions: { show: { input: ['value'] } },
	placeholder: 'DE89 3704 0044 0532 0130 00',
	hint: 'An IBAN, with or without spaces',
	description:
		'The IBAN to validate. Spaces are fine: the spaced form is as valid as the compact one.',
};

const ibanColumn = columnParameter({
	displayName: 'IBAN Column',
	name: 'ibanColumn',
	default: 'iban',
	holds: 'the IBANs',
});

/** For header detection: an IBAN starts with its country's two letters and two check digits. */
const looksLikeIban = (cell: string) => /^[A-Za-z]{2}\d{2}/.test(cell.replace(/\s+/g, ''));

const ibanValidation: ServiceDefinition = {
	...serviceCredential('abstractIbanApi'),
	serviceName: 'IBAN Validation',
	...valueOrFile({
		value: ibanParameter,
		column: ibanColumn,
		looksLikeValue: looksLikeIban,
		forItem(itemIndex) {
			return {
				answerColumns: IBAN_ANSWER_COLUMNS,
				prepare: (value, field) =>
					requestIn('getKeyInQuery', '/v1/', {
						iban: requiredWithin(this, itemIndex, field, value, LONGEST.iban),
					}),
			};
		},
	}),
};

export class AbstractIban implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Abstract IBAN Validation',
		name: 'abstractIban',
		icon: { light: 'file:abstractIban.svg', dark: 'file:abstractIban.dark.svg' },
		group: ['transform'],
		version: 1,
		subtitle:
			'={{$parameter["input"] === "csvFile" ? "Validate a CSV file\'s IBANs" : "Validate " + $parameter["iban"]}}',
		description: 'Check whether an IBAN is valid',
		documentationUrl: 'https://docs.abstractapi.com/api/iban-validation',
		defaults: { name: 'IBAN Validation' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'abstractIbanApi', required: true }],
		properties: [
			inputParameter('IBAN'),
			ibanParameter,
			...csvFileParameters(ibanColumn),
			{
				displayName: 'Options',
				name: 'options',
				type: 'collection',
				placeholder: 'Add Option',
				default: {},
				options: csvFileOptions(IBAN_ANSWER_COLUMNS, [
					estimateOnlyOption,
					sendRepeatsOnceOption,
					...answerReuseOptions,
				]),
			},
		],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await runService(this, ibanValidation, runSettingsFromOptions);
	}
}
