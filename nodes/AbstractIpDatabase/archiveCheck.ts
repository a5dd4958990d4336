import { createHash } from 'crypto';

import { readTar, TarError } from './tarReader';

/**
 * Reads a database archive through (the database file, its `.sha256` file, a README): gunzip with the web DecompressionStream,
 * the tar members, the SHA-256 of the database file against its `.sha256` file. Anything short
 * of a complete, matching archive is an ArchiveError: a broken file must never reach storage.
 */

export type ArchiveProblem = 'transfer' | 'gzip' | 'tar' | 'content' | 'checksum' | 'size';

export class ArchiveError extends Error {
	constructor(
		readonly problem: ArchiveProblem,
		message: string,
	) {
		super(message);
	}
}

/** What a verified archive holds. */
export interface ArchiveFacts {
	databaseFileName: string;
	databaseFileSize: number;
	/** SHA-256 of the database file, equal to the one its `.sha256` file states. */
	sha256: string;
}

/**
 * No database unpacks to more than this many times its archive: the catalog's are 2x (MMDB) to
 * about 17x (the security CSV); gzip can reach 1,032x, which only a crafted file (a gzip bomb)
 * does. Below UNPACKED_FLOOR nothing is refused, so a small archive's tar padding has room.
 */
export const UNPACKED_PER_ARCHIVE_BYTE = 64;
export const UNPACKED_FLOOR = 64 * 1024 * 1024;

/** The most an archive of `archiveBytes` (or, its length unknown, the bytes read so far) may unpack to. */
export const unpackedLimit = (archiveBytes: number) =>
	Math.max(UNPACKED_FLOOR, UNPACKED_PER_ARCHIVE_BYTE * archiveBytes);

function tooLarge(what: string, bytes: number, archiveBytes: number): ArchiveError {
	return new ArchiveError(
		'size',
		`${what} to ${mebibytes(bytes)}, more than ${UNPACKED_PER_ARCHIVE_BYTE} times the archive's ${mebibytes(archiveBytes)} ` +
			`(at most ${mebibytes(unpackedLimit(archiveBytes))}): no database compresses that well, so it is refused (a gzip bomb?)`,
	);
}

const mebibytes = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

/** The bytes of a download, counted: a transfer that ends early or fails is an ArchiveError. */
export async function* countedTransfer(
	body: AsyncIterable<Uint8Array | string>,
	expectedBytes: number | undefined,
	counter: { bytes: number },
): AsyncGenerator<Uint8Array> {
	// Failures are kept and thrown after the loop: an ArchiveError says what broke, in words.
	let failure: unknown;
	try {
		for await (const chunk of body) {
			const bytes = typeof chunk === 'string' ? new TextEncoder().encode(chunk) : chunk;
			counter.bytes += bytes.length;
			yield bytes;
		}
	} catch (error) {
		failure = error;
	}
	if (failure instanceof ArchiveError) throw failure;
	if (failure !== undefined) {
		throw new ArchiveError(
			'transfer',
			`the transfer broke off after ${counter.bytes} bytes${expectedBytes ? ` of ${expectedBytes}` : ''} (${describe(failure)})`,
		);
	}
	if (expectedBytes !== undefined && counter.bytes !== expectedBytes) {
		throw new ArchiveError(
			'transfer',
			`the transfer ended after ${counter.bytes} of ${expectedBytes} bytes`,
		);
	}
}

/**
 * Pulls `source` ahead of its consumer, holding at most about `maxBytes`, so that the network
 * and the CPU-bound steps after it (gunzip, hashing) overlap instead of taking turns.
 */
export async function* readAhead(
	source: AsyncIterable<Uint8Array>,
	maxBytes: number,
): AsyncGenerator<Uint8Array> {
	const queue: Uint8Array[] = [];
	let queued = 0;
	let ended = false;
	let stopped = false;
	let failure: unknown;
	let wakeConsumer = () => {};
	let wakeProducer = () => {};
	void (async () => {
		try {
			for await (const chunk of source) {
				queue.push(chunk);
				queued += chunk.length;
				wakeConsumer();
				while (queued >= maxBytes && !stopped)
					await new Promise<void>((resolve) => (wakeProducer = resolve));
				if (stopped) break;
			}
		} catch (error) {
			failure = error;
		} finally {
			ended = true;
			wakeConsumer();
		}
	})();
	try {
		for (;;) {
			const chunk = queue.shift();
			if (chunk) {
				queued -= chunk.length;
				wakeProducer();
				yield chunk;
			} else if (ended) break;
			else await new Promise<void>((resolve) => (wakeConsumer = resolve));
		}
	} finally {
		// A consumer that stops early stops the source at its next chunk.
		stopped = true;
		wakeProducer();
	}
	if (failure !== undefined) throw failure;
}

/**
 * Decompresses a gzip stream; the web DecompressionStream checks the CRC and the length. What it
 * unpacks to is bounded by unpackedLimit of the archive's stated length (`archiveBytes`) or of
 * the bytes fed in so far, whichever is more: a gzip bomb stops at the bound, not at its end.
 */
