import { createHash } from 'crypto';
import { NodeApiError, NodeOperationError, sleep } from 'n8n-workflow';
import type {
	ICredentialDataDecryptedObject,
	IDataObject,
	IExecuteFunctions,
	IHttpRequestOptions,
	INodeExecutionData,
} from 'n8n-workflow';

import { effectiveBaseUrl } from '../../credentials/shared/liveBaseUrls';
import { apiError, networkError, redact } from './errors';
import { FanOut, type FanOutUnit } from './fanOut';
import { concurrencyFor, forEachLimited, pacerFor } from './pacing';
import type { Pacer } from './pacing';
import { backoffMs, isRetryableNetworkError, isRetryableStatus, MAX_RETRIES, networkCodeOf, retryAfterMs } from './retry';
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
 * The one engine every node runs through. n8n's declarative routing sends every item at once and
 * cannot retry one request; these services charge per request and allow one a second on free
 * plans. So: check every item first, then send with pacing, bounded concurrency and per-request
 * retries, and return items paired to their inputs (or paired error items, with Continue On Fail).
 */
export async function runService<Prepared>(
	ctx: IExecuteFunctions,
	service: ServiceDefinition<Prepared>,
): Promise<INodeExecutionData[][]> {
	const items = ctx.getInputData();
	const continueOnFail = ctx.continueOnFail();

	// Every item is checked before the first request: a bad row must cost no credit. An item may
	// fan out into many units (a CSV file's rows); each unit is then one request in the queue.
	const units: Array<Unit<Prepared>> = [];
	for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
		try {
			const prepared = await service.prepare.call(ctx, itemIndex);
			if (prepared instanceof FanOut) {
				for (const unit of (prepared as FanOut<Prepared>).units) {
					if ('failed' in unit && !continueOnFail) throw unit.failed;
					units.push({ itemIndex, ...unit });
				}
			} else {
				units.push({ itemIndex, ok: prepared });
			}
		} catch (error) {
			if (!continueOnFail) throw asNodeError(ctx, error, itemIndex);
			units.push({ itemIndex, failed: error as Error });
		}
	}
	if (!units.some((unit) => 'ok' in unit || 'prepared' in unit)) {
		return [units.map((unit) => errorItem(unit as FailedUnit, unit.itemIndex))];
	}

	const connection = await connect(ctx, service);
	const outputs: INodeExecutionData[][] = [];
	await forEachLimited(units.length, connection.concurrency, async (unitIndex) => {
		const unit = units[unitIndex];
		const { itemIndex } = unit;
		if ('failed' in unit) {
			outputs[unitIndex] = [errorItem(unit, itemIndex)];
			return;
		}
		const entry = 'ok' in unit ? unit.ok : unit.prepared;
		try {
			const client = connection.clientFor(itemIndex);
			const produced = service.run
				? await service.run.call(ctx, itemIndex, entry, client)
				: recordItems((await client.request(entry as ServiceRequest)).body);
			outputs[unitIndex] = produced.map((item) => ({
				...item,
				json: unit.beside ? { ...item.json, ...unit.beside } : item.json,
				pairedItem: { item: itemIndex },
			}));
		} catch (error) {
			if (unit.label) (error as Error).message = `${unit.label}: ${(error as Error).message}`;
			if (!continueOnFail) throw asNodeError(ctx, error, itemIndex);
			outputs[unitIndex] = [errorItem({ failed: error as Error, beside: unit.beside }, itemIndex)];
		}
	});
	return [outputs.flat()];
}

/** One request's worth of work: an item, or one unit an item fanned out into. */
type Unit<Prepared> = { itemIndex: number } & (
	| { ok: Prepared; label?: undefined; beside?: undefined }
	| FailedUnit
	| ({ prepared: Prepared } & Omit<FanOutUnit<Prepared>, 'prepared' | 'failed'>)
);

interface FailedUnit {
	failed: Error;
	label?: string;
	beside?: IDataObject;
}

/** n8n errors pass as they are; anything else is wrapped so n8n shows it with its item. */
function asNodeError(ctx: IExecuteFunctions, error: unknown, itemIndex: number): NodeApiError | NodeOperationError {
	if (error instanceof NodeApiError || error instanceof NodeOperationError) return error;
	return new NodeOperationError(ctx.getNode(), error as Error, { itemIndex });
}

/** A JSON answer as items: the record as it came, or one item per element of an array. */
export function recordItems(body: unknown): INodeExecutionData[] {
	if (Array.isArray(body)) return body.map((element) => ({ json: element as IDataObject }));
	return [{ json: (body ?? {}) as IDataObject }];
}

function errorItem(entry: FailedUnit, itemIndex: number): INodeExecutionData {
	const { message, description } = entry.failed as Error & { description?: string };
	const json: IDataObject = { error: message };
	if (description) json.description = description;
	return { json: entry.beside ? { ...json, ...entry.beside } : json, pairedItem: { item: itemIndex } };
}

interface Connection {
	concurrency: number;
	clientFor(itemIndex: number): ServiceClient;
}

