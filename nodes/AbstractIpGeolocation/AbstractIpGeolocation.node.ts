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
import {
	columnsOfKeys,
	IP_GEOLOCATION_ANSWER_COLUMNS,
	topLevelKeys,
} from '../shared/csv/answerColumns';
import {
	columnParameter,
	csvFileOptions,
	csvFileParameters,
	inputParameter,
} from '../shared/csv/csvParameters';
import { valueOrFile } from '../shared/csv/valueOrFile';
import { recordItems, runService } from '../shared/engine/engine';
import {
	answerReuseOptions,
	estimateOnlyOption,
	runSettingsFromOptions,
	sendRepeatsOnceOption,
} from '../shared/parameters/options';
import { invalidInput } from '../shared/engine/errors';
import { fieldsOption, fieldsParameter } from '../shared/parameters/fields';
import type { ServiceDefinition, ServiceRequest } from '../shared/engine/types';
import { isIpv4, isIpv6 } from '../shared/values/validate';
import { quoted } from '../shared/values/quoted';
import { itemParameter } from '../shared/engine/itemParameter';

/*
 * IP Geolocation: one address per item, or none for the caller's own address, or a CSV file of
 * them. A 204 (no location data) becomes an item that says so, paired like any other (in a
 * result file: the row's status): a row of a lead list whose address cannot be located is a
 * result, not a failure.
 */

/** The top-level keys of the geolocation record, for `fields`. */
const RECORD_KEYS = topLevelKeys(IP_GEOLOCATION_ANSWER_COLUMNS);

const ipAddressParameter: INodeProperties = {
	displayName: 'IP Address',
	name: 'ipAddress',
	type: 'string',
	default: '',
	displayOptions: { show: { input: ['value'] } },
	placeholder: '8.8.8.8',
	hint: 'An IPv4 or IPv6 address; empty locates the address n8n runs from',
	description:
		"The IPv4 or IPv6 address to locate. Leave empty to locate the address this workflow runs from (the n8n server's public address).",
};

const ipAddressColumn = columnParameter({
	displayName: 'IP Address Column',
	name: 'ipAddressColumn',
	default: 'ip_address',
	holds: 'the IPv4 or IPv6 addresses',
});

const isIpAddress = (text: string) => isIpv4(text) || isIpv6(text);

/**
 * An address to locate. Empty means the caller's own address for one value per item; in a file
 * an empty cell is a row without its value (as a file's empty phone or email is), not a request
 * for the address n8n runs from, which would answer every such row alike.
 */
function ipAddressOf(
	ctx: IExecuteFunctions,
	itemIndex: number,
	field: string,
	raw: unknown,
	emptyIsCaller: boolean,
): string {
	const ipAddress = raw === undefined || raw === null ? '' : String(raw).trim();
	if (ipAddress === '' && !emptyIsCaller) {
		throw invalidInput(
			ctx,
			itemIndex,
			field,
			'is empty: every row of a file needs an address (only a single IP Address left empty locates the address n8n runs from)',
		);
	}
	if (ipAddress !== '' && !isIpAddress(ipAddress)) {
		throw invalidInput(
			ctx,
			itemIndex,
			field,
			`must be an IPv4 address (such as 8.8.8.8) or an IPv6 address (such as 2001:4860:4860::8888)${emptyIsCaller ? ', or empty for the address this workflow runs from' : ''}; got ${quoted(ipAddress)}`,
		);
	}
	return ipAddress;
}

const ipGeolocation: ServiceDefinition = {
	...serviceCredential('abstractIpGeolocationApi'),
	serviceName: 'IP Geolocation',
	...valueOrFile({
		value: ipAddressParameter,
		column: ipAddressColumn,
		looksLikeValue: isIpAddress,
		noDataOf: (record) => (record.no_data === true ? String(record.message) : undefined),
		forItem(itemIndex) {
			const options = itemParameter(this, 'options', itemIndex, {}) as IDataObject;
			const fields = fieldsParameter(this, itemIndex, options.fields, RECORD_KEYS);
			return {
				answerColumns: columnsOfKeys(IP_GEOLOCATION_ANSWER_COLUMNS, fields),
				prepare: (value, field, fromFile) => {
					const qs: IDataObject = {};
					const ipAddress = ipAddressOf(this, itemIndex, field, value, !fromFile);
					// Empty means the caller's own address: the parameter is left out, not sent blank.
					if (ipAddress !== '') qs.ip_address = ipAddress;
					if (fields) qs.fields = fields;
					return requestIn('getKeyInQuery', '/v1/', qs);
				},
			};
		},
	}),
	async run(itemIndex, request: ServiceRequest, client) {
		const response = await client.request(request);
		if (response.statusCode === 204 || response.body === '' || response.body === undefined) {
			const ipAddress = (request.qs?.ip_address as string | undefined) ?? null;
			return [
				{
					json: {
						ip_address: ipAddress,
						no_data: true,
						message: ipAddress
							? `The service has no location data for ${ipAddress}`
							: 'The service has no location data for the address this workflow runs from',
					},
				},
			];
		}
		return recordItems(response.body);
	},
};

export class AbstractIpGeolocation implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Abstract IP Geolocation',
		name: 'abstractIpGeolocation',
		icon: { light: 'file:abstractIpGeolocation.svg', dark: 'file:abstractIpGeolocation.dark.svg' },
		group: ['transform'],
		version: 1,
		subtitle:
			'={{$parameter["input"] === "csvFile" ? "Locate a CSV file\'s addresses" : "Locate " + ($parameter["ipAddress"] || "own address")}}',
		description:
			'Locate an IPv4 or IPv6 address: city, region, country, time zone, currency, network and VPN flag',
		documentationUrl: 'https://docs.abstractapi.com/api/ip-geolocation',
		defaults: { name: 'IP Geolocation' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'abstractIpGeolocationApi', required: true }],
		properties: [
			inputParameter('address'),
			ipAddressParameter,
			...csvFileParameters(ipAddressColumn),
			{
				displayName: 'Options',
				name: 'options',
				type: 'collection',
				placeholder: 'Add Option',
				default: {},
				options: csvFileOptions(IP_GEOLOCATION_ANSWER_COLUMNS, [
					fieldsOption('geolocation record', RECORD_KEYS),
					estimateOnlyOption,
					sendRepeatsOnceOption,
					...answerReuseOptions,
				]),
			},
		],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await runService(this, ipGeolocation, runSettingsFromOptions);
	}
}
