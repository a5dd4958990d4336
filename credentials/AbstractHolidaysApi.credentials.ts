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

export class AbstractHolidaysApi implements ICredentialType {
	name = 'abstractHolidaysApi';

	displayName = 'Abstract Public Holidays API';

	documentationUrl = 'https://docs.abstractapi.com/holidays';

	icon: Icon = {
		light: 'file:../nodes/AbstractHolidays/abstractHolidays.svg',
		dark: 'file:../nodes/AbstractHolidays/abstractHolidays.dark.svg',
	};

	properties: INodeProperties[] = [
		apiKeyProperty,
		baseUrlProperty('abstractHolidaysApi'),
		requestsPerSecondProperty,
	];

	authenticate: IAuthenticate = keyPlacement('abstractHolidaysApi');

	test: ICredentialTestRequest = {
		request: {
			baseURL: testBaseUrl('abstractHolidaysApi'),
			url: '/v1/',
			qs: { country: 'US', year: '2025', month: '01', day: '01' },
		},
	};
}
