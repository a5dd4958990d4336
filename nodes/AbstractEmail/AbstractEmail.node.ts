import { NodeConnectionTypes } from 'n8n-workflow';
import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeType, INodeTypeDescription } from 'n8n-workflow';

import { EMAIL_ANSWER_COLUMNS } from '../shared/csv/answerColumns';
import { csvFanOut, inputKindOf, inputParameter } from '../shared/csv/csvInput';
import { columnOf, columnParameter, csvFileOptions, csvFileParameters } from '../shared/csv/csvParameters';
import { runService } from '../shared/engine/engine';
import { answerReuseOptions, estimateOnlyOption, sendRepeatsOnceOption } from '../shared/parameters/options';
import { lookupRequest, sendAsOf, sendAsOption } from '../shared/parameters/sendAs';
import type { ServiceDefinition } from '../shared/engine/types';
import { requiredText } from '../shared/values/validate';

const emailColumn = columnParameter({ displayName: 'Email Column', name: 'emailColumn', default: 'email', holds: 'the email addresses' });

/**
 * Email reputation: one address per item, answered with the email reputation record. A
 * malformed address is not rejected here: the service answers it with a 200 saying so (its status_detail invalid_format),
 * which is the information the person wants about that row.
 */
const emailReputation: ServiceDefinition = {
	credentialType: 'abstractEmailApi',
	serviceName: 'Email Reputation',
	// Some accounts get 403 rather than 422 when the credits are spent: the email service answers either.
	quotaStatuses: [422, 403],
	statusMessages: {
		403: 'The plan\'s API credits for Email Reputation are used up (403). Add credits or upgrade the plan, then run again',
	},
	async prepare(itemIndex) {
		const options = this.getNodeParameter('options', itemIndex, {}) as IDataObject;
		const sendAs = sendAsOf(this, itemIndex, options.sendAs);
		if (inputKindOf(this, itemIndex) === 'csvFile') {
			return await csvFanOut(this, itemIndex, {
				column: columnOf(this, itemIndex, emailColumn),
				looksLikeValue: (cell) => cell.includes('@'),
				valueLabel: 'Email',
				answerColumns: EMAIL_ANSWER_COLUMNS,
				prepare: (value, field) => lookupRequest('/v1/', { email: requiredText(this, itemIndex, field, value) }, sendAs),
			});
		}
		const email = requiredText(this, itemIndex, 'Email (email)', this.getNodeParameter('email', itemIndex));
		return lookupRequest('/v1/', { email }, sendAs);
	},
};

export class AbstractEmail implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Abstract Email Reputation',
		name: 'abstractEmail',
		icon: { light: 'file:abstractEmail.svg', dark: 'file:abstractEmail.dark.svg' },
		group: ['transform'],
		version: 1,
		subtitle: '={{$parameter["input"] === "csvFile" ? "Check a CSV file\'s addresses" : "Check " + $parameter["email"]}}',
		description: 'Check an email address: deliverability, quality, sender, domain, risk and breach history',
		documentationUrl: 'https://docs.abstractapi.com/email-reputation',
		defaults: { name: 'Email Reputation' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'abstractEmailApi', required: true }],
		properties: [
			inputParameter('address'),
			{
				displayName: 'Email',
				name: 'email',
				type: 'string',
				default: '',
				required: true,
				displayOptions: { show: { input: ['value'] } },
				placeholder: 'name@email.com',
				hint: 'The address to check, such as ada@example.com',
				description:
					'The email address to check. A malformed address is still sent: the service answers it as undeliverable with status detail invalid_format.',
			},
			...csvFileParameters(emailColumn),
			{
				displayName: 'Options',
				name: 'options',
				type: 'collection',
				placeholder: 'Add Option',
				default: {},
				options: csvFileOptions(EMAIL_ANSWER_COLUMNS, [estimateOnlyOption, sendAsOption, sendRepeatsOnceOption, ...answerReuseOptions]),
			},
		],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await runService(this, emailReputation);
	}
}
