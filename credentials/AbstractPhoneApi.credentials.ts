import type { IAuthenticate, ICredentialTestRequest, ICredentialType, Icon, INodeProperties } from 'n8n-workflow';
import { apiKeyProperty, baseUrlProperty, requestsPerSecondProperty } from './shared/properties';
import { keyByRequestForm } from './shared/keyPlacement';

export class AbstractPhoneApi implements ICredentialType {
	name = 'abstractPhoneApi';

	displayName = 'Abstract Phone Intelligence API';

	documentationUrl = 'https://docs.abstractapi.com/phone-intelligence';

	icon: Icon = { light: 'file:../icons/abstract.svg', dark: 'file:../icons/abstract.dark.svg' };

	properties: INodeProperties[] = [apiKeyProperty, baseUrlProperty('https://phoneintelligence.abstractapi.com'), requestsPerSecondProperty];

	authenticate: IAuthenticate = keyByRequestForm;

	test: ICredentialTestRequest = {
		request: {
			baseURL: '={{$credentials.baseUrl}}',
			url: '/v1/',
			qs: { phone: '14152007986' },
		},
	};
}
