/**
 * The live address of each service (spec/public-facts.md), by credential type. A credential's
 * Base URL may be left empty: it then means this address, for the node's requests, for the
 * credential's test request and for the check that keeps the key on the service's own host.
 */
export const LIVE_BASE_URLS: Readonly<Record<string, string>> = {
	abstractPhoneApi: 'https://phoneintelligence.abstractapi.com',
	abstractEmailApi: 'https://emailreputation.abstractapi.com',
	abstractIpGeolocationApi: 'https://ipgeolocation.abstractapi.com',
	abstractCompanyApi: 'https://companyenrichment.abstractapi.com',
	abstractHolidaysApi: 'https://holidays.abstractapi.com',
	abstractVatApi: 'https://vat.abstractapi.com',
	abstractIbanApi: 'https://ibanvalidation.abstractapi.com',
	abstractImagesApi: 'https://images.abstractapi.com',
	abstractAvatarsApi: 'https://avatars.abstractapi.com',
	abstractScreenshotApi: 'https://screenshot.abstractapi.com',
	abstractIpIntelligenceApi: 'https://api.abstractapi.com',
};

/** The Base URL a credential stands for: the one it holds, or its service's live address when empty. */
export function effectiveBaseUrl(credentialType: string, baseUrl: unknown): string {
	const given = baseUrl === undefined || baseUrl === null ? '' : String(baseUrl).trim();
	return given !== '' ? given : (LIVE_BASE_URLS[credentialType] ?? '');
}

/**
 * What a node's service definition says of its credential (engine/types.ts): the type, and the
 * Base URL a credential of it stands for. The engine takes the rule from here rather than
 * importing it, so that it imports no other room.
 */
export function serviceCredential(credentialType: string) {
	return {
		credentialType,
		baseUrlOf: (credentials: { baseUrl?: unknown }) =>
			effectiveBaseUrl(credentialType, credentials.baseUrl),
	};
}

/** The test request's base address as an n8n expression: the credential's Base URL, or the live one. */
export const testBaseUrl = (credentialType: string) =>
	`={{ ($credentials.baseUrl || "").trim() || "${LIVE_BASE_URLS[credentialType]}" }}`;
