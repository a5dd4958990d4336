import { randomBytes } from 'crypto';
import http from 'http';

import { errorResponse, unauthorized } from './errorBody';
import { listen } from './listen';
import { parseMultipart } from './multipart';
import { randomFraction } from './random';
import { SERVICES } from './services';
import { createStorageHost, type GoneStatus } from './storage';
import type {
	Fault,
	KeySource,
	LoggedRequest,
	SandboxContext,
	SandboxRequest,
	SandboxResponse,
	ServiceModule,
} from './types';

/**
 * The suite emulated on 127.0.0.1 over real HTTP: one server answering every service under its
 * own path prefix (so every credential's Base URL carries a prefix, as a gateway's would), a
 * separate storage host, per-service keys, a request log, rate limits, quotas and faults.
 */
export interface Sandbox {
	/** Base URL per service, to put into its credential: `http://127.0.0.1:PORT/phone`. */
	baseUrls: Record<string, string>;
	/** The valid key per service; a key of one service is rejected by every other. */
	keys: Record<string, string>;
	storageUrl: string;
	log: LoggedRequest[];
	/** The log of one service (or of the storage host: `storage`). */
	requests(service: string): LoggedRequest[];
	/** Queues failures for the next requests of a service, in order. */
	inject(service: string, ...faults: Fault[]): void;
	/**
	 * A limiter per key, as strict as a real one can be: at most `perSecond` accepted requests in
	 * any sliding window of one second, counted at arrival; 429 beyond (refusals do not count).
	 */
	limitRate(service: string, perSecond: number): void;
	/**
	 * Recurring faults (the queued ones of `inject` go first): every `every`-th request of the
	 * service, or each request with `probability`, gets the next of `faults` in turn. `seed` makes
	 * the random choice repeatable.
	 */
	faultPattern(service: string, pattern: FaultPattern): void;
	/**
	 * A lasting fault for the requests of a service that `when` picks (by the value they carry, say),
	 * every time they come: one item of a run fails after its retries, the others are answered.
	 */
	faultWhen(service: string, when: (request: SandboxRequest) => boolean, fault: Fault): void;
	/**
	 * Downloads from the storage host that `when` picks (by path) are refused: 403 (default) as an
	 * expired link is, 404 as a file removed, 410 as one the storage says is gone for good.
	 */
	refuseDownloads(when: (path: string) => boolean, status?: GoneStatus): void;
	/** Credits left for a service; at zero it answers `status` (422, or 403 as email may). */
	setQuota(service: string, credits: number, status?: 422 | 403): void;
	/** Another key a service accepts, with whatever the module makes of it (database entitlements). */
	addKey(service: string, key: string): void;
	/** Clears log, faults, limits and quotas between tests. */
	reset(): void;
	close(): Promise<void>;
}

export interface SandboxOptions {
	/** The services' port (default: a free one). */
	port?: number;
	/** The storage host's port (default: a free one). */
	storagePort?: number;
	host?: string;
	/**
	 * The same key for a service at every start (`sbx_phone_sandbox`), so credentials a person
	 * made by hand for the sandbox keep working; default: new random keys each start.
	 */
	steadyKeys?: boolean;
}

export interface FaultPattern {
	faults: Fault[];
	every?: number;
	probability?: number;
	seed?: number;
}

interface ActivePattern extends FaultPattern {
	seen: number;
	used: number;
	random: () => number;
}

