import { NodeOperationError } from 'n8n-workflow';
import type { IBinaryData, IDataObject, IExecuteFunctions } from 'n8n-workflow';

import type { FormRequest } from '../../credentials/shared/requestForms';
import { readableFrom, storeWritesEachChunk } from '../shared/binary/streams';
import type { DownloadResponse, ServiceClient } from '../shared/engine/types';
import {
	ArchiveError,
	countedTransfer,
	databaseFileOf,
	gunzip,
	readAhead,
	type ArchiveFacts,
} from './archiveCheck';

/**
 * The two steps of a database download: ask the service for the link (the key
 * goes only there), then fetch the link without the key and stream it into n8n's binary data,
 * read through and checked on the way. The link is a credential and is kept out of every message.
 */

export interface DownloadLink {
	url: string;
	/** Seconds the link stays valid, when the service said (the JSON form). */
	expiresIn?: number;
}

/**
 * Sends the node's request for the link (the JSON form asked for) and accepts the redirect too:
 * the endpoint may answer a 302 whose Location is the link, and documents a JSON body (`url`,
 * `expires_in`) for `response=json`.
 */
export async function requestLink(
	ctx: IExecuteFunctions,
	itemIndex: number,
	client: ServiceClient,
	request: FormRequest,
): Promise<DownloadLink> {
	const response = await client.request({ ...request, acceptStatus: [302] });
	let url: unknown;
	let expiresIn: unknown;
	if (response.statusCode === 302) {
		const location = response.headers.location ?? response.headers.Location;
		url = Array.isArray(location) ? location[0] : location;
	} else if (typeof response.body === 'object' && response.body !== null) {
		({ url, expires_in: expiresIn } = response.body as IDataObject);
	}
	if (typeof url !== 'string' || !/^https?:\/\//i.test(url)) {
		throw new NodeOperationError(
			ctx.getNode(),
			`The IP Database Download service answered (status ${response.statusCode}) without a download link`,
			{
				itemIndex,
				description: 'Run the node again; if it persists, the service has changed how it answers.',
			},
		);
	}
	const seconds = Number(expiresIn);
	return {
		url,
		...(expiresIn !== undefined && Number.isFinite(seconds) ? { expiresIn: seconds } : {}),
	};
}

export interface StoredFile {
	binary: IBinaryData;
	/** Bytes in the binary property. */
	size: number;
	facts: ArchiveFacts;
}

interface FileTarget {
	format: string;
	fileName: string;
	mimeType: string;
}

const ignore = () => undefined;

/**
 * How far the download may run ahead of the check (archive output) or of gunzip (database file
 * output): enough to keep network, disk and CPU busy at once, small against a 100 MB archive.
 */
const AHEAD_BYTES = 8 * 1024 * 1024;

/** The size of the writes of an extracted database file to n8n's binary storage. */
const WRITE_BYTES = 1024 * 1024;

/** Write buffers that take turns when the store writes each chunk through: three would do. */
const REUSED_WRITES = 4;

function bodyOf(download: DownloadResponse): {
	body: NodeJS.ReadableStream;
	expectedBytes?: number;
} {
	const length = Number(download.headers['content-length']);
	return {
		body: download.body as NodeJS.ReadableStream,
		expectedBytes: Number.isInteger(length) && length >= 0 ? length : undefined,
	};
}

/** Runs an async generator to its end, for its return value. */
async function finish<T>(walk: AsyncGenerator<unknown, T>): Promise<T> {
	for (;;) {
		const step = await walk.next();
		if (step.done) return step.value;
	}
}

async function* chunksOf(stream: ReadableStream<Uint8Array>): AsyncGenerator<Uint8Array> {
	const reader = stream.getReader();
	let done = false;
	try {
		while (!done) {
			const step = await reader.read();
			done = step.done;
			if (!step.done) yield step.value;
		}
	} finally {
		// Left early: the writing side learns it at its next write instead of waiting.
		if (!done) await reader.cancel().catch(ignore);
	}
}

/**
 * `archive` output: the .tar.gz as it came goes to the binary helpers while the same bytes are
 * read through (gunzip, tar, checksum) beside it, at most AHEAD_BYTES behind. The last chunk is
 * held back until the check has passed, so a broken archive fails the store instead of
 * completing it.
 */
