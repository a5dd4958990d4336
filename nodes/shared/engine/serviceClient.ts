import { createHash } from 'crypto';
import { NodeOperationError, sleep } from 'n8n-workflow';
import type {
	IAdditionalCredentialOptions,
	ICredentialDataDecryptedObject,
	IExecuteFunctions,
	IHttpRequestOptions,
} from 'n8n-workflow';

import { apiError, networkError, redact } from './errors';
import { concurrencyFor, pacerFor } from './pacing';
import type { Pacer } from './pacing';
import {
	backoffMs,
	isRetryableNetworkError,
	isRetryableStatus,
	networkCodeOf,
	RetryBudget,
	retryAfterMs,
} from './retry';
import { withStopReason, type SendingGate, type StopReason } from './runLedger';
import type {
	DownloadOptions,
	DownloadResponse,
	ServiceClient,
	ServiceDefinition,
	ServiceRequest,
	ServiceResponse,
} from './types';
import { hostOf, joinUrl } from './url';

/**
 * How the engine reaches a service: the credential read once per run, then each request paced,
 * retried within its time budget, and stopped before it leaves once the run has stopped sending
 * (the plan's credits ran out). Links (database archives, processed images) are fetched without
 * the key.
 */

/** The services' answer when a plan's credits are used up (422, "Quota reached"). */
const QUOTA_STATUSES = [422];

export interface Connection {
	concurrency: number;
	/** The credential as what answers it (type, Base URL and a hash of the key): kept answers are filed under it. */
	identity: string;
	/** The client of one unit: `gate` says whether the run still sends, and hears of a spent plan. */
	clientFor(itemIndex: number, gate: SendingGate): ServiceClient;
}

/** Reads the credential once per run: its address, its rate, and what must never be shown. */
export async function connect<Prepared>(
	ctx: IExecuteFunctions,
	service: ServiceDefinition<Prepared>,
): Promise<Connection> {
	const credentials = await ctx.getCredentials(service.credentialType);
	const baseUrl = checkedBaseUrl(ctx, service, credentials);
	const requestsPerSecond = Math.max(0, Number(credentials.requestsPerSecond ?? 0) || 0);
	// The key is read here only to keep it out of messages; n8n's credential mechanism sends it.
	const secrets = [String(credentials.apiKey ?? '')];
	const keyIdentity = identityOf(service.credentialType, baseUrl, secrets[0]);
	// n8n-core reads and decrypts the credential again on every httpRequestWithAuthentication
	// unless it is handed the decrypted one: the run's copy is handed over, and n8n still
	// applies it only through the credential type's `authenticate` (which also refuses any
	// host but the Base URL's).
	const reference = ctx.getNode().credentials?.[service.credentialType];
	const authentication: IAdditionalCredentialOptions = {
		credentialsDecrypted: {
			id: reference?.id ?? '',
			name: reference?.name ?? '',
			type: service.credentialType,
			data: credentials,
		},
	};
	const pacer = pacerFor(keyIdentity, requestsPerSecond);
	const health: RunHealth = { failingSince: undefined };
	return {
		concurrency: concurrencyFor(requestsPerSecond),
		identity: keyIdentity,
		clientFor: (itemIndex, gate) => ({
			request: async (request) =>
				await send(
					ctx,
					service,
					{ baseUrl, pacer, health, secrets, itemIndex, authentication, gate },
					request,
				),
			download: async (url, options = {}) =>
				await download(ctx, service, { secrets, itemIndex }, url, options),
		}),
	};
}

/**
 * The credential as what answers it, without connecting (no pacer, nothing sent): what an
 * estimate needs to find the answers a run would reuse (they are filed under it).
 */
export async function credentialIdentity<Prepared>(
	ctx: IExecuteFunctions,
	service: ServiceDefinition<Prepared>,
): Promise<string> {
	const credentials = await ctx.getCredentials(service.credentialType);
	return identityOf(
		service.credentialType,
		checkedBaseUrl(ctx, service, credentials),
		String(credentials.apiKey ?? ''),
	);
}

/** Type, Base URL and a hash of the key: another key, or another address, is another identity. */
function identityOf(credentialType: string, baseUrl: string, apiKey: string): string {
	return createHash('sha256').update(`${credentialType}\n${baseUrl}\n${apiKey}`).digest('hex');
}

