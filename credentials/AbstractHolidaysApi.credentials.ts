import type { IAuthenticate, ICredentialTestRequest, ICredentialType, Icon, INodeProperties } from 'n8n-workflow';
import { apiKeyProperty, baseUrlProperty, requestsPerSecondProperty } from './shared/properties';
import { keyInQuery } from './shared/keyPlacement';

export class AbstractHolidaysApi implements ICredentialType {
	name = 'abstractHolidaysApi';

	displayName = 'Abstract Public Holidays API';

	documentationUrl = 'https://docs.abstractapi.com/holidays';

	icon: Icon = { light: 'file:../icons/abstract.svg', dark: 'file:../icons/abstract.dark.svg' };

	properties: INodeProperties[] = [apiKeyProperty, baseUrlProperty('https://holidays.abstractapi.com'), requestsPerSecondProperty];

	authenticate: IAuthenticate = keyInQuery;

	test: ICredentialTestRequest = {
		request: {
			baseURL: '={{$credentials.baseUrl}}',
			url: '/v1/',
			qs: { country: 'US', year: '2025', month: '01', day: '01' },
		},
	};
}
