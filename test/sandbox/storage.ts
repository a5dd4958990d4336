import http from 'http';

import { listen } from './listen';
import type { LoggedRequest, StorageHost, StoredObject, StoredOptions } from './types';

/**
 * How the storage says a file is not served: expired or not signed (403), not there (404),
 * removed (410); or that it cannot serve it now (503), a passing failure.
 */
export type GoneStatus = 403 | 404 | 410 | 503;

const GONE_TEXTS: Record<GoneStatus, string> = {
	403: 'Request has expired or its signature does not match',
	404: 'Not found',
	410: 'Gone',
	503: 'Service Unavailable',
};

/**
 * A separate host for files (processed images, database archives), as the live suite has. It
 * logs every request's headers and query, so a test can prove that no API key ever reached it.
 */
export async function createStorageHost(
	host: string,
	log: LoggedRequest[],
	port = 0,
): Promise<
	StorageHost & {
		close(): Promise<void>;
		refuseWhen(when: ((path: string) => boolean) | undefined, status?: GoneStatus): void;
	}
> {
	const objects = new Map<string, StoredObject>();
	/** Downloads refused as a file the storage no longer serves is, whatever the object: a test's fault. */
	let refused: { when: (path: string) => boolean; status: GoneStatus } | undefined;
	const server = http.createServer((req, res) => {
		const url = new URL(req.url ?? '/', 'http://storage');
		const entry: LoggedRequest = {
			service: 'storage',
			method: req.method ?? 'GET',
			path: url.pathname,
			query: Object.fromEntries(url.searchParams),
			headers: req.headers,
			fields: {},
			parts: [],
			// A GET has no body: a key could only come in the query or a Bearer header.
			keyPlaces: [
				...(url.searchParams.has('api_key') ? (['query'] as const) : []),
				...(/^Bearer\s/i.test(req.headers.authorization ?? '') ? (['bearer'] as const) : []),
			],
			status: 0,
			at: Date.now(),
		};
		log.push(entry);
		const object = objects.get(url.pathname);
		const signed = object?.requireQuery ?? {};
		const signatureOk = Object.entries(signed).every(
			([name, value]) => url.searchParams.get(name) === value,
		);
		const expired = object?.expiresAt !== undefined && Date.now() > object.expiresAt;
		const refusedStatus = refused?.when(url.pathname) ? refused.status : undefined;
		if (!object || !signatureOk || expired || refusedStatus) {
			entry.status = refusedStatus ?? (object ? 403 : 404);
			res.writeHead(entry.status, { 'Content-Type': 'text/plain' });
			res.end(GONE_TEXTS[entry.status as GoneStatus]);
			return;
		}
		entry.status = 200;
		res.writeHead(200, {
			'Content-Type': object.contentType,
			'Content-Length': String(object.statedLength ?? object.bytes.length),
		});
		if (object.stallAt !== undefined) {
			entry.fault = `stalled at ${object.stallAt} of ${object.bytes.length} bytes`;
			res.on('close', () => (entry.fault += ', closed by the client'));
			res.write(object.bytes.subarray(0, object.stallAt));
			return;
		}
		if (object.statedLength !== undefined) {
			entry.fault = `${object.bytes.length} bytes sent of ${object.statedLength} stated`;
			res.write(object.bytes, () => res.destroy());
			return;
		}
		if (object.truncateAt !== undefined && object.truncateAt < object.bytes.length) {
			entry.fault = `truncated at ${object.truncateAt} of ${object.bytes.length} bytes`;
			res.write(object.bytes.subarray(0, object.truncateAt), () => res.destroy());
			return;
		}
		res.end(object.bytes);
	});
	const baseUrl = `http://${host}:${await listen(server, port, host, "the sandbox's storage host")}`;
	return {
		baseUrl,
		put(path: string, bytes: Buffer, contentType: string, options: StoredOptions = {}) {
			const clean = `/${path.replace(/^\/+/, '')}`;
			objects.set(clean, { bytes, contentType, ...options });
			return `${baseUrl}${clean}`;
		},
		get: (path) => objects.get(`/${path.replace(/^\/+/, '')}`),
		refuseWhen: (when, status = 403) => {
			refused = when ? { when, status } : undefined;
		},
		close: async () => {
			server.closeAllConnections();
			await new Promise<void>((resolve) => server.close(() => resolve()));
		},
	};
}
