import type {
	IAuthenticate,
	ICredentialTestRequest,
	ICredentialType,
	Icon,
	INodeProperties,
} from 'n8n-workflow';
import { apiKeyProperty, baseUrlProperty, requestsPerSecondProperty } from './shared/properties';
import { keyPlacement } from './shared/keyPlacement';
import { testBaseUrl } from './shared/liveBaseUrls';

export class AbstractIbanApi implements ICredentialType {
	name = 'abstractIbanApi';

	displayName = 'Abstract IBAN Validation API';

	documentationUrl = 'https://docs.abstractapi.com/iban-validation';

	icon: Icon = {
		light: 'file:../nodes/AbstractIban/abstractIban.svg',
		dark: 'file:../nodes/AbstractIban/abstractIban.dark.svg',
	};

	properties: INodeProperties[] = [
		apiKeyProperty,
		baseUrlProperty('abstractIbanApi'),
		requestsPerSecondProperty,
	];

	authenticate: IAuthenticate = keyPlacement('abstractIbanApi');

	test: ICredentialTestRequest = {
		request: {
			baseURL: testBaseUrl('abstractIbanApi'),
			url: '/v1/',
			qs: { iban: 'BE71096123456769' },
		},
	};
}
