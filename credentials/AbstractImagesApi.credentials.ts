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

export class AbstractImagesApi implements ICredentialType {
	name = 'abstractImagesApi';

	displayName = 'Abstract Image Processing API';

	documentationUrl = 'https://docs.abstractapi.com/api/images';

	icon: Icon = {
		light: 'file:../nodes/AbstractImages/abstractImages.svg',
		dark: 'file:../nodes/AbstractImages/abstractImages.dark.svg',
	};

	properties: INodeProperties[] = [
		apiKeyProperty,
		baseUrlProperty('abstractImagesApi'),
		requestsPerSecondProperty,
	];

	authenticate: IAuthenticate = keyPlacement('abstractImagesApi');

	test: ICredentialTestRequest = {
		request: testRequestIn('abstractImagesApi', 'postJsonKeyInBody', '/v1/url/', {
			url: 'https://images.abstractapi.com/test.png',
		}),
	};
}
