import type { SandboxResponse } from './types';

/** The live service family's error body, `{"error": {"message", "code", "details"}}`: the text is under `error`. */
export function errorResponse(
	status: number,
	message: string,
	code: string,
	details: unknown = null,
): SandboxResponse {
	return { status, json: { error: { message, code, details } } };
}

export const unauthorized = (): SandboxResponse =>
	errorResponse(401, 'Invalid API key provided.', 'unauthorized');

export const badRequest = (message: string, details: unknown = null): SandboxResponse =>
	errorResponse(400, message, 'bad_request', details);