export async function* gunzip(
	compressed: AsyncIterable<Uint8Array>,
	archiveBytes = 0,
): AsyncGenerator<Uint8Array> {
	const stream = new DecompressionStream('gzip');
	const writer = stream.writable.getWriter();
	const reader = stream.readable.getReader();
	// The source's own failure (a broken transfer) is kept apart from the decompressor's.
	let sourceError: unknown;
	let fedBytes = 0;
	let unpackedBytes = 0;
	const source = compressed[Symbol.asyncIterator]();
	const sourceWritten = (async () => {
		for (;;) {
			let next: IteratorResult<Uint8Array>;
			try {
				next = await source.next();
			} catch (error) {
				sourceError = error;
				await writer.abort(error).catch(() => undefined);
				return;
			}
			if (next.done) break;
			fedBytes += next.value.length;
			try {
				await writer.write(next.value as Uint8Array<ArrayBuffer>);
			} catch {
				// The decompressor failed or was cancelled: the reader reports why; stop the source.
				await Promise.resolve(source.return?.()).catch(() => undefined);
				return;
			}
		}
		await writer.close().catch(() => undefined);
	})();
	let finished = false;
	try {
		for (;;) {
			const step = await settle(reader.read());
			if ('error' in step) {
				await sourceWritten;
				if (sourceError !== undefined) throw sourceError;
				throw new ArchiveError(
					'gzip',
					`its gzip data is broken, or it is not a gzip file (${describe(step.error)})`,
				);
			}
			if (step.value.done) break;
			unpackedBytes += step.value.value.length;
			const archive = Math.max(archiveBytes, fedBytes);
			if (unpackedBytes > unpackedLimit(archive))
				throw tooLarge('it unpacks', unpackedBytes, archive);
			yield step.value.value;
		}
		finished = true;
	} finally {
		// A consumer that stops early (an error further on) stops the download too. The write in
		// progress is not waited for: a decompressor cancelled while its output was full never
		// finishes it (a bomb refused at its first member would hang here).
		if (!finished) {
			await reader.cancel().catch(() => undefined);
			await Promise.resolve(source.return?.()).catch(() => undefined);
		} else await sourceWritten;
	}
	if (sourceError !== undefined) throw sourceError;
}

/**
 * Walks the decompressed tar: yields the bytes of the database file (the one `.mmdb` or `.csv`
 * member) as they come, and returns its facts once the whole archive has been read and its
 * checksum matches. The `.sha256` file may come before or after the database file.
 */
export async function* databaseFileOf(
	tar: AsyncIterable<Uint8Array>,
	extension: string,
	seen: { name?: string } = {},
	archiveBytes = 0,
): AsyncGenerator<Uint8Array, ArchiveFacts> {
	let database: { name: string; size: number; hash: ReturnType<typeof createHash> } | undefined;
	const checksumFiles = new Map<string, string>();
	const names: string[] = [];
	let member: { name: string; role: 'database' | 'checksum' | 'other'; text: string } | undefined;
	let failure: unknown;
	try {
		for await (const event of readTar(tar)) {
			if (event.type === 'file') {
				names.push(event.name);
				let role: 'database' | 'checksum' | 'other' = 'other';
				if (event.name.toLowerCase().endsWith(`.${extension}`)) {
					if (database) {
						throw new ArchiveError(
							'content',
							`it holds more than one .${extension} file (${database.name}, ${event.name})`,
						);
					}
					// Refused at its header, before a byte of it is handed on.
					if (event.size === 0)
						throw new ArchiveError('content', `its database file ${event.name} is empty`);
					if (archiveBytes > 0 && event.size > unpackedLimit(archiveBytes))
						throw tooLarge(
							`its database file ${event.name} states it unpacks`,
							event.size,
							archiveBytes,
						);
					database = { name: event.name, size: event.size, hash: createHash('sha256') };
					seen.name = baseName(event.name);
					role = 'database';
				} else if (event.name.endsWith('.sha256')) {
					if (event.size > 4096)
						throw new ArchiveError(
							'content',
							`its checksum file ${event.name} is not a checksum file`,
						);
					role = 'checksum';
				}
				member = { name: event.name, role, text: '' };
			} else if (event.type === 'data' && member) {
				if (member.role === 'database') {
					database!.hash.update(event.data);
					yield event.data;
				} else if (member.role === 'checksum') {
					member.text += new TextDecoder().decode(event.data, { stream: true });
				}
			} else if (event.type === 'fileEnd' && member) {
				if (member.role === 'checksum') checksumFiles.set(member.name, member.text);
				member = undefined;
			}
		}
	} catch (error) {
		failure = error;
	}
	if (failure instanceof TarError)
		throw new ArchiveError('tar', `its tar content is broken: ${failure.message}`);
	if (failure !== undefined) throw failure;

	if (!database) {
		throw new ArchiveError(
			'content',
			`it holds no .${extension} database file (it holds: ${names.join(', ') || 'nothing'})`,
		);
	}
	const checksumText = checksumFiles.get(`${database.name}.sha256`);
	if (checksumText === undefined) {
		throw new ArchiveError(
			'content',
			`it holds no checksum file ${database.name}.sha256 for its database file`,
		);
	}
	const expected = /^\s*([0-9a-fA-F]{64})\b/.exec(checksumText)?.[1]?.toLowerCase();
	if (!expected)
		throw new ArchiveError('content', `its checksum file ${database.name}.sha256 holds no SHA-256`);
	const actual = database.hash.digest('hex');
	if (actual !== expected) {
		throw new ArchiveError(
			'checksum',
			`the SHA-256 of ${database.name} is ${actual}, but ${database.name}.sha256 states ${expected}`,
		);
	}
	return {
		databaseFileName: baseName(database.name),
		databaseFileSize: database.size,
		sha256: actual,
	};
}

/** A promise's outcome as a value, so a failed read is handled where it happens. */
async function settle<T>(promise: Promise<T>): Promise<{ value: T } | { error: unknown }> {
	return await promise.then(
		(value) => ({ value }),
		(error: unknown) => ({ error }),
	);
}

/** A member's name without its folders, whichever separator the archive's maker used. */
const baseName = (path: string) => path.replace(/^.*[/\\]/, '');

function describe(error: unknown): string {
	const message = (error as Error)?.message ?? String(error);
	return message.length > 200 ? `${message.slice(0, 200)}...` : message;
}
