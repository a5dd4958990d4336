/**
 * Which failures are worth one more try of the same request, how long to wait first, and for
 * how long an item keeps trying.
 *
 * Retries are bounded by time, not by a small count: a passing overload or a run of transient
 * 5xx and network faults must not cost an item whose neighbours already succeeded (and were
 * charged). An item keeps trying for RETRY_POLICY.budgetMs (2 minutes) from its first attempt;
 * it gives up sooner when the service has answered nothing but failures (5xx, network) for
 * that long, whichever item saw them, so that a service that stays down fails a run of many
 * items within the budget, not one budget per item. A 4xx other than 429 is never retried, nor
 * is a request that ran past its own timeout (the service may have charged for it).
 */
export const RETRY_POLICY = {
	/** How long an item keeps trying, from its first attempt. */
	budgetMs: 120_000,
	/** The first backoff after a 5xx, a network failure or (pacing off) a 429; each next one is 1.5 times longer. */
	firstDelayMs: 20,
	maxDelayMs: 5_000,
};

/** How long an item has been trying, and whether one more try fits in the budget. */
export class RetryBudget {
	attempts = 0;

	constructor(readonly startedAt = Date.now()) {}

	elapsedMs(now = Date.now()): number {
		return now - this.startedAt;
	}

	/**
	 * Whether a retry after `delayMs` fits: within the item's budget, and (for 5xx and network
	 * failures) within the budget of the service's current run of failures.
	 */
	allows(delayMs: number, failingSince?: number, now = Date.now()): boolean {
		const at = now + delayMs;
		if (at - this.startedAt > RETRY_POLICY.budgetMs) return false;
		return failingSince === undefined || at - failingSince <= RETRY_POLICY.budgetMs;
	}
}

const RETRYABLE_STATUSES = new Set([429, 500, 503]);

/**
 * Network failures where the request may simply be sent again. A request that ran past its own
 * `timeout` is not among them: axios reports that as ECONNABORTED (n8n leaves its
 * clarifyTimeoutError off), and the service may still be working on, and charging for, it.
 * ETIMEDOUT is the operating system's, for a connection that could not be opened or went silent
 * below HTTP, and is retried as a reset or a refused connection is.
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

/** Retry-After in milliseconds (seconds or an HTTP date), or undefined when absent or unreadable. */
export function retryAfterMs(header: unknown, now = Date.now()): number | undefined {
	const value = Array.isArray(header) ? header[0] : header;
	if (value === undefined || value === null || value === '') return undefined;
	const text = String(value).trim();
	if (/^\d+(\.\d+)?$/.test(text)) return Number(text) * 1000;
	const date = Date.parse(text);
	if (Number.isNaN(date)) return undefined;
	return Math.max(0, date - now);
}

/**
 * Backoff with jitter (half fixed, half random) for retry number `retry` (0-based). It starts
 * at 20 ms and grows by 1.5, not 2 from 400 ms: with one request in three failing, the
 * unluckiest of 1,000 items fails six or seven times in a row, and the whole run waited for it
 * (and for the in-flight slots that sat in backoff). A service that stays down still gets
 * retries seconds apart after the first dozen.
 */
export function backoffMs(retry: number, random = Math.random): number {
	const ceiling = Math.min(RETRY_POLICY.maxDelayMs, RETRY_POLICY.firstDelayMs * 1.5 ** retry);
	return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}