export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
	const host = options.host ?? '127.0.0.1';
	const modules = new Map<string, ServiceModule>(SERVICES.map((module) => [module.name, module]));
	const keys: Record<string, string> = {};
	const validKeys = new Map<string, Set<string>>();
	for (const name of modules.keys()) {
		keys[name] = `sbx_${name}_${options.steadyKeys ? 'sandbox' : randomBytes(12).toString('hex')}`;
		validKeys.set(name, new Set([keys[name]]));
	}
	const log: LoggedRequest[] = [];
	const faults = new Map<string, Fault[]>();
	/** Arrival times of the accepted requests of the last second, per service and key. */
	const windows = new Map<string, number[]>();
	const patterns = new Map<string, ActivePattern>();
	const rateLimits = new Map<string, number>();
	const quotas = new Map<string, { credits: number; status: 422 | 403 }>();
	const picked = new Map<
		string,
		Array<{ when: (request: SandboxRequest) => boolean; fault: Fault }>
	>();

	const storage = await createStorageHost(host, log, options.storagePort);
	let apiBase = '';
	const context: SandboxContext = { storage, serviceUrl: (service) => `${apiBase}/${service}` };

	const server = http.createServer((req, res) => {
		const chunks: Buffer[] = [];
		req.on('data', (chunk: Buffer) => chunks.push(chunk));
		req.on('end', () => {
			void answer(req, res, Buffer.concat(chunks)).catch((error: Error) => {
				send(res, errorResponse(500, `sandbox failure: ${error.message}`, 'internal_error'));
			});
		});
	});

	async function answer(req: http.IncomingMessage, res: http.ServerResponse, rawBody: Buffer) {
		const url = new URL(req.url ?? '/', apiBase);
		const [, service, ...rest] = url.pathname.split('/');
		const module = modules.get(service);
		const request = parseRequest(req, url, service, `/${rest.join('/')}`, rawBody);
		const entry: LoggedRequest = {
			service,
			method: request.method,
			path: request.path,
			query: request.query,
			headers: req.headers,
			fields: request.fields,
			parts: request.parts.map(({ data, ...part }) => ({ ...part, size: data.length })),
			keyPlaces: keyPlacesOf(request),
			status: 0,
			at: Date.now(),
		};
		log.push(entry);
		if (!module) {
			entry.status = 404;
			return send(res, errorResponse(404, `No service under /${service}`, 'not_found'));
		}

		let fault =
			faults.get(service)?.shift() ??
			patternFault(service) ??
			picked.get(service)?.find(({ when }) => when(request))?.fault;
		if (fault?.kind === 'delay') {
			const { ms, until } = fault;
			entry.fault = until ? 'held' : `delay ${ms}ms`;
			await (until ?? new Promise((resolve) => setTimeout(resolve, ms)));
			fault = fault.then;
		}
		if (fault?.kind === 'drop') {
			entry.fault = 'drop';
			req.socket.destroy();
			return;
		}
		if (fault?.kind === 'answer') {
			entry.fault = 'answer';
			entry.status = 200;
			return send(res, { status: 200, json: fault.json });
		}
		if (fault?.kind === 'status') {
			entry.fault = `status ${fault.status}`;
			entry.status = fault.status;
			const response = errorResponse(
				fault.status,
				fault.message ?? faultMessage(fault.status),
				faultCode(fault.status),
			);
			if (fault.retryAfter !== undefined)
				response.headers = { 'Retry-After': String(fault.retryAfter) };
			return send(res, response);
		}

		const response = await serve(module, request, entry.at);
		entry.status = response.status;
		send(res, response);
	}

	async function serve(
		module: ServiceModule,
		request: SandboxRequest,
		arrivedAt: number,
	): Promise<SandboxResponse> {
		extractKey(module, request);
		if (!request.key || !validKeys.get(module.name)?.has(request.key)) {
			return module.rejectKey ? module.rejectKey(request) : unauthorized();
		}
		if (!takeToken(module.name, request.key, arrivedAt)) {
			return errorResponse(
				429,
				'Too many requests: the plan allows fewer requests per second.',
				'too_many_requests',
			);
		}
		const quota = module.charges === false ? undefined : quotas.get(module.name);
		if (quota && quota.credits <= 0) {
			return errorResponse(
				quota.status,
				'Insufficient API credits for this request.',
				'quota_reached',
			);
		}
		// The credit is taken at arrival and given back if the answer is an error: requests answered
		// at the same time cannot both spend the last credit, so a quota of N answers exactly N.
		if (quota) quota.credits--;
		const response = await module.handle(request, context);
		if (quota && response.status >= 400) quota.credits++;
		return response;
	}

	/**
	 * Sliding window: a request is accepted when fewer than `perSecond` were accepted in the
	 * second before it arrived. Stricter than a token bucket (no burst beyond the rate, and the
	 * arrivals, not the departures, count), so a client that passes it passes either kind.
	 * A rate below 1 (0.5: one every two seconds) widens the window to one request.
	 */
	function takeToken(service: string, key: string, arrivedAt: number): boolean {
		const perSecond = rateLimits.get(service);
		if (!perSecond) return true;
		const id = `${service}\n${key}`;
		const allowed = Math.max(1, Math.floor(perSecond));
		const windowMs = (allowed * 1000) / perSecond;
		const accepted = (windows.get(id) ?? []).filter((at) => arrivedAt - at < windowMs);
		windows.set(id, accepted);
		if (accepted.length >= allowed) return false;
		accepted.push(arrivedAt);
		return true;
	}

	function patternFault(service: string): Fault | undefined {
		const pattern = patterns.get(service);
		if (!pattern || pattern.faults.length === 0) return undefined;
		pattern.seen++;
		const hit = pattern.every
			? pattern.seen % pattern.every === 0
			: pattern.random() < (pattern.probability ?? 0);
		if (!hit) return undefined;
		return pattern.faults[pattern.used++ % pattern.faults.length];
	}

	try {
		apiBase = `http://${host}:${await listen(server, options.port ?? 0, host, 'the sandbox')}`;
	} catch (error) {
		await storage.close();
		throw error;
	}

	const baseUrls: Record<string, string> = {};
	for (const name of modules.keys()) baseUrls[name] = `${apiBase}/${name}`;

	return {
		baseUrls,
		keys,
		storageUrl: storage.baseUrl,
		log,
		requests: (service) => log.filter((entry) => entry.service === service),
		inject: (service, ...added) => faults.set(service, [...(faults.get(service) ?? []), ...added]),
		limitRate: (service, perSecond) => {
			rateLimits.set(service, perSecond);
			for (const id of windows.keys()) if (id.startsWith(`${service}\n`)) windows.delete(id);
		},
		faultPattern: (service, pattern) =>
			patterns.set(service, {
				...pattern,
				seen: 0,
				used: 0,
				random: randomFraction(pattern.seed ?? 1),
			}),
		faultWhen: (service, when, fault) =>
			picked.set(service, [...(picked.get(service) ?? []), { when, fault }]),
		refuseDownloads: (when, status) => storage.refuseWhen(when, status),
		setQuota: (service, credits, status = 422) => quotas.set(service, { credits, status }),
		addKey: (service, key) => validKeys.get(service)?.add(key),
		reset: () => {
			log.length = 0;
			faults.clear();
			windows.clear();
			patterns.clear();
			rateLimits.clear();
			quotas.clear();
			picked.clear();
			storage.refuseWhen(undefined);
		},
		close: async () => {
			server.closeAllConnections();
			await new Promise<void>((resolve) => server.close(() => resolve()));
			await storage.close();
		},
	};
}

