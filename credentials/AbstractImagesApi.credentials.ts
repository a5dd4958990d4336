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

export class AbstractImagesApi implements ICredentialType {
	name = 'abstractImagesApi';

	displayName = 'Abstract Image Processing API';

	documentationUrl = 'https://docs.abstractapi.com/image-processing';

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
		request: {
			baseURL: testBaseUrl('abstractImagesApi'),
			method: 'POST',
			url: '/v1/url/',
			body: { url: 'https://images.abstractapi.com/test.png' },
			json: true,
		},
	};
}
