import type { IncomingHttpHeaders } from 'http';

/** A request as a service module of the sandbox sees it. */
export interface SandboxRequest {
	service: string;
	method: string;
	/** The path below the service's prefix, for instance `/v1/`. */
	path: string;
	query: Record<string, string>;
	headers: IncomingHttpHeaders;
	rawBody: Buffer;
	/** JSON or form fields, when the body is one of those; multipart parts are in `parts`. */
	fields: Record<string, unknown>;
	parts: MultipartPart[];
	/** Where the key came from, when one came. */
	key?: string;
	keySource?: KeySource;
}

/** Where a request can carry a key: the query, a Bearer header, a form or JSON body's field, a multipart `data` part. */
export type KeySource = 'query' | 'bearer' | 'form' | 'json' | 'multipart';

export interface MultipartPart {
	name: string;
	fileName?: string;
	contentType?: string;
	data: Buffer;
}

/** What a module answers: JSON (`json`), bytes (`bytes`), or nothing (204, 302). */
export interface SandboxResponse {
	status: number;
	headers?: Record<string, string>;
	json?: unknown;
	bytes?: Buffer;
}

export interface ServiceModule {
	/** The URL prefix and the name in the request log: `phone` answers under `/phone/...`. */
	name: string;
	/** Where this service accepts its key (query, Bearer header, form field or JSON body). */
	keyFrom: ReadonlyArray<NonNullable<SandboxRequest['keySource']>>;
	/** A rejected or missing key: 401 for the lookups, 400/403 for the database download. */
	rejectKey?(request: SandboxRequest): SandboxResponse;
	/** Whether this request spends a credit (quotas), default yes. */
	charges?: boolean;
	handle(
		request: SandboxRequest,
		sandbox: SandboxContext,
	): SandboxResponse | Promise<SandboxResponse>;
}

/** What a service module may use of the sandbox beyond its request. */
export interface SandboxContext {
	/** The storage host: publishes bytes under a path, returns their URL. */
	storage: StorageHost;
	/** The sandbox's own address of a service, for links back into it. */
	serviceUrl(service: string): string;
}

export interface StorageHost {
	readonly baseUrl: string;
	put(path: string, bytes: Buffer, contentType: string, options?: StoredOptions): string;
	get(path: string): StoredObject | undefined;
}

export interface StoredOptions {
	/** The query parameters a request must carry (a signature), checked on each download. */
	requireQuery?: Record<string, string>;
	/** Epoch milliseconds after which the object answers 403 (an expired link). */
	expiresAt?: number;
	/**
	 * A transfer cut short: the full Content-Length is announced, only this many bytes are sent,
	 * then the connection is dropped (the database download's truncated-transfer fault).
	 */
	truncateAt?: number;
	/**
	 * A Content-Length larger than the bytes sent (a host that overstates it): the bytes are sent,
	 * then the connection is dropped.
	 */
	statedLength?: number;
	/**
	 * A transfer that stalls: this many bytes are sent, then nothing more, the connection held
	 * open until the client closes it (which the request's log entry then says).
	 */
	stallAt?: number;
}

export interface StoredObject extends StoredOptions {
	bytes: Buffer;
	contentType: string;
}

export interface LoggedRequest {
	service: string;
	method: string;
	path: string;
	query: Record<string, string>;
	headers: IncomingHttpHeaders;
	fields: Record<string, unknown>;
	parts: Array<Omit<MultipartPart, 'data'> & { size: number }>;
	/** Every place the request carried a key, whatever the service reads. */
	keyPlaces: KeySource[];
	status: number;
	/** What fault, if any, the sandbox injected instead of answering. */
	fault?: string;
	at: number;
}

/** A failure to inject into the next request of a service. */
export type Fault =
	| { kind: 'status'; status: number; retryAfter?: number; message?: string }
	| { kind: 'drop' }
	/** Answers 200 with this JSON in place of the service's record (a service answering oddly). */
	| { kind: 'answer'; json: unknown }
	/** Answers after `ms`, or once `until` settles; then as `then` says (by default, as usual). */
	| { kind: 'delay'; ms: number; until?: Promise<unknown>; then?: Fault };
