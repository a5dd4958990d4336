import { NodeConnectionTypes } from 'n8n-workflow';
import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';

import { IBAN_ANSWER_COLUMNS } from '../shared/csv/answerColumns';
import {
	columnOf,
	columnParameter,
	csvFileOptions,
	csvFileParameters,
} from '../shared/csv/csvParameters';
import { csvFanOut, inputKindOf, inputParameter } from '../shared/csv/csvInput';
import { runService } from '../shared/engine/engine';
import {
	answerReuseOptions,
	estimateOnlyOption,
	runSettingsFromOptions,
	sendRepeatsOnceOption,
} from '../shared/parameters/options';
import type { ServiceDefinition, ServiceRequest } from '../shared/engine/types';
import { requiredText } from '../shared/values/validate';

const ibanColumn = columnParameter({
	displayName: 'IBAN Column',
	name: 'ibanColumn',
	default: 'iban',
	holds: 'the IBANs',
});

/** For header detection: an IBAN starts with its country's two letters and two check digits. */
const looksLikeIban = (cell: string) => /^[A-Za-z]{2}\d{2}/.test(cell.replace(/\s+/g, ''));

/**
 * IBAN validation: one IBAN per item, or every row of a CSV file, spaced or
 * compact, answered with `{ iban, is_valid }`. An IBAN that is not valid is not refused here: that is the
 * service's answer (is_valid false), which the person wants for that row.
 */
const ibanValidation: ServiceDefinition = {
	credentialType: 'abstractIbanApi',
	serviceName: 'IBAN Validation',
	async prepare(itemIndex) {
		const request = (iban: string): ServiceRequest => ({ path: '/v1/', qs: { iban } });
		if (inputKindOf(this, itemIndex) === 'csvFile') {
			return await csvFanOut(this, itemIndex, {
				column: columnOf(this, itemIndex, ibanColumn),
				looksLikeValue: looksLikeIban,
				valueLabel: 'IBAN',
				answerColumns: IBAN_ANSWER_COLUMNS,
				prepare: (value, field) => request(requiredText(this, itemIndex, field, value)),
			});
		}
		return request(
			requiredText(this, itemIndex, 'IBAN (iban)', this.getNodeParameter('iban', itemIndex)),
		);
	},
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
		documentationUrl: 'https://docs.abstractapi.com/iban-validation',
		defaults: { name: 'IBAN Validation' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'abstractIbanApi', required: true }],
		properties: [
			inputParameter('IBAN'),
			{
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
			},
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