function parseRequest(
	req: http.IncomingMessage,
	url: URL,
	service: string,
	path: string,
	rawBody: Buffer,
): SandboxRequest {
	const contentType = String(req.headers['content-type'] ?? '');
	let fields: Record<string, unknown> = {};
	let parts: SandboxRequest['parts'] = [];
	if (rawBody.length > 0) {
		if (/^application\/json/i.test(contentType)) {
			try {
				fields = JSON.parse(rawBody.toString('utf8')) as Record<string, unknown>;
			} catch {
				fields = {};
			}
		} else if (/^multipart\/form-data/i.test(contentType)) {
			parts = parseMultipart(rawBody, contentType);
		} else {
			// No JSON content type: the body is read as form data, as the services read it.
			fields = Object.fromEntries(new URLSearchParams(rawBody.toString('utf8')));
		}
	}
	return {
		service,
		method: req.method ?? 'GET',
		path,
		query: Object.fromEntries(url.searchParams),
		headers: req.headers,
		rawBody,
		fields,
		parts,
	};
}

/** Every place a key can come from, in the sandbox's request log's order. */
const KEY_SOURCES = ['query', 'bearer', 'form', 'json', 'multipart'] as const;

/** The key `request` carries at `source`, if any (`form` and `json` both read the body's fields). */
function keyAt(source: KeySource, request: SandboxRequest): string | undefined {
	let key: unknown;
	if (source === 'query') key = request.query.api_key;
	if (source === 'bearer')
		key = /^Bearer\s+(.+)$/i.exec(String(request.headers.authorization ?? ''))?.[1];
	if (source === 'form' || source === 'json') key = request.fields.api_key;
	if (source === 'multipart') {
		const data = request.parts.find((part) => part.name === 'data');
		try {
			key = data
				? (JSON.parse(data.data.toString('utf8')) as { api_key?: unknown }).api_key
				: undefined;
		} catch {
			key = undefined;
		}
	}
	return typeof key === 'string' && key !== '' ? key : undefined;
}

/** Every place the request carries a key, whatever its service reads: a body's field once, as the body's type. */
function keyPlacesOf(request: SandboxRequest): KeySource[] {
	const json = /^application\/json/i.test(String(request.headers['content-type'] ?? ''));
	return KEY_SOURCES.filter(
		(source) => source !== (json ? 'form' : 'json') && keyAt(source, request) !== undefined,
	);
}

/** Takes the key from the first place, in the module's order, that carries one. */
function extractKey(module: ServiceModule, request: SandboxRequest) {
	for (const source of module.keyFrom) {
		const key = keyAt(source, request);
		if (key !== undefined) {
			request.key = key;
			request.keySource = source;
			return;
		}
	}
}

const FAULTS: Record<number, [message: string, code: string]> = {
	400: ['Bad request.', 'bad_request'],
	401: ['Invalid API key provided.', 'unauthorized'],
	403: ['Forbidden.', 'forbidden'],
	422: ['Insufficient API credits for this request.', 'quota_reached'],
	429: ['Too many requests: the plan allows fewer requests per second.', 'too_many_requests'],
	500: ['Internal server error.', 'internal_error'],
	503: ['Service temporarily unavailable.', 'service_unavailable'],
};

const faultMessage = (status: number) => FAULTS[status]?.[0] ?? `Status ${status}.`;
const faultCode = (status: number) => FAULTS[status]?.[1] ?? 'error';

function send(res: http.ServerResponse, response: SandboxResponse) {
	if (res.headersSent || res.destroyed) return;
	const headers: Record<string, string> = { ...(response.headers ?? {}) };
	let body: Buffer | undefined;
	if (response.json !== undefined) {
		body = Buffer.from(JSON.stringify(response.json));
		headers['Content-Type'] ??= 'application/json';
	} else if (response.bytes) {
		body = response.bytes;
	}
	headers['Content-Length'] = String(body?.length ?? 0);
	res.writeHead(response.status, headers);
	res.end(body);
}
