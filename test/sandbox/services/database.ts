import { randomBytes } from 'crypto';

import { badRequest, errorResponse } from '../errorBody';
import { buildArchive, type DatabaseArchive } from '../ipDatabases/archives';
import { DATABASES, FORMATS, type DatabaseId, type FormatId } from '../ipDatabases/records';
import type { SandboxResponse, ServiceModule } from '../types';

/**
 * IP database download (GET /v1/database/download/). The key stays on this host: the
 * answer is a signed, expiring link on the separate storage host, as a 302 (default) or, with
 * `response=json`, as 200 {url, expires_in}. One 403 for four causes: unknown, disabled or revoked
 * key; no entitlement to the database; database or format outside the catalogue.
 */
export const DOWNLOAD_PATH = '/v1/database/download/';

/**
 * What the next link's stored object does wrong: a cut transfer, flipped bytes, not gzip at all, a
 * .sha256 that does not match, a Content-Length a hundred times the bytes sent (the connection
 * then held open), a transfer that stalls halfway with its connection held open.
 */
export type DownloadFault =
	| 'truncated'
	| 'corrupted'
	| 'notGzip'
	| 'badChecksum'
	| 'overstatedLength'
	| 'stalled';

interface DatabaseState {
	/** Keys limited to some databases; a valid key not listed here is entitled to all. */
	entitlements: Map<string, Set<DatabaseId>>;
	/** Keys the sandbox knows but that are disabled or revoked. */
	disabled: Set<string>;
	build: number;
	/** The redirect form only: 302 whatever `response` says (the JSON form ignored). */
	redirectOnly: boolean;
	expiresIn: number;
	faults: DownloadFault[];
	/** Archives served instead of the built ones (the benchmark's 100 MB CSV). */
	overrides: Map<string, DatabaseArchive>;
	/** Every link handed out, so a test can look for it in outputs and errors. */
	links: string[];
}

const freshState = (): DatabaseState => ({
	entitlements: new Map(),
	disabled: new Set(),
	build: 1,
	redirectOnly: false,
	expiresIn: 3600,
	faults: [],
	overrides: new Map(),
	links: [],
});

/** One state per sandbox, found by its storage host's address (both test and module know it). */
const states = new Map<string, DatabaseState>();
const stateOf = (storageUrl: string) => {
	let state = states.get(storageUrl);
	if (!state) {
		state = freshState();
		states.set(storageUrl, state);
	}
	return state;
};

const forbidden = (): SandboxResponse =>
	errorResponse(403, 'Forbidden: this key may not download this database.', 'forbidden');

export const database: ServiceModule = {
	name: 'api',
	keyFrom: ['query'],
	charges: false,
	rejectKey: (request) =>
		request.query.api_key ? forbidden() : badRequest('Parameter api_key is missing.'),
	handle(request, sandbox) {
		if (request.method !== 'GET' || request.path !== DOWNLOAD_PATH) {
			return errorResponse(404, `Use GET ${DOWNLOAD_PATH}`, 'not_found');
		}
		const state = stateOf(sandbox.storage.baseUrl);
		const key = request.key ?? '';
		const databaseId = (request.query.database ?? 'ip-geolocation') as DatabaseId;
		const format = (request.query.format ?? 'mmdb') as FormatId;
		if (state.disabled.has(key)) return forbidden();
		if (!DATABASES.includes(databaseId) || !FORMATS.includes(format)) return forbidden();
		if (!(state.entitlements.get(key)?.has(databaseId) ?? true)) return forbidden();

		const link = publish(state, sandbox.storage, databaseId, format);
		const headers = { 'Cache-Control': 'no-store' };
		if (request.query.response === 'json' && !state.redirectOnly) {
			return { status: 200, headers, json: { url: link, expires_in: state.expiresIn } };
		}
		return { status: 302, headers: { ...headers, Location: link } };
	},
};

