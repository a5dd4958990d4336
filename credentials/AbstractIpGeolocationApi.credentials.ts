import type { IAuthenticate, ICredentialTestRequest, ICredentialType, Icon, INodeProperties } from 'n8n-workflow';
import { apiKeyProperty, baseUrlProperty, requestsPerSecondProperty } from './shared/properties';
import { keyInQuery } from './shared/keyPlacement';

export class AbstractIpGeolocationApi implements ICredentialType {
	name = 'abstractIpGeolocationApi';

	displayName = 'Abstract IP Geolocation API';

	documentationUrl = 'https://docs.abstractapi.com/ip-geolocation';

	icon: Icon = { light: 'file:../icons/abstract.svg', dark: 'file:../icons/abstract.dark.svg' };

	properties: INodeProperties[] = [apiKeyProperty, baseUrlProperty('https://ipgeolocation.abstractapi.com'), requestsPerSecondProperty];

	authenticate: IAuthenticate = keyInQuery;

	test: ICredentialTestRequest = {
		request: {
			baseURL: '={{$credentials.baseUrl}}',
			url: '/v1/',
			qs: { fields: 'ip_address' },
		},
	};
}