/** The credential's Base URL, or its service's live address when it is left empty. */
function checkedBaseUrl<Prepared>(
	ctx: IExecuteFunctions,
	service: ServiceDefinition<Prepared>,
	credentials: ICredentialDataDecryptedObject,
): string {
	const baseUrl = service.baseUrlOf(credentials);
	let protocol = '';
	try {
		protocol = new URL(baseUrl).protocol;
	} catch {
		protocol = '';
	}
	if (protocol !== 'https:' && protocol !== 'http:') {
		throw new NodeOperationError(
			ctx.getNode(),
			'Invalid Base URL in the credential: it must start with https:// (or http:// for a local sandbox)',
		);
	}
	return baseUrl;
}

/**
 * The first failure (5xx, network) of this run since its last answer that was not one: when
 * the service has failed for the whole retry budget, items stop retrying (retry.ts).
 */
interface RunHealth {
	failingSince: number | undefined;
}

interface SendContext {
	baseUrl: string;
	pacer: Pacer;
	health: RunHealth;
	secrets: string[];
	itemIndex: number;
	authentication: IAdditionalCredentialOptions;
	gate: SendingGate;
}

/**
 * n8n's options for a request. `requestForm` is not one of n8n's: n8n hands the options to the
 * credential's `authenticate` as they are, which reads it, and sends only the options it knows.
 */
function toHttpOptions(
	baseUrl: string,
	request: ServiceRequest,
): IHttpRequestOptions & { requestForm: string } {
	const options: IHttpRequestOptions & { requestForm: string } = {
		requestForm: request.requestForm,
		method: request.method ?? 'GET',
		url: joinUrl(baseUrl, request.path),
		qs: request.qs,
		headers: {},
		returnFullResponse: true,
		ignoreHttpStatusErrors: true,
		timeout: request.timeout ?? 30_000,
	};
	if (request.json) {
		options.body = request.json;
		options.headers = { 'Content-Type': 'application/json' };
	} else if (request.form) {
		options.body = new URLSearchParams(request.form);
	} else if (request.multipart) {
		options.body = request.multipart;
	}
	if (request.response === 'binary') {
		options.encoding = 'arraybuffer';
	} else {
		options.json = true;
	}
	if (request.acceptStatus?.some((status) => status >= 300 && status < 400)) {
		options.disableFollowRedirect = true;
	}
	return options;
}

/**
 * One request, paced and retried within the time budget (retry.ts); returns an accepted
 * answer or throws a redacted n8n error that says what the item went through.
 */
async function send<Prepared>(
	ctx: IExecuteFunctions,
	service: ServiceDefinition<Prepared>,
	{ baseUrl, pacer, health, secrets, itemIndex, authentication, gate }: SendContext,
	request: ServiceRequest,
): Promise<ServiceResponse> {
	let budget: RetryBudget | undefined;
	const tries = (retryAfterMs?: number) => ({
		attempts: budget?.attempts ?? 0,
		elapsedMs: budget?.elapsedMs() ?? 0,
		pacedTo: pacer.limit,
		retryAfterMs,
	});
	for (let retry = 0; ; retry++) {
		gate.checkStillSending();
		const ticket = await pacer.waitTurn();
		// The plan may have run out while this request waited for its turn: it stays unsent.
		if (!gate.stillSending()) {
			pacer.failed(ticket);
			gate.checkStillSending();
		}
		budget ??= new RetryBudget(ticket.departedAt);
		budget.attempts++;
		gate.departing();
		let response: ServiceResponse;
		try {
			response = (await ctx.helpers.httpRequestWithAuthentication.call(
				ctx,
				service.credentialType,
				toHttpOptions(baseUrl, request),
				authentication,
			)) as ServiceResponse;
		} catch (error) {
			pacer.failed(ticket);
			if (isRetryableNetworkError(error)) {
				health.failingSince ??= ticket.departedAt;
				const delay = backoffMs(retry);
				if (budget.allows(delay, health.failingSince)) {
					await sleep(delay);
					continue;
				}
			}
			const code = networkCodeOf(error);
			if (code)
				throw networkError(ctx, itemIndex, service.serviceName, hostOf(baseUrl), code, tries());
			const message = redact((error as Error).message ?? String(error), secrets);
			throw new NodeOperationError(ctx.getNode(), message, { itemIndex });
		}

		const { statusCode } = response;
		// A spent plan, or a rejected key (every later request would collect a 401 too), stops the run.
		const stopReason: StopReason | undefined = (service.quotaStatuses ?? QUOTA_STATUSES).includes(
			statusCode,
		)
			? 'planRanOut'
			: statusCode === 401
				? 'keyRejected'
				: undefined;
		if (stopReason) gate.stopSending(stopReason);
		const retryAfter = retryAfterMs(response.headers?.['retry-after']);
		if (statusCode === 429) {
			// Refused, but answered: the service is up.
			pacer.refused(ticket, retryAfter);
			health.failingSince = undefined;
		} else if (isRetryableStatus(statusCode)) {
			pacer.failed(ticket);
			health.failingSince ??= ticket.departedAt;
		} else {
			pacer.succeeded(ticket);
			health.failingSince = undefined;
		}
		if ((statusCode >= 200 && statusCode < 300) || request.acceptStatus?.includes(statusCode)) {
			return response;
		}
		let overBudget: number | undefined;
		if (isRetryableStatus(statusCode)) {
			// Paced, a 429's wait is the pacer's (it paused, randomised); unpaced, it is ours.
			const delay = statusCode === 429 && pacer.paced ? 0 : (retryAfter ?? backoffMs(retry));
			const failingSince = statusCode === 429 ? undefined : health.failingSince;
			if (budget.allows(Math.max(delay, retryAfter ?? 0), failingSince)) {
				if (delay > 0) await sleep(delay);
				continue;
			}
			// When it is the service's Retry-After that does not fit, the message says so.
			if (retryAfter !== undefined && budget.allows(0, failingSince)) overBudget = retryAfter;
		}
		const refused = apiError(ctx, itemIndex, {
			status: statusCode,
			body: response.body,
			serviceName: service.serviceName,
			tries: tries(overBudget),
			secrets,
			statusMessages: service.statusMessages,
		});
		throw stopReason ? withStopReason(refused, stopReason) : refused;
	}
}

