import type { IDataObject } from 'n8n-workflow';

import type { Sandbox } from '../sandbox/server';

/** Each sandbox service and the credential type that holds its key. */
export const CREDENTIAL_TYPES: Record<string, string> = {
	phone: 'abstractPhoneApi',
	email: 'abstractEmailApi',
	geo: 'abstractIpGeolocationApi',
	company: 'abstractCompanyApi',
	holidays: 'abstractHolidaysApi',
	vat: 'abstractVatApi',
	iban: 'abstractIbanApi',
	images: 'abstractImagesApi',
	avatars: 'abstractAvatarsApi',
	screenshot: 'abstractScreenshotApi',
	api: 'abstractIpIntelligenceApi',
};

/**
 * Each credential type's name as the editor shows it (its class's `displayName`; a test holds the
 * two together), so the sandbox credentials that dev, e2e and the examples use read as a user's
 * own would: "Abstract Email Reputation API (sandbox)".
 */
export const CREDENTIAL_DISPLAY_NAMES: Record<string, string> = {
	abstractPhoneApi: 'Abstract Phone Intelligence API',
	abstractEmailApi: 'Abstract Email Reputation API',
	abstractIpGeolocationApi: 'Abstract IP Geolocation API',
	abstractCompanyApi: 'Abstract Company Enrichment API',
	abstractHolidaysApi: 'Abstract Public Holidays API',
	abstractVatApi: 'Abstract VAT API',
	abstractIbanApi: 'Abstract IBAN Validation API',
	abstractImagesApi: 'Abstract Image Processing API',
	abstractAvatarsApi: 'Abstract Avatars API',
	abstractScreenshotApi: 'Abstract Website Screenshot API',
	abstractIpIntelligenceApi: 'Abstract IP Database API',
};

/** The name of the sandbox credential of a type, as the examples refer to it. */
export const exampleCredentialName = (type: string) =>
	`${CREDENTIAL_DISPLAY_NAMES[type]} (sandbox)`;

/**
 * The credential a person would create for a sandbox service: its key and Base URL (with the
 * sandbox's path prefix). Pacing is off unless a test sets a rate.
 */
export function sandboxCredential(
	sandbox: Sandbox,
	service: string,
	data: IDataObject = {},
): { type: string; data: IDataObject } {
	return {
		type: CREDENTIAL_TYPES[service],
		data: {
			apiKey: sandbox.keys[service],
			baseUrl: sandbox.baseUrls[service],
			requestsPerSecond: 0,
			...data,
		},
	};
}

/** The id under which examples/ refer to each credential type: `sandbox-abstractEmailApi`. */
export const exampleCredentialId = (type: string) => `sandbox-${type}`;

/** Every credential type pointed at the sandbox, under the ids the example workflows use. */
export function allSandboxCredentials(sandbox: Sandbox, data: IDataObject = {}) {
	return Object.entries(CREDENTIAL_TYPES).map(([service, type]) => ({
		id: exampleCredentialId(type),
		name: exampleCredentialName(type),
		type,
		data: sandboxCredential(sandbox, service, data).data as Record<
			string,
			string | number | boolean
		>,
	}));
}
