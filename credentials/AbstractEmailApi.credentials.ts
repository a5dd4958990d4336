import type { IAuthenticate, ICredentialTestRequest, ICredentialType, Icon, INodeProperties } from 'n8n-workflow';
import { apiKeyProperty, baseUrlProperty, requestsPerSecondProperty } from './shared/properties';
import { keyByRequestForm } from './shared/keyPlacement';

export class AbstractEmailApi implements ICredentialType {
	name = 'abstractEmailApi';

	displayName = 'Abstract Email Reputation API';

	documentationUrl = 'https://docs.abstractapi.com/email-reputation';

	icon: Icon = { light: 'file:../icons/abstract.svg', dark: 'file:../icons/abstract.dark.svg' };

	properties: INodeProperties[] = [apiKeyProperty, baseUrlProperty('https://emailreputation.abstractapi.com'), requestsPerSecondProperty];

	authenticate: IAuthenticate = keyByRequestForm;

	test: ICredentialTestRequest = {
		request: {
			baseURL: '={{$credentials.baseUrl}}',
			url: '/v1/',
			qs: { email: 'support@abstractapi.com' },
		},
	};
}