/** Reads the credential once per run: its address, its rate, and what must never be shown. */
async function connect<Prepared>(
	ctx: IExecuteFunctions,
	service: ServiceDefinition<Prepared>,
): Promise<Connection> {
	const credentials = await ctx.getCredentials(service.credentialType);
	const baseUrl = checkedBaseUrl(ctx, service.credentialType, credentials);
	const requestsPerSecond = Math.max(0, Number(credentials.requestsPerSecond ?? 0) || 0);
	// The key is read here only to keep it out of messages; n8n's credential mechanism sends it.
	const secrets = [String(credentials.apiKey ?? '')];
	const keyIdentity = createHash('sha256')
		.update(`${service.credentialType}\n${baseUrl}\n${secrets[0]}`)
		.digest('hex');
	const pacer = pacerFor(keyIdentity, requestsPerSecond);
	return {
		concurrency: concurrencyFor(requestsPerSecond),
		clientFor: (itemIndex) => ({
			request: async (request) =>
				await send(ctx, service, { baseUrl, pacer, secrets, itemIndex }, request),
			download: async (url, options = {}) =>
				await download(ctx, service, { secrets, itemIndex }, url, options),
		}),
	};
}

/** The credential's Base URL, or its service's live address when it is left empty. */
function checkedBaseUrl(
	ctx: IExecuteFunctions,
	credentialType: string,
	credentials: ICredentialDataDecryptedObject,
): string {
	const baseUrl = effectiveBaseUrl(credentialType, credentials.baseUrl);
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

interface SendContext {
	baseUrl: string;
	pacer: Pacer;
	secrets: string[];
	itemIndex: number;
}

function toHttpOptions(baseUrl: string, request: ServiceRequest): IHttpRequestOptions {
	const options: IHttpRequestOptions = {
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

/** One request, paced and retried; returns an accepted answer or throws a redacted n8n error. */
async function send<Prepared>(
	ctx: IExecuteFunctions,
	service: ServiceDefinition<Prepared>,
	{ baseUrl, pacer, secrets, itemIndex }: SendContext,
	request: ServiceRequest,
): Promise<ServiceResponse> {
	for (let retry = 0; ; retry++) {
		await pacer.waitTurn();
		let response: ServiceResponse;
		try {
			response = (await ctx.helpers.httpRequestWithAuthentication.call(
				ctx,
				service.credentialType,
				toHttpOptions(baseUrl, request),
			)) as ServiceResponse;
		} catch (error) {
			if (isRetryableNetworkError(error) && retry < MAX_RETRIES) {
				await sleep(backoffMs(retry));
				continue;
			}
			const code = networkCodeOf(error);
			if (code) throw networkError(ctx, itemIndex, service.serviceName, hostOf(baseUrl), code, retry);
			const message = redact((error as Error).message ?? String(error), secrets);
			throw new NodeOperationError(ctx.getNode(), message, { itemIndex });
		}

		const { statusCode } = response;
		if ((statusCode >= 200 && statusCode < 300) || request.acceptStatus?.includes(statusCode)) {
			return response;
		}
		if (isRetryableStatus(statusCode) && retry < MAX_RETRIES) {
			await sleep(retryAfterMs(response.headers?.['retry-after']) ?? backoffMs(retry));
			continue;
		}
		throw apiError(ctx, itemIndex, {
			status: statusCode,
			body: response.body,
			serviceName: service.serviceName,
			retries: retry,
			secrets,
			statusMessages: service.statusMessages,
		});
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
	for (let retry = 0; ; retry++) {
		let response: DownloadResponse;
		try {
			response = (await ctx.helpers.httpRequest({
				method: 'GET',
				url,
				encoding: options.as === 'stream' ? 'stream' : 'arraybuffer',
				returnFullResponse: true,
				ignoreHttpStatusErrors: true,
				timeout: options.timeout ?? 120_000,
			})) as DownloadResponse;
		} catch (error) {
			if (isRetryableNetworkError(error) && retry < MAX_RETRIES) {
				await sleep(backoffMs(retry));
				continue;
			}
			const code = networkCodeOf(error) ?? 'no answer';
			throw networkError(ctx, itemIndex, `${service.serviceName} download`, host, code, retry);
		}
		const { statusCode } = response;
		if (statusCode >= 200 && statusCode < 300) return response;
		const stream = response.body as { destroy?: () => void };
		if (options.as === 'stream' && typeof stream.destroy === 'function') stream.destroy();
		if (isRetryableStatus(statusCode) && retry < MAX_RETRIES) {
			await sleep(retryAfterMs(response.headers?.['retry-after']) ?? backoffMs(retry));
			continue;
		}
		throw apiError(ctx, itemIndex, {
			status: statusCode,
			body: options.as === 'stream' ? undefined : response.body,
			serviceName: `${service.serviceName} download from ${host}`,
			retries: retry,
			secrets: hidden,
			statusMessages: {
				403: `The download from ${host} was refused (403): the link has expired or is not valid`,
				404: `The file is no longer at ${host} (404)`,
			},
		});
	}
}
