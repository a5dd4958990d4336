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

export class AbstractEmailApi implements ICredentialType {
	name = 'abstractEmailApi';

	displayName = 'Abstract Email Reputation API';

	documentationUrl = 'https://docs.abstractapi.com/api/email-reputation';

	icon: Icon = {
		light: 'file:../nodes/AbstractEmail/abstractEmail.svg',
		dark: 'file:../nodes/AbstractEmail/abstractEmail.dark.svg',
	};

	properties: INodeProperties[] = [
		apiKeyProperty,
		baseUrlProperty('abstractEmailApi'),
		requestsPerSecondProperty,
	];

	authenticate: IAuthenticate = keyPlacement('abstractEmailApi');

	test: ICredentialTestRequest = {
		request: testRequestIn('abstractEmailApi', 'getKeyInQuery', '/v1/', {
			email: 'support@abstractapi.com',
		}),
	};
}
