import type { IAuthenticate, ICredentialTestRequest, ICredentialType, Icon, INodeProperties } from 'n8n-workflow';
import { apiKeyProperty, baseUrlProperty, requestsPerSecondProperty } from './shared/properties';
import { keyInQuery } from './shared/keyPlacement';

export class AbstractScreenshotApi implements ICredentialType {
	name = 'abstractScreenshotApi';

	displayName = 'Abstract Website Screenshot API';

	documentationUrl = 'https://docs.abstractapi.com/website-screenshot';

	icon: Icon = { light: 'file:../icons/abstract.svg', dark: 'file:../icons/abstract.dark.svg' };

	properties: INodeProperties[] = [apiKeyProperty, baseUrlProperty('https://screenshot.abstractapi.com'), requestsPerSecondProperty];

	authenticate: IAuthenticate = keyInQuery;

	test: ICredentialTestRequest = {
		request: {
			baseURL: '={{$credentials.baseUrl}}',
			url: '/v1/',
			qs: { url: 'https://example.com', capture_full_page: false, width: 320, height: 240 },
			encoding: 'arraybuffer',
			timeout: 120000,
		},
	};
}
