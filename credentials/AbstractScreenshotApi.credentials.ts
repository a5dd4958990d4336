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

export class AbstractScreenshotApi implements ICredentialType {
	name = 'abstractScreenshotApi';

	displayName = 'Abstract Website Screenshot API';

	documentationUrl = 'https://docs.abstractapi.com/api/screenshot';

	icon: Icon = {
		light: 'file:../nodes/AbstractScreenshot/abstractScreenshot.svg',
		dark: 'file:../nodes/AbstractScreenshot/abstractScreenshot.dark.svg',
	};

	properties: INodeProperties[] = [
		apiKeyProperty,
		baseUrlProperty('abstractScreenshotApi'),
		requestsPerSecondProperty,
	];

	authenticate: IAuthenticate = keyPlacement('abstractScreenshotApi');

	test: ICredentialTestRequest = {
		request: testRequestIn(
			'abstractScreenshotApi',
			'getKeyInQuery',
			'/v1/',
			{ url: 'https://example.com', capture_full_page: false, width: 320, height: 240 },
			{ encoding: 'arraybuffer', timeout: 120000 },
		),
	};
}
