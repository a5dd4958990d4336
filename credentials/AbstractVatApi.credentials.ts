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

export class AbstractVatApi implements ICredentialType {
	name = 'abstractVatApi';

	displayName = 'Abstract VAT API';

	documentationUrl = 'https://docs.abstractapi.com/api/vat-validation';

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
		request: testRequestIn('abstractVatApi', 'getKeyInQuery', '/v1/categories', {
			country_code: 'DE',
		}),
	};
}
