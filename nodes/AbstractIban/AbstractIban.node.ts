import { NodeConnectionTypes } from 'n8n-workflow';
import type { IExecuteFunctions, INodeExecutionData, INodeType, INodeTypeDescription } from 'n8n-workflow';

import { runService } from '../shared/engine/engine';
import { sendRepeatsOnceOption } from '../shared/parameters/options';
import type { ServiceDefinition } from '../shared/engine/types';
import { requiredText } from '../shared/values/validate';

/** IBAN validation (contract 4.7): one IBAN per item, spaced or compact, answered with 2.7. */
const ibanValidation: ServiceDefinition = {
	credentialType: 'abstractIbanApi',
	serviceName: 'IBAN Validation',
	prepare(itemIndex) {
		const iban = requiredText(this, itemIndex, 'IBAN (iban)', this.getNodeParameter('iban', itemIndex));
		return { path: '/v1/', qs: { iban } };
	},
};

export class AbstractIban implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Abstract IBAN Validation',
		name: 'abstractIban',
		icon: { light: 'file:abstractIban.svg', dark: 'file:abstractIban.dark.svg' },
		group: ['transform'],
		version: 1,
		subtitle: '={{"Validate " + $parameter["iban"]}}',
		description: 'Check whether an IBAN is valid',
		documentationUrl: 'https://docs.abstractapi.com/iban-validation',
		defaults: { name: 'IBAN Validation' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'abstractIbanApi', required: true }],
		properties: [
			{
				displayName: 'IBAN',
				name: 'iban',
				type: 'string',
				default: '',
				required: true,
				placeholder: 'DE89 3704 0044 0532 0130 00',
				hint: 'An IBAN, with or without spaces',
				description: 'The IBAN to validate. Spaces are fine: the spaced form is as valid as the compact one.',
			},
			{
				displayName: 'Options',
				name: 'options',
				type: 'collection',
				placeholder: 'Add Option',
				default: {},
				options: [sendRepeatsOnceOption],
			},
		],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await runService(this, ibanValidation);
	}
}
