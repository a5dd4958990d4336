/** Which failures are worth one more try of the same request, and how long to wait first. */

export const MAX_RETRIES = 4;

const RETRYABLE_STATUSES = new Set([429, 500, 503]);

/**
 * Network failures where the request may simply be sent again. A timeout (ECONNABORTED) is not
 * among them: the service may still be working on, and charging for, the first request.
 */
const RETRYABLE_NETWORK_CODES = new Set([
	'ECONNRESET',
	'ECONNREFUSED',
	'EPIPE',
	'ETIMEDOUT',
	'EAI_AGAIN',
	'ERR_SOCKET_CONNECTION_TIMEOUT',
]);

export function isRetryableStatus(status: number): boolean {
	return RETRYABLE_STATUSES.has(status);
}

/**
 * n8n's texts for network failures (n8n-workflow's NodeError), by code. httpRequestWithAuthentication
 * wraps a failure in a NodeApiError that keeps this text (and the raw one in `messages`) but not
 * the code, so the code is read back from them.
 */
const N8N_NETWORK_TEXTS: ReadonlyArray<[code: string, text: RegExp]> = [
	['ECONNRESET', /closed unexpectedly|socket hang up|\bECONNRESET\b/i],
	['ECONNREFUSED', /refused the connection|\bECONNREFUSED\b/i],
	['ECONNABORTED', /connection was aborted|timeout of \d+ms exceeded|\bECONNABORTED\b/i],
	['ETIMEDOUT', /connection timed out|\bETIMEDOUT\b/i],
	['EPIPE', /\bEPIPE\b/],
	['EAI_AGAIN', /DNS server returned an error|\bEAI_AGAIN\b/i],
	['ENOTFOUND', /incorrect host|\bENOTFOUND\b/i],
	['EHOSTUNREACH', /host is unreachable|\bEHOSTUNREACH\b/i],
];

export function networkCodeOf(error: unknown): string | undefined {
	const { code, message, messages, httpCode } = (error ?? {}) as {
		code?: unknown;
		message?: unknown;
		messages?: unknown;
		httpCode?: unknown;
	};
	if (typeof code === 'string' && /^E[A-Z_]+$/.test(code)) return code;
	// An answer with a status is not a network failure, whatever its text says.
	if (typeof httpCode === 'string' && /^\d{3}$/.test(httpCode)) return undefined;
	const texts = [message, ...(Array.isArray(messages) ? messages : [])].filter(
		(text): text is string => typeof text === 'string',
	);
	for (const [networkCode, pattern] of N8N_NETWORK_TEXTS) {
		if (texts.some((text) => pattern.test(text))) return networkCode;
	}
	return undefined;
}

export function isRetryableNetworkError(error: unknown): boolean {
	const code = networkCodeOf(error);
	return code !== undefined && RETRYABLE_NETWORK_CODES.has(code);
}

const BASE_DELAY_MS = 400;
const MAX_DELAY_MS = 20_000;
const MAX_RETRY_AFTER_MS = 60_000;

/** Retry-After in milliseconds (seconds or an HTTP date), or undefined when absent or unreadable. */
export function retryAfterMs(header: unknown, now = Date.now()): number | undefined {
	const value = Array.isArray(header) ? header[0] : header;
	if (value === undefined || value === null || value === '') return undefined;
	const text = String(value).trim();
	if (/^\d+(\.\d+)?$/.test(text)) return Math.min(Number(text) * 1000, MAX_RETRY_AFTER_MS);
	const date = Date.parse(text);
	if (Number.isNaN(date)) return undefined;
	return Math.min(Math.max(0, date - now), MAX_RETRY_AFTER_MS);
}

/** Exponential backoff with jitter (half fixed, half random), for retry number `retry` (0-based). */
export function backoffMs(retry: number, random = Math.random): number {
	const ceiling = Math.min(MAX_DELAY_MS, BASE_DELAY_MS * 2 ** retry);
	return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}
