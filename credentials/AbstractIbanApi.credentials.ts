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

export class AbstractIbanApi implements ICredentialType {
	name = 'abstractIbanApi';

	displayName = 'Abstract IBAN Validation API';

	documentationUrl = 'https://docs.abstractapi.com/api/iban-validation';

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
		request: testRequestIn('abstractIbanApi', 'getKeyInQuery', '/v1/', {
			iban: 'BE71096123456769',
		}),
	};
}
