import type { IAuthenticate, ICredentialTestRequest, ICredentialType, Icon, INodeProperties } from 'n8n-workflow';
import { apiKeyProperty, baseUrlProperty, requestsPerSecondProperty } from './shared/properties';
import { keyInQuery } from './shared/keyPlacement';

export class AbstractIbanApi implements ICredentialType {
	name = 'abstractIbanApi';

	displayName = 'Abstract IBAN Validation API';

	documentationUrl = 'https://docs.abstractapi.com/iban-validation';

	icon: Icon = { light: 'file:../icons/abstract.svg', dark: 'file:../icons/abstract.dark.svg' };

	properties: INodeProperties[] = [apiKeyProperty, baseUrlProperty('https://ibanvalidation.abstractapi.com'), requestsPerSecondProperty];

	authenticate: IAuthenticate = keyInQuery;

	test: ICredentialTestRequest = {
		request: {
			baseURL: '={{$credentials.baseUrl}}',
			url: '/v1/',
			qs: { iban: 'BE71096123456769' },
		},
	};
}
