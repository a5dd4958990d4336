import type { IAuthenticate, ICredentialTestRequest, ICredentialType, Icon, INodeProperties } from 'n8n-workflow';
import { apiKeyProperty, baseUrlProperty, requestsPerSecondProperty } from './shared/properties';
import { keyInImageRequest } from './shared/keyPlacement';

export class AbstractImagesApi implements ICredentialType {
	name = 'abstractImagesApi';

	displayName = 'Abstract Image Processing API';

	documentationUrl = 'https://docs.abstractapi.com/image-processing';

	icon: Icon = { light: 'file:../icons/abstract.svg', dark: 'file:../icons/abstract.dark.svg' };

	properties: INodeProperties[] = [apiKeyProperty, baseUrlProperty('https://images.abstractapi.com'), requestsPerSecondProperty];

	authenticate: IAuthenticate = keyInImageRequest;

	test: ICredentialTestRequest = {
		request: {
			baseURL: '={{$credentials.baseUrl}}',
			method: 'POST',
			url: '/v1/url/',
			body: { url: 'https://images.abstractapi.com/test.png' },
			json: true,
		},
	};
}
