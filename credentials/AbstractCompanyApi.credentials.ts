import type { IAuthenticate, ICredentialTestRequest, ICredentialType, Icon, INodeProperties } from 'n8n-workflow';
import { apiKeyProperty, baseUrlProperty, requestsPerSecondProperty } from './shared/properties';
import { keyInQuery } from './shared/keyPlacement';

export class AbstractCompanyApi implements ICredentialType {
	name = 'abstractCompanyApi';

	displayName = 'Abstract Company Enrichment API';

	documentationUrl = 'https://docs.abstractapi.com/company-enrichment';

	icon: Icon = { light: 'file:../icons/abstract.svg', dark: 'file:../icons/abstract.dark.svg' };

	properties: INodeProperties[] = [apiKeyProperty, baseUrlProperty('https://companyenrichment.abstractapi.com'), requestsPerSecondProperty];

	authenticate: IAuthenticate = keyInQuery;

	test: ICredentialTestRequest = {
		request: {
			baseURL: '={{$credentials.baseUrl}}',
			url: '/v2/',
			qs: { domain: 'abstractapi.com', fields: 'domain' },
		},
	};
}
