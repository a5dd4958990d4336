import { NodeConnectionTypes } from 'n8n-workflow';
import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeType, INodeTypeDescription } from 'n8n-workflow';

import { recordItems, runService } from '../shared/engine/engine';
import { sendRepeatsOnceOption } from '../shared/parameters/options';
import { invalidInput } from '../shared/engine/errors';
import { fieldsOption, fieldsParameter } from '../shared/parameters/fields';
import type { ServiceDefinition, ServiceRequest } from '../shared/engine/types';
import { isIpv4, isIpv6 } from '../shared/values/validate';

/** The top-level keys of the geolocation record (contract 2.3), for `fields`. */
const RECORD_KEYS = [
	'ip_address',
	'city',
	'city_geoname_id',
	'region',
	'region_iso_code',
	'region_geoname_id',
	'postal_code',
	'country',
	'country_code',
	'country_geoname_id',
	'country_is_eu',
	'continent',
	'continent_code',
	'continent_geoname_id',
	'longitude',
	'latitude',
	'security',
	'timezone',
	'flag',
	'currency',
	'connection',
] as const;

/**
 * IP geolocation (contract 4.3): one address per item, or none for the caller's own address.
 * A 204 (no location data) becomes an item that says so, paired like any other: a row of a
 * lead list whose address cannot be located is a result, not a failure.
 */
const ipGeolocation: ServiceDefinition = {
	credentialType: 'abstractIpGeolocationApi',
	serviceName: 'IP Geolocation',
	prepare(itemIndex) {
		const raw = this.getNodeParameter('ipAddress', itemIndex, '');
		const ipAddress = raw === undefined || raw === null ? '' : String(raw).trim();
		if (ipAddress !== '' && !isIpv4(ipAddress) && !isIpv6(ipAddress)) {
			throw invalidInput(
				this,
				itemIndex,
				'IP Address (ipAddress)',
				`must be an IPv4 address (such as 8.8.8.8) or an IPv6 address (such as 2001:4860:4860::8888), or empty for the address this workflow runs from; got "${ipAddress}"`,
			);
		}
		const options = this.getNodeParameter('options', itemIndex, {}) as IDataObject;
		const fields = fieldsParameter(this, itemIndex, options.fields, RECORD_KEYS);
		const qs: IDataObject = {};
		// Empty means the caller's own address: the parameter is left out, not sent blank.
		if (ipAddress !== '') qs.ip_address = ipAddress;
		if (fields) qs.fields = fields;
		return { method: 'GET', path: '/v1/', qs };
	},
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
		subtitle: '={{"Locate " + ($parameter["ipAddress"] || "own address")}}',
		description: 'Locate an IPv4 or IPv6 address: city, region, country, time zone, currency, network and VPN flag',
		documentationUrl: 'https://docs.abstractapi.com/ip-geolocation',
		defaults: { name: 'IP Geolocation' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'abstractIpGeolocationApi', required: true }],
		properties: [
			{
				displayName: 'IP Address',
				name: 'ipAddress',
				type: 'string',
				default: '',
				placeholder: '8.8.8.8',
				hint: 'An IPv4 or IPv6 address; empty locates the address n8n runs from',
				description:
					'The IPv4 or IPv6 address to locate. Leave empty to locate the address this workflow runs from (the n8n server\'s public address).',
			},
			{
				displayName: 'Options',
				name: 'options',
				type: 'collection',
				placeholder: 'Add Option',
				default: {},
				options: [fieldsOption('geolocation record', RECORD_KEYS), sendRepeatsOnceOption],
			},
		],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await runService(this, ipGeolocation);
	}
}
