import type {
	IAuthenticate,
	ICredentialTestRequest,
	ICredentialType,
	Icon,
	INodeProperties,
} from 'n8n-workflow';
import { apiKeyProperty, baseUrlProperty, requestsPerSecondProperty } from './shared/properties';
import { keyPlacement } from './shared/keyPlacement';
import { testRequestIn } from './shared/testRequest';

export class AbstractCompanyApi implements ICredentialType {
	name = 'abstractCompanyApi';

	displayName = 'Abstract Company Enrichment API';

	documentationUrl = 'https://docs.abstractapi.com/api/company-enrichment';

	icon: Icon = {
		light: 'file:../nodes/AbstractCompany/abstractCompany.svg',
		dark: 'file:../nodes/AbstractCompany/abstractCompany.dark.svg',
	};

	properties: INodeProperties[] = [
		apiKeyProperty,
		baseUrlProperty('abstractCompanyApi'),
		requestsPerSecondProperty,
	];

	authenticate: IAuthenticate = keyPlacement('abstractCompanyApi');

	test: ICredentialTestRequest = {
		request: testRequestIn('abstractCompanyApi', 'getKeyInQuery', '/v2/', {
			domain: 'abstractapi.com',
			fields: 'domain',
		}),
	};
}
