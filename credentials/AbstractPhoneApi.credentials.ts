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

export class AbstractPhoneApi implements ICredentialType {
	name = 'abstractPhoneApi';

	displayName = 'Abstract Phone Intelligence API';

	documentationUrl = 'https://docs.abstractapi.com/phone-intelligence';

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
		request: {
			baseURL: testBaseUrl('abstractPhoneApi'),
			url: '/v1/',
			qs: { phone: '14152007986' },
		},
	};
}
