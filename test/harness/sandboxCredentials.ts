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
