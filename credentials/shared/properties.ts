import type { INodeProperties } from 'n8n-workflow';

import { LIVE_BASE_URLS } from './liveBaseUrls';

/** The key of one service: keys are per service, a key of one is rejected by the others. */
export const apiKeyProperty: INodeProperties = {
	displayName: 'API Key',
	name: 'apiKey',
	type: 'string',
	typeOptions: { password: true },
	default: '',
	required: true,
	hint: "From this service's page in the Abstract API dashboard. Each service has its own key.",
};

/**
 * The service's address. Empty (the default) means the live address, shown as the placeholder;
 * a value may carry a path prefix (an API gateway, a local sandbox): the node appends its
 * versioned path (/v1/ ...) to it, it does not replace it.
 */
export function baseUrlProperty(credentialType: string): INodeProperties {
	const live = LIVE_BASE_URLS[credentialType];
	return {
		displayName: 'Base URL',
		name: 'baseUrl',
		type: 'string',
		default: '',
		placeholder: live,
		hint: `Leave empty for the live service (${live}). Set it only for a gateway or a test server; the key is sent only to this address.`,
	};
}

/** Pacing: the free plan allows one request a second, and the node never goes faster than this. */
export const requestsPerSecondProperty: INodeProperties = {
	displayName: 'Requests per Second',
	name: 'requestsPerSecond',
	type: 'number',
	typeOptions: { minValue: 0, numberPrecision: 0 },
	default: 1,
	hint: "Your plan's rate: 1 on free plans. The node paces every item to it; 0 turns pacing off.",
};