export async function storeArchive(
	ctx: IExecuteFunctions,
	download: DownloadResponse,
	target: FileTarget,
): Promise<StoredFile> {
	const { body, expectedBytes } = bodyOf(download);
	const counter = { bytes: 0 };
	const checkQueue = new TransformStream<Uint8Array, Uint8Array>(
		{},
		new ByteLengthQueuingStrategy({ highWaterMark: AHEAD_BYTES }),
	);
	const checkQueueWriter = checkQueue.writable.getWriter();
	const checking = finish(
		databaseFileOf(gunzip(chunksOf(checkQueue.readable)), target.format, {}, expectedBytes),
	);
	checking.catch(ignore);
	let facts: ArchiveFacts | undefined;

	async function* verifiedArchive(): AsyncGenerator<Uint8Array> {
		let held: Uint8Array | undefined;
		try {
			for await (const chunk of countedTransfer(body, expectedBytes, counter)) {
				// The check may lag by up to AHEAD_BYTES; beyond that the download waits for it. A
				// queue the check stopped reading fails: the check's own error says why.
				await Promise.race([checkQueueWriter.ready.catch(() => checking), checking]);
				checkQueueWriter.write(chunk).catch(ignore);
				if (held) yield held;
				held = chunk;
			}
			await Promise.race([checkQueueWriter.close().catch(() => checking), checking]);
			facts = await checking;
		} finally {
			// Stopped early (a failed check, a failed store): stop the check and the download too.
			if (!facts) await checkQueueWriter.abort(new Error('stopped')).catch(ignore);
		}
		if (held) yield held;
	}

	const binary = await ctx.helpers.prepareBinaryData(
		readableFrom(body, verifiedArchive()) as unknown as Buffer,
		target.fileName,
		target.mimeType,
	);
	return { binary, size: counter.bytes, facts: facts! };
}

/**
 * `databaseFile` output: the database file, taken out of the archive as it streams, goes to the
 * binary helpers; its last chunk waits until the rest of the archive (its .sha256 file included)
 * has been read and the checksum matches.
 */
export async function storeDatabaseFile(
	ctx: IExecuteFunctions,
	download: DownloadResponse,
	target: Omit<FileTarget, 'fileName'>,
): Promise<StoredFile> {
	const { body, expectedBytes } = bodyOf(download);
	const seen: { name?: string } = {};
	const walk = databaseFileOf(
		gunzip(
			readAhead(countedTransfer(body, expectedBytes, { bytes: 0 }), AHEAD_BYTES),
			// Every byte this output keeps is the database file's, held to its SHA-256: the gzip
			// CRC-32 would check them again, slower. The archive output keeps them all: it checks both.
			false,
		),
		target.format,
		seen,
		expectedBytes,
	);
	// Read up to the database file's first bytes before storing anything: that gives its name, and
	// a download that is not a gzip'd tar at all fails here, before a byte is stored.
	const first = await walk.next();
	let facts: ArchiveFacts | undefined = first.done ? first.value : undefined;

	// A fresh buffer for every megabyte costs n8n's process a full garbage collection of its whole
	// heap for about every 64 MiB (V8 counts the buffers as external memory): most of the time of
	// a large file (docs/benchmarks.md). A store that writes each chunk through lets a few buffers
	// take turns instead.
	const reused = (await storeWritesEachChunk(ctx))
		? Array.from({ length: REUSED_WRITES }, () => Buffer.allocUnsafe(WRITE_BYTES))
		: undefined;
	let writes = 0;
	const nextWrite = () => reused?.[writes++ % REUSED_WRITES] ?? Buffer.allocUnsafe(WRITE_BYTES);

	async function* verifiedDatabaseFile(): AsyncGenerator<Uint8Array> {
		// The checked pieces are views of gunzip's reused buffer: each is copied into the store's
		// next write before the next is asked for. A write is a fresh buffer (n8n may keep what it
		// is handed) unless the store writes each chunk through (`reused`): while a write fills,
		// the store holds at most the one before `held`, and the buffer filled is the one filled
		// REUSED_WRITES writes before, whose write has ended.
		let write = nextWrite();
		let filled = 0;
		let held: Buffer | undefined;
		let piece: Uint8Array | undefined = first.done ? undefined : first.value;
		try {
			for (;;) {
				for (let at = 0; piece && at < piece.length; ) {
					const count = Math.min(piece.length - at, WRITE_BYTES - filled);
					write.set(piece.subarray(at, at + count), filled);
					filled += count;
					at += count;
					if (filled === WRITE_BYTES) {
						if (held) yield held;
						held = write;
						write = nextWrite();
						filled = 0;
					}
				}
				if (facts) break;
				const step = await walk.next();
				if (step.done) facts = step.value;
				piece = step.done ? undefined : step.value;
			}
		} finally {
			if (!facts) await walk.return(undefined as never).catch(ignore);
		}
		// The last bytes go only now that the whole archive is read and its checksum matched.
		if (held) yield held;
		if (filled > 0) yield write.subarray(0, filled);
	}

	const binary = await ctx.helpers.prepareBinaryData(
		readableFrom(body, verifiedDatabaseFile()) as unknown as Buffer,
		seen.name ?? `database.${target.format}`,
		target.mimeType,
	);
	return { binary, size: facts!.databaseFileSize, facts: facts! };
}

export { ArchiveError };
