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

export class AbstractAvatarsApi implements ICredentialType {
	name = 'abstractAvatarsApi';

	displayName = 'Abstract Avatars API';

	documentationUrl = 'https://docs.abstractapi.com/api/avatars';

	icon: Icon = {
		light: 'file:../nodes/AbstractAvatars/abstractAvatars.svg',
		dark: 'file:../nodes/AbstractAvatars/abstractAvatars.dark.svg',
	};

	properties: INodeProperties[] = [
		apiKeyProperty,
		baseUrlProperty('abstractAvatarsApi'),
		requestsPerSecondProperty,
	];

	authenticate: IAuthenticate = keyPlacement('abstractAvatarsApi');

	test: ICredentialTestRequest = {
		request: testRequestIn(
			'abstractAvatarsApi',
			'getKeyInQuery',
			'/v1/',
			{ name: 'Test', image_size: 6 },
			{ encoding: 'arraybuffer' },
		),
	};
}
