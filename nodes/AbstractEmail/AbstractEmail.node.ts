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
import { EMAIL_ANSWER_COLUMNS } from '../shared/csv/answerColumns';
import {
	columnParameter,
	csvFileOptions,
	csvFileParameters,
	inputParameter,
} from '../shared/csv/csvParameters';
import { valueOrFile, writesResultFile } from '../shared/csv/valueOrFile';
import { recordItems, runService } from '../shared/engine/engine';
import {
	answerReuseOptions,
	estimateOnlyOption,
	runSettingsFromOptions,
	sendRepeatsOnceOption,
} from '../shared/parameters/options';
import { sendAsFormOf, sendAsOption } from '../shared/parameters/sendAs';
import type { ServiceDefinition, ServiceRequest } from '../shared/engine/types';
import { emailValue } from '../shared/values/validate';
import { itemParameter } from '../shared/engine/itemParameter';

/*
 * Email Reputation: one address per item, or a CSV file of them, each to /v1/ in the form Send As
 * chooses: POST JSON with the key in an `Authorization: Bearer` header (the default), POST
 * form-encoded with `api_key` in the body, or GET with `api_key` in the query. A malformed
 * address is sent, not refused: the service answers it with a 200 saying so (status_detail
 * invalid_format), which is what the person wants to know about that row. Only the form CRM exports write, `Ada Lovelace
 * <ada@acme.com>` or `<ada@acme.com>`, is read (RFC 5322): its address is sent.
 */

const emailParameter: INodeProperties = {
	displayName: 'Email',
	name: 'email',
	type: 'string',
	default: '',
	required: true,
	displayOptions: { show: { input: ['value'] } },
	placeholder: 'name@email.com',
	hint: 'The address to check, such as ada@example.com',
	description:
		'The email address to check. From "Ada Lovelace &lt;ada@example.com&gt;" the address in brackets is sent (the output names it in lookupEmail). A malformed address is still sent: the service answers it as invalid_format.',
};

const emailColumn = columnParameter({
	displayName: 'Email Column',
	name: 'emailColumn',
	default: 'email',
	holds: 'the email addresses',
});

/** The key of an output item that says which address was checked, when it was taken out of `Name <address>`. */
const LOOKUP_EMAIL_KEY = 'lookupEmail';

interface EmailLookup {
	request: ServiceRequest;
	/** Set when the address was taken out of angle brackets: the output item names it. */
	lookupEmail?: string;
}

const emailReputation: ServiceDefinition<EmailLookup> = {
	...serviceCredential('abstractEmailApi'),
	serviceName: 'Email Reputation',
	// Some accounts get 403 rather than 422 when the credits are spent: the email service answers either.
	quotaStatuses: [422, 403],
	statusMessages: {
		403: "The plan's API credits for Email Reputation are used up (403). Add credits or upgrade the plan, then run again",
	},
	// The request alone: `Ada <ada@acme.com>` and `ada@acme.com` send the same one, and the address
	// an item named (lookupEmail) is its presentation, added by `present`.
	requestOf: ({ request }) => request,
	...valueOrFile({
		value: emailParameter,
		column: emailColumn,
		looksLikeValue: (cell) => cell.includes('@'),
		forItem(itemIndex) {
			const options = itemParameter(this, 'options', itemIndex, {}) as IDataObject;
			const form = sendAsFormOf(this, itemIndex, options.sendAs);
			// A result file's row holds the value and the answer side by side: no naming needed there.
			const nameAddress = !writesResultFile(this, itemIndex);
			return {
				answerColumns: EMAIL_ANSWER_COLUMNS,
				prepare: (value, field) => {
					const { typed, inBrackets } = emailValue(this, itemIndex, field, value);
					const request = requestIn(form, '/v1/', { email: inBrackets ?? typed });
					return inBrackets !== undefined && nameAddress
						? { request, lookupEmail: inBrackets }
						: { request };
				},
			};
		},
	}),
	async run(_itemIndex, { request }, client) {
		return recordItems((await client.request(request)).body);
	},
	present(_itemIndex, { lookupEmail }, items) {
		for (const item of items) {
			delete item.json[LOOKUP_EMAIL_KEY];
			if (lookupEmail !== undefined) item.json[LOOKUP_EMAIL_KEY] = lookupEmail;
		}
		return items;
	},
};

export class AbstractEmail implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Abstract Email Reputation',
		name: 'abstractEmail',
		icon: { light: 'file:abstractEmail.svg', dark: 'file:abstractEmail.dark.svg' },
		group: ['transform'],
		version: 1,
		subtitle:
			'={{$parameter["input"] === "csvFile" ? "Check a CSV file\'s addresses" : "Check " + $parameter["email"]}}',
		description:
			'Check an email address: deliverability, quality, sender, domain, risk and breach history',
		documentationUrl: 'https://docs.abstractapi.com/api/email-reputation',
		defaults: { name: 'Email Reputation' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'abstractEmailApi', required: true }],
		properties: [
			inputParameter('address'),
			emailParameter,
			...csvFileParameters(emailColumn),
			{
				displayName: 'Options',
				name: 'options',
				type: 'collection',
				placeholder: 'Add Option',
				default: {},
				options: csvFileOptions(EMAIL_ANSWER_COLUMNS, [
					estimateOnlyOption,
					sendAsOption,
					sendRepeatsOnceOption,
					...answerReuseOptions,
				]),
			},
		],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await runService(this, emailReputation, runSettingsFromOptions);
	}
}
