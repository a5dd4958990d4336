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

export class AbstractPhoneApi implements ICredentialType {
	name = 'abstractPhoneApi';

	displayName = 'Abstract Phone Intelligence API';

	documentationUrl = 'https://docs.abstractapi.com/api/phone-intelligence';

	icon: Icon = {
		light: 'file:../nodes/AbstractPhone/abstractPhone.svg',
		dark: 'file:../nodes/AbstractPhone/abstractPhone.dark.svg',
	};

	properties: INodeProperties[] = [
		apiKeyProperty,
		baseUrlProperty('abstractPhoneApi'),
		requestsPerSecondProperty,
	];

	authenticate: IAuthenticate = keyPlacement('abstractPhoneApi');

	test: ICredentialTestRequest = {
		request: testRequestIn('abstractPhoneApi', 'getKeyInQuery', '/v1/', { phone: '14152007986' }),
	};
}
