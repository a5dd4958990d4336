import type {
	IAuthenticate,
	ICredentialTestRequest,
	ICredentialType,
	Icon,
	INodeProperties,
} from 'n8n-workflow';
import { apiKeyProperty, baseUrlProperty } from './shared/properties';
import { keyPlacement } from './shared/keyPlacement';
import { testRequestIn } from './shared/testRequest';

/**
 * The organization's IP intelligence key, which also licenses the IP database downloads. The
 * download endpoint has no request rate, so there is no pacing field; a rejected
 * key answers 403 there (the lookup services answer 401).
 */
export class AbstractIpIntelligenceApi implements ICredentialType {
	name = 'abstractIpIntelligenceApi';

	displayName = 'Abstract IP Database API';

	documentationUrl = 'https://docs.abstractapi.com/api/ip-intelligence';

	icon: Icon = {
		light: 'file:../nodes/AbstractIpDatabase/abstractIpDatabase.svg',
		dark: 'file:../nodes/AbstractIpDatabase/abstractIpDatabase.dark.svg',
	};

	properties: INodeProperties[] = [
		{
			...apiKeyProperty,
			hint: "Your organization's IP Intelligence key, from the Abstract API dashboard: it licenses the databases.",
		},
		baseUrlProperty('abstractIpIntelligenceApi'),
	];

	authenticate: IAuthenticate = keyPlacement('abstractIpIntelligenceApi');

	test: ICredentialTestRequest = {
		request: testRequestIn('abstractIpIntelligenceApi', 'getKeyInQuery', '/v1/database/download/', {
			database: 'ip-geolocation',
			format: 'mmdb',
			response: 'json',
		}),
	};
}
