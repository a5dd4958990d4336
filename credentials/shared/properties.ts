import type { INodeProperties } from 'n8n-workflow';

/** The key of one service: keys are per service, a key of one is rejected by the others. */
export const apiKeyProperty: INodeProperties = {
	displayName: 'API Key',
	name: 'apiKey',
	type: 'string',
	typeOptions: { password: true },
	default: '',
	required: true,
	description: 'The API key of this service, from its page in the Abstract API dashboard. Keys are per service.',
};

/**
 * The service's address. It may carry a path prefix (an API gateway, a local sandbox): the node
 * appends its versioned path (/v1/ ...) to it, it does not replace it.
 */
export function baseUrlProperty(liveAddress: string): INodeProperties {
	return {
		displayName: 'Base URL',
		name: 'baseUrl',
		type: 'string',
		default: liveAddress,
		required: true,
		description:
			'Scheme and host of the service, optionally with a path prefix. The node appends the versioned path to it. The API key is sent only to addresses under this URL.',
	};
}

/** Pacing: the free plan allows one request a second, and the node never goes faster than this. */
export const requestsPerSecondProperty: INodeProperties = {
	displayName: 'Requests per Second',
	name: 'requestsPerSecond',
	type: 'number',
	typeOptions: { minValue: 0, numberPrecision: 2 },
	default: 1,
	description:
		'The highest request rate of your plan (free plans: 1). The node paces every item of a run to it, so it draws no "too many requests" errors by itself. 0 turns pacing off.',
};
