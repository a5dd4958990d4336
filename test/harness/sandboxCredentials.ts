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
		data: { apiKey: sandbox.keys[service], baseUrl: sandbox.baseUrls[service], requestsPerSecond: 0, ...data },
	};
}

/** The id under which examples/ refer to each credential type: `sandbox-abstractEmailApi`. */
export const exampleCredentialId = (type: string) => `sandbox-${type}`;

/** Every credential type pointed at the sandbox, under the ids the example workflows use. */
export function allSandboxCredentials(sandbox: Sandbox, data: IDataObject = {}) {
	return Object.entries(CREDENTIAL_TYPES).map(([service, type]) => ({
		id: exampleCredentialId(type),
		name: `${type} (sandbox)`,
		type,
		data: sandboxCredential(sandbox, service, data).data as Record<string, string | number | boolean>,
	}));
}
