import { NodeConnectionTypes } from 'n8n-workflow';
import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeType, INodeTypeDescription } from 'n8n-workflow';

import { runService } from '../shared/engine';
import { lookupRequest, sendAsOf, sendAsOption } from '../shared/sendAs';
import type { ServiceDefinition } from '../shared/types';
import { requiredText } from '../shared/validate';

/**
 * Email reputation (contract 4.2): one address per item, answered with the record of 2.2. A
 * malformed address is not rejected here: the service answers it with a 200 saying so (2.2.2),
 * which is the information the person wants about that row.
 */
const emailReputation: ServiceDefinition = {
	credentialType: 'abstractEmailApi',
	serviceName: 'Email Reputation',
	// Some accounts get 403 rather than 422 when the credits are spent (contract 7.1).
	statusMessages: {
		403: 'The plan\'s API credits for Email Reputation are used up (403). Add credits or upgrade the plan, then run again',
	},
	prepare(itemIndex) {
		const email = requiredText(this, itemIndex, 'Email (email)', this.getNodeParameter('email', itemIndex));
		const options = this.getNodeParameter('options', itemIndex, {}) as IDataObject;
		return lookupRequest('/v1/', { email }, sendAsOf(this, itemIndex, options.sendAs));
	},
};

export class AbstractEmail implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Abstract Email Reputation',
		name: 'abstractEmail',
		icon: { light: 'file:abstractEmail.svg', dark: 'file:abstractEmail.dark.svg' },
		group: ['transform'],
		version: 1,
		subtitle: '={{"Check " + $parameter["email"]}}',
		description: 'Check an email address: deliverability, quality, sender, domain, risk and breach history',
		documentationUrl: 'https://docs.abstractapi.com/email-reputation',
		defaults: { name: 'Email Reputation' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'abstractEmailApi', required: true }],
		properties: [
			{
				displayName: 'Email',
				name: 'email',
				type: 'string',
				default: '',
				required: true,
				placeholder: 'name@email.com',
				hint: 'The address to check, such as ada@example.com',
				description:
					'The email address to check. A malformed address is still sent: the service answers it as undeliverable with status detail invalid_format.',
			},
			{
				displayName: 'Options',
				name: 'options',
				type: 'collection',
				placeholder: 'Add Option',
				default: {},
				options: [sendAsOption],
			},
		],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await runService(this, emailReputation);
	}
}
