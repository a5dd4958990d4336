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

export class AbstractHolidaysApi implements ICredentialType {
	name = 'abstractHolidaysApi';

	displayName = 'Abstract Public Holidays API';

	documentationUrl = 'https://docs.abstractapi.com/api/holidays';

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
		request: testRequestIn('abstractHolidaysApi', 'getKeyInQuery', '/v1/', {
			country: 'US',
			year: '2025',
			month: '01',
			day: '01',
		}),
	};
}
