import { createHash } from 'crypto';

import { GzipInflater, InflateError } from './inflate';
import { readTar, shortName, TarError } from './tarReader';

/**
 * Reads a database archive through (the database file, its `.sha256` file, a README): gunzip (inflate.ts),
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
/** Member names an error lists; checksum files kept until the end (a database archive holds one). */
const LISTED_NAMES = 20;
const MAX_CHECKSUM_FILES = 16;

export const unpackedLimit = (archiveBytes: number) =>
	Math.max(UNPACKED_FLOOR, UNPACKED_PER_ARCHIVE_BYTE * archiveBytes);

function tooLarge(
	what: string,
	bytes: number,
	archiveBytes: number,
	archive = `the archive's ${mebibytes(archiveBytes)}`,
): ArchiveError {
	return new ArchiveError(
		'size',
		`${what} to ${mebibytes(bytes)}, more than ${UNPACKED_PER_ARCHIVE_BYTE} times ${archive} ` +
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
 * Decompresses a gzip stream (inflate.ts: the CRC and the length are checked) into views of one
 * reused buffer: each is valid until the next is asked for, so a consumer that keeps bytes
 * copies them. What it unpacks to is bounded by unpackedLimit of the bytes received so far, never
 * of a length the host states (a host can announce any Content-Length and send a 1 MB bomb): a
 * gzip bomb stops at the bound, not at its end. `checkCrc` false leaves out the gzip CRC-32 (see
 * GzipInflater).
 */
export async function* gunzip(
	compressed: AsyncIterable<Uint8Array>,
	checkCrc = true,
): AsyncGenerator<Uint8Array> {
	const inflater = new GzipInflater(checkCrc);
	let unpackedBytes = 0;
	function* decoded(): Generator<Uint8Array> {
		for (;;) {
			let view: Uint8Array | undefined;
			let failure: unknown;
			try {
				view = inflater.pull();
			} catch (error) {
				failure = error;
			}
			if (failure instanceof InflateError)
				throw new ArchiveError(
					'gzip',
					`its gzip data is broken, or it is not a gzip file (${failure.message})`,
				);
			if (failure !== undefined) throw failure;
			if (view === undefined) return;
			unpackedBytes += view.length;
			if (unpackedBytes > unpackedLimit(inflater.fed))
				throw tooLarge(
					'it unpacks',
					unpackedBytes,
					inflater.fed,
					`the ${mebibytes(inflater.fed)} of archive received so far`,
				);
			yield view;
		}
	}
	// A consumer that stops early (an error further on) stops the download too: for-await ends it.
	for await (const chunk of compressed) {
		inflater.push(chunk);
		yield* decoded();
	}
	inflater.finish();
	yield* decoded();
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
	// What an error lists of the members: a few names, a count (an archive may hold any number).
	const names: string[] = [];
	let members = 0;
	let member: { name: string; role: 'database' | 'checksum' | 'other'; text: string } | undefined;
	let failure: unknown;
	try {
		for await (const event of readTar(tar)) {
			// tar unpacks a folder in place of a file of its name: none may bear a database's or checksum's.
			if (
				event.type === 'folder' &&
				new RegExp(`\\.(${extension}|sha256)/*$`, 'i').test(event.name)
			) {
				throw new ArchiveError(
					'content',
					`it holds a folder named like its files (${shortName(event.name)}), which tar would unpack in place of the file`,
				);
			}
			if (event.type === 'other') {
				throw new ArchiveError(
					'content',
					`it holds ${event.kind} (${shortName(event.name)}), where a database archive holds files and folders only`,
				);
			}
			if (event.type === 'file') {
				if (++members <= LISTED_NAMES) names.push(shortName(event.name));
				let role: 'database' | 'checksum' | 'other' = 'other';
				if (event.name.toLowerCase().endsWith(`.${extension}`)) {
					if (database) {
						throw new ArchiveError(
							'content',
							`it holds more than one .${extension} file (${shortName(database.name)}, ${shortName(event.name)})`,
						);
					}
					// Refused at its header, before a byte of it is handed on.
					if (event.size === 0)
						throw new ArchiveError(
							'content',
							`its database file ${shortName(event.name)} is empty`,
						);
					if (archiveBytes > 0 && event.size > unpackedLimit(archiveBytes))
						throw tooLarge(
							`its database file ${shortName(event.name)} states it unpacks`,
							event.size,
							archiveBytes,
						);
					if (!usableFileName(baseName(event.name)))
						throw new ArchiveError(
							'content',
							`its database file's name is not a file name (${JSON.stringify(shortName(baseName(event.name)))}: over 255 bytes, or control characters)`,
						);
					database = { name: event.name, size: event.size, hash: createHash('sha256') };
					seen.name = baseName(event.name);
					role = 'database';
				} else if (event.name.endsWith('.sha256')) {
					if (event.size > 4096)
						throw new ArchiveError(
							'content',
							`its checksum file ${shortName(event.name)} is not a checksum file`,
						);
					// Each is kept until the end (the database file may come after it): a few at most.
					if (checksumFiles.size >= MAX_CHECKSUM_FILES && !checksumFiles.has(event.name))
						throw new ArchiveError(
							'content',
							`it holds more than ${MAX_CHECKSUM_FILES} .sha256 files: not a database archive`,
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
			`it holds no .${extension} database file (it holds: ${names.join(', ') || 'nothing'}${members > names.length ? ` and ${members - names.length} more` : ''})`,
		);
	}
	const checksumText = checksumFiles.get(`${database.name}.sha256`);
	const shown = shortName(database.name);
	if (checksumText === undefined) {
		throw new ArchiveError(
			'content',
			`it holds no checksum file ${shown}.sha256 for its database file`,
		);
	}
	const expected = /^\s*([0-9a-fA-F]{64})\b/.exec(checksumText)?.[1]?.toLowerCase();
	if (!expected)
		throw new ArchiveError('content', `its checksum file ${shown}.sha256 holds no SHA-256`);
	const actual = database.hash.digest('hex');
	if (actual !== expected) {
		throw new ArchiveError(
			'checksum',
			`the SHA-256 of ${shown} is ${actual}, but ${shown}.sha256 states ${expected}`,
		);
	}
	return {
		databaseFileName: baseName(database.name),
		databaseFileSize: database.size,
		sha256: actual,
	};
}

/** A member's name without its folders, whichever separator the archive's maker used, nor a drive (`C:`). */
const baseName = (path: string) => path.replace(/^.*[/\\]/, '').replace(/^[A-Za-z]:/, '');

/** A name n8n can hand on as a file's: at most 255 bytes (a file system's limit), no control characters. */
const usableFileName = (name: string) =>
	new TextEncoder().encode(name).length <= 255 && !/[\u0000-\u001f\u007f]/.test(name);

function describe(error: unknown): string {
	const message = (error as Error)?.message ?? String(error);
	return message.length > 200 ? `${message.slice(0, 200)}...` : message;
}
