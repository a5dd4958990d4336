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

export class AbstractVatApi implements ICredentialType {
	name = 'abstractVatApi';

	displayName = 'Abstract VAT API';

	documentationUrl = 'https://docs.abstractapi.com/vat-validation';

	icon: Icon = {
		light: 'file:../nodes/AbstractVat/abstractVat.svg',
		dark: 'file:../nodes/AbstractVat/abstractVat.dark.svg',
	};

	properties: INodeProperties[] = [
		apiKeyProperty,
		baseUrlProperty('abstractVatApi'),
		requestsPerSecondProperty,
	];

	authenticate: IAuthenticate = keyPlacement('abstractVatApi');

	test: ICredentialTestRequest = {
		request: {
			baseURL: testBaseUrl('abstractVatApi'),
			url: '/v1/categories',
			qs: { country_code: 'DE' },
		},
	};
}
