import type { IAuthenticate, ICredentialTestRequest, ICredentialType, Icon, INodeProperties } from 'n8n-workflow';
import { apiKeyProperty, baseUrlProperty } from './shared/properties';
import { keyInQuery } from './shared/keyPlacement';

/**
 * The organization's IP intelligence key, which also licenses the IP database downloads. The
 * download endpoint has no request rate (contract 8), so there is no pacing field; a rejected
 * key answers 403 there (contract 5.6).
 */
export class AbstractIpIntelligenceApi implements ICredentialType {
	name = 'abstractIpIntelligenceApi';

	displayName = 'Abstract IP Intelligence API';

	documentationUrl = 'https://docs.abstractapi.com/ip-intelligence';

	icon: Icon = { light: 'file:../icons/abstract.svg', dark: 'file:../icons/abstract.dark.svg' };

	properties: INodeProperties[] = [apiKeyProperty, baseUrlProperty('https://api.abstractapi.com')];

	authenticate: IAuthenticate = keyInQuery;

	test: ICredentialTestRequest = {
		request: {
			baseURL: '={{$credentials.baseUrl}}',
			url: '/v1/database/download/',
			qs: { database: 'ip-geolocation', format: 'mmdb', response: 'json' },
		},
	};
}