/** Puts the archive under a fresh path on the storage host, signed and expiring; returns the link. */
function publish(
	state: DatabaseState,
	storage: Parameters<ServiceModule['handle']>[1]['storage'],
	databaseId: DatabaseId,
	format: FormatId,
): string {
	const fault = state.faults.shift();
	const archive =
		state.overrides.get(`${databaseId}/${format}`) ??
		buildArchive(
			databaseId,
			format,
			state.build,
			fault === 'badChecksum' ? { checksum: 'f'.repeat(64) } : {},
		);
	let bytes = archive.bytes;
	let contentType = 'application/gzip';
	if (fault === 'corrupted') {
		bytes = Buffer.from(bytes);
		const middle = Math.floor(bytes.length / 2);
		for (let index = middle; index < middle + 8; index++) bytes[index] ^= 0x5a;
	}
	if (fault === 'notGzip') {
		bytes = Buffer.from(
			'<html><body><h1>Service Unavailable</h1><p>Please try again later.</p></body></html>\n',
		);
		contentType = 'text/html';
	}
	const expires = Math.floor(Date.now() / 1000) + state.expiresIn;
	const signature = randomBytes(20).toString('hex');
	const path = `/databases/${randomBytes(8).toString('hex')}/${archive.fileName}`;
	const url = storage.put(path, bytes, contentType, {
		requireQuery: { expires: String(expires), signature },
		expiresAt: expires * 1000,
		...(fault === 'truncated' ? { truncateAt: Math.floor(bytes.length / 2) } : {}),
		// All the bytes, then the connection held open: the client cannot tell that more will not come.
		...(fault === 'overstatedLength'
			? { statedLength: bytes.length * 100, stallAt: bytes.length }
			: {}),
		...(fault === 'stalled' ? { stallAt: Math.floor(bytes.length / 2) } : {}),
	});
	const link = `${url}?expires=${expires}&signature=${signature}`;
	state.links.push(link);
	return link;
}

/** What a test or the benchmark may change about one sandbox's database download. */
export interface DatabaseControls {
	/** A further key of the IP intelligence service, entitled to the given databases only. */
	addKey(key: string, entitled: DatabaseId[]): void;
	/** A key the service knows but that is disabled or revoked: 403. */
	disableKey(key: string): void;
	/** The build being served (a later build holds changed records, so new checksums). */
	setBuild(build: number): void;
	/** Answer 302 even when `response=json` is asked for (the redirect form only). */
	redirectOnly(on: boolean): void;
	setExpiresIn(seconds: number): void;
	/** The next link(s) handed out serve a faulty object, one fault per link, in order. */
	failNextDownload(...faults: DownloadFault[]): void;
	/** Serve this archive for its database and format instead of the built one. */
	serve(archive: DatabaseArchive): void;
	/** The archive the sandbox serves now for a database and format. */
	archive(databaseId: DatabaseId, format: FormatId): DatabaseArchive;
	/** Every link handed out since the last reset. */
	links(): string[];
	reset(): void;
}

export function databaseControls(sandbox: {
	storageUrl: string;
	addKey(service: string, key: string): void;
}): DatabaseControls {
	const state = stateOf(sandbox.storageUrl);
	return {
		addKey(key, entitled) {
			sandbox.addKey(database.name, key);
			state.entitlements.set(key, new Set(entitled));
		},
		disableKey(key) {
			sandbox.addKey(database.name, key);
			state.disabled.add(key);
		},
		setBuild: (build) => {
			state.build = build;
		},
		redirectOnly: (on) => {
			state.redirectOnly = on;
		},
		setExpiresIn: (seconds) => {
			state.expiresIn = seconds;
		},
		failNextDownload: (...faults) => state.faults.push(...faults),
		serve: (archive) => state.overrides.set(`${archive.database}/${archive.format}`, archive),
		archive: (databaseId, format) =>
			state.overrides.get(`${databaseId}/${format}`) ??
			buildArchive(databaseId, format, state.build),
		links: () => [...state.links],
		reset: () => {
			const { entitlements, disabled } = state;
			Object.assign(state, freshState(), { entitlements, disabled });
		},
	};
}
