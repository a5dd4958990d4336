import { NodeApiError, NodeOperationError } from 'n8n-workflow';
import type { IExecuteFunctions, JsonObject } from 'n8n-workflow';

/**
 * The suite's errors, as a person reads them in n8n. Every text that leaves here has been
 * redacted: a service may echo the key in its message, and a download link is a credential too.
 */

/** A bad parameter value: the field by its label and name, and the rule it breaks. */
export function invalidInput(
	ctx: IExecuteFunctions,
	itemIndex: number,
	field: string,
	rule: string,
): NodeOperationError {
	return new NodeOperationError(ctx.getNode(), `Invalid ${field}: ${rule}`, {
		itemIndex,
		description: `Item ${itemIndex + 1} was not sent, so it cost no credit. Fix ${field} and run again.`,
	});
}

/** "item 3" at the start of a sentence: "Item 3". */
export function capitalised(text: string): string {
	return text.charAt(0).toUpperCase() + text.slice(1);
}

/** Replaces every secret (API key, signed link and its query) that occurs in a text. */
export function redact(text: string, secrets: readonly string[]): string {
	let clean = text;
	for (const secret of secrets) {
		if (secret.length >= 4) clean = clean.split(secret).join('[redacted]');
	}
	return clean;
}

/** The service's own error text: `{"error": {"message": ...}}` as documented, or near forms. */
export function serviceMessageOf(body: unknown): string | undefined {
	let data = body;
	if (Buffer.isBuffer(data)) {
		try {
			data = JSON.parse(data.toString('utf8'));
		} catch {
			return undefined;
		}
	}
	if (typeof data !== 'object' || data === null) return undefined;
	const { error, message } = data as { error?: unknown; message?: unknown };
	if (typeof error === 'object' && error !== null) {
		const inner = (error as { message?: unknown }).message;
		if (typeof inner === 'string') return inner;
	}
	if (typeof error === 'string') return error;
	if (typeof message === 'string') return message;
	return undefined;
}

export interface FailedCall {
	status: number;
	body: unknown;
	serviceName: string;
	/** Requests made for this item, and for how long it kept trying (retry.ts's time budget). */
	tries: Tries;
	secrets: readonly string[];
	statusMessages?: Partial<Record<number, string>>;
}

export interface Tries {
	attempts: number;
	elapsedMs: number;
	/** The rate the node paces the key to in this process; 0 when pacing is off. */
	pacedTo: number;
	/** A Retry-After longer than the budget left, when that is why the node stopped. */
	retryAfterMs?: number;
}

/** "for 12 s (7 requests)": what an item went through before the node gave up. */
function triedFor(tries: Tries): string {
	const seconds =
		tries.elapsedMs < 10_000
			? (tries.elapsedMs / 1000).toFixed(1)
			: String(Math.round(tries.elapsedMs / 1000));
	const requests = tries.attempts === 1 ? '1 request' : `${tries.attempts} requests`;
	const waited =
		tries.retryAfterMs === undefined
			? ''
			: `; the service asked to wait ${Math.round(tries.retryAfterMs / 1000)} s more, beyond the retry time budget`;
	return `for ${seconds} s (${requests}${waited})`;
}

/** Why a key's rate can be exceeded although the node paces it, or what to set when it does not. */
function rateExceeded(service: string, tries: Tries): string {
	if (tries.pacedTo > 0) {
		return `The request rate of the ${service} key was exceeded (429) although this node paces its requests to ${tries.pacedTo} per second; other executions, workers or tools may be using the same key. Tried ${triedFor(tries)}`;
	}
	return `The request rate of the ${service} key was exceeded (429) and pacing is off (the credential's Requests per Second is 0). Set Requests per Second to your plan's rate. Tried ${triedFor(tries)}`;
}

/** What each status means for the person running the workflow (the services' status codes, in words). */
function meaningOf(call: FailedCall): string {
	const own = call.statusMessages?.[call.status];
	if (own)
		return [429, 500, 503].includes(call.status) ? `${own}. Tried ${triedFor(call.tries)}` : own;
	const service = call.serviceName;
	switch (call.status) {
		case 400:
			return `The ${service} service rejected the request as malformed (400)`;
		case 401:
			return `The API key was rejected (401). Keys are per service: the credential needs a key of the ${service} API, not of another Abstract API service`;
		case 403:
			return `The ${service} service refused the request (403): the plan's API credits may be used up, or the key may lack access`;
		case 404:
			return `The ${service} service has no such address (404): check the credential's Base URL`;
		case 422:
			return `The plan's API credits for ${service} are used up (422). Add credits or upgrade the plan, then run again`;
		case 429:
			return rateExceeded(service, call.tries);
		case 500:
			return `The ${service} service kept failing (500) ${triedFor(call.tries)}`;
		case 503:
			return `The ${service} service stayed unavailable (503) ${triedFor(call.tries)}. Try again later`;
		default:
			return `The ${service} service answered with status ${call.status}`;
	}
}

export function apiError(
	ctx: IExecuteFunctions,
	itemIndex: number,
	call: FailedCall,
): NodeApiError {
	const quoted = serviceMessageOf(call.body);
	const message = redact(meaningOf(call), call.secrets);
	let description = quoted
		? redact(`The service said: "${quoted}"`, call.secrets)
		: `The service gave no error message.`;
	if (call.status === 429 && call.tries.pacedTo > 0) {
		description += ` Each n8n process (every queue-mode worker) paces a key on its own and slows down when the key is refused; if several share the key all the time, set each one's Requests per Second to its share of the plan's rate.`;
	}
	const errorBody: JsonObject = { message, status: call.status };
	return new NodeApiError(ctx.getNode(), errorBody, {
		message,
		description,
		httpCode: String(call.status),
		itemIndex,
	});
}

/** What each network failure means, in words: n8n swaps a message naming the code for its own text. */
const NETWORK_FAILURES: Record<string, string> = {
	ECONNRESET: 'the connection was closed before an answer came',
	ECONNREFUSED: 'the connection was refused',
	ECONNABORTED: 'no answer came in time',
	ETIMEDOUT: 'the connection timed out',
	ENOTFOUND: 'the host name is unknown',
	EAI_AGAIN: 'the host name could not be looked up',
};

/** A request that got no answer: the host and what happened, never the URL with its query. */
export function networkError(
	ctx: IExecuteFunctions,
	itemIndex: number,
	serviceName: string,
	host: string,
	code: string,
	tries: Tries,
): NodeApiError {
	const what = NETWORK_FAILURES[code] ?? 'the request failed on the network';
	const retried = tries.attempts > 1 ? `; it kept failing ${triedFor(tries)}` : '';
	const message = `Could not reach the ${serviceName} service at ${host}: ${what}${retried}`;
	return new NodeApiError(ctx.getNode(), { message } as JsonObject, {
		message,
		description: `Network error ${code}. Check the credential's Base URL and the network, then run again.`,
		itemIndex,
	});
}
