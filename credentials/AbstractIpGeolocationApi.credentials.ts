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

export class AbstractIpGeolocationApi implements ICredentialType {
	name = 'abstractIpGeolocationApi';

	displayName = 'Abstract IP Geolocation API';

	documentationUrl = 'https://docs.abstractapi.com/api/ip-geolocation';

	icon: Icon = {
		light: 'file:../nodes/AbstractIpGeolocation/abstractIpGeolocation.svg',
		dark: 'file:../nodes/AbstractIpGeolocation/abstractIpGeolocation.dark.svg',
	};

	properties: INodeProperties[] = [
		apiKeyProperty,
		baseUrlProperty('abstractIpGeolocationApi'),
		requestsPerSecondProperty,
	];

	authenticate: IAuthenticate = keyPlacement('abstractIpGeolocationApi');

	test: ICredentialTestRequest = {
		request: testRequestIn('abstractIpGeolocationApi', 'getKeyInQuery', '/v1/', {
			fields: 'ip_address',
		}),
	};
}