/**
 * A GET of a link (a processed image, a database archive) with plain `httpRequest`: the key is
 * never attached, whatever the host. A signed link is itself a secret and stays out of messages.
 */
async function download<Prepared>(
	ctx: IExecuteFunctions,
	service: ServiceDefinition<Prepared>,
	{ secrets, itemIndex }: Pick<SendContext, 'secrets' | 'itemIndex'>,
	url: string,
	options: DownloadOptions,
): Promise<DownloadResponse> {
	const hidden = options.secret ? [...secrets, url, url.split('?')[1] ?? ''] : secrets;
	const host = hostOf(url);
	const budget = new RetryBudget();
	const tries = () => ({ attempts: budget.attempts, elapsedMs: budget.elapsedMs(), pacedTo: 0 });
	for (let retry = 0; ; retry++) {
		budget.attempts++;
		let response: DownloadResponse;
		try {
			response = (await ctx.helpers.httpRequest({
				method: 'GET',
				url,
				encoding: options.as === 'stream' ? 'stream' : 'arraybuffer',
				returnFullResponse: true,
				ignoreHttpStatusErrors: true,
				timeout: options.timeout ?? 120_000,
				// The editor's Stop ends the transfer too (plain httpRequest is not handed n8n's
				// signal the way the authenticated one is): a stopped run lets go of the connection.
				abortSignal: ctx.getExecutionCancelSignal?.(),
			})) as DownloadResponse;
		} catch (error) {
			const delay = backoffMs(retry);
			if (isRetryableNetworkError(error) && budget.allows(delay)) {
				await sleep(delay);
				continue;
			}
			const code = networkCodeOf(error) ?? 'no answer';
			throw networkError(ctx, itemIndex, `${service.serviceName} download`, host, code, tries());
		}
		const { statusCode } = response;
		if (statusCode >= 200 && statusCode < 300) return response;
		const stream = response.body as { destroy?: () => void };
		if (options.as === 'stream' && typeof stream.destroy === 'function') stream.destroy();
		const delay = retryAfterMs(response.headers?.['retry-after']) ?? backoffMs(retry);
		if (isRetryableStatus(statusCode) && budget.allows(delay)) {
			await sleep(delay);
			continue;
		}
		throw apiError(ctx, itemIndex, {
			status: statusCode,
			body: options.as === 'stream' ? undefined : response.body,
			serviceName: `${service.serviceName} download from ${host}`,
			tries: tries(),
			secrets: hidden,
			statusMessages: {
				403: `The download from ${host} was refused (403): the link has expired or is not valid`,
				404: `The file is no longer at ${host} (404)`,
				410: `The file is no longer at ${host} (410)`,
			},
		});
	}
}
