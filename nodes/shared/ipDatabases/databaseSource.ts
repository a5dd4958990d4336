import { createHash } from 'crypto';
import { BINARY_ENCODING } from 'n8n-workflow';
import type { IBinaryData, IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { cachedDatabase, parseUnlessCached } from './databaseCache';
import { CsvIndexBuilder } from './csvIndexBuilder';
import { hasMmdbMarker, openMmdbDatabase } from './mmdbDatabase';
import { DatabaseFileError, type IpDatabase } from './lookupTypes';
import { isTar, notADatabase } from './fileKinds';

/**
 * A database file given as n8n binary data, to its parsed form. In filesystem (and S3,
 * database) binary mode the bytes come from n8n's store: a CSV is indexed while it streams and
 * never held; an MMDB is searched in place, so it is held once, whole, in one buffer of its size.
 */
export interface DatabaseFile {
	binary: IBinaryData;
	/** The JSON of the item that carries it: the download node's has the file's SHA-256. */
	json?: IDataObject;
}

/**
 * Bytes per chunk of n8n's binary stream. Each chunk is a new buffer, garbage once read, which V8
 * frees at its own pace: in small chunks a streamed CSV raised the lookup's peak RSS by 0.14-0.23x
 * the file, in 64 KiB chunks by 0.24-0.28x, in 1 MiB by 0.29-0.47x (bench/ipLookupMemory.ts).
 */
const CHUNK = 16 * 1024;

/**
 * The file's bytes, streamed; `size` is the file's byte count when n8n knows it (undefined if
 * not); `whole` the file as one Buffer read by n8n's store (filesystem mode: one read into a
 * buffer of the file's size, no chunks to collect as garbage), for a file that is read whole.
 */
type Chunks = (() => AsyncIterable<Uint8Array>) & {
	size?: () => Promise<number | undefined>;
	whole?: () => Promise<Uint8Array>;
};

function chunksOf(ctx: IExecuteFunctions, binary: IBinaryData): Chunks {
	if (binary.id) {
		const id = binary.id;
		// The stream's own iterator, not a generator around it: one promise per chunk, not three.
		const chunks: Chunks = () => ({
			[Symbol.asyncIterator]() {
				let inner: AsyncIterator<Uint8Array> | undefined;
				return {
					async next() {
						inner ??= ((await ctx.helpers.getBinaryStream(id, CHUNK)) as AsyncIterable<Uint8Array>)[
							Symbol.asyncIterator
						]();
						return await inner.next();
					},
					async return() {
						await inner?.return?.();
						return { done: true, value: undefined };
					},
				};
			},
		});
		chunks.size = async () => await sizeOf(ctx, id, binary);
		// n8n-core takes the binary data object itself here (any item's, not only the input's).
		chunks.whole = async () => await ctx.helpers.getBinaryDataBuffer(0, binary);
		return chunks;
	}
	const bytes = Buffer.from(binary.data ?? '', BINARY_ENCODING);
	const chunks: Chunks = async function* () {
		yield bytes;
	};
	chunks.size = async () => bytes.length;
	return chunks;
}

/** The stored file's size: n8n's binary metadata, or the item's `bytes`; undefined when neither says. */
async function sizeOf(
	ctx: IExecuteFunctions,
	id: string,
	binary: IBinaryData,
): Promise<number | undefined> {
	try {
		const { fileSize } = await ctx.helpers.getBinaryMetadata(id);
		if (Number.isSafeInteger(fileSize) && fileSize > 0) return fileSize;
	} catch {
		// A store without metadata: the item may still say.
	}
	return typeof binary.bytes === 'number' && Number.isSafeInteger(binary.bytes) && binary.bytes > 0
		? binary.bytes
		: undefined;
}

/**
 * The content's SHA-256: the one the download node put beside the file (its JSON names the
 * same file), or one computed while the bytes stream through.
 */
function givenSha256(file: DatabaseFile): string | undefined {
	const given = file.json?.sha256;
	if (
		typeof given === 'string' &&
		/^[0-9a-f]{64}$/i.test(given) &&
		file.json?.fileName === file.binary.fileName
	) {
		return given.toLowerCase();
	}
	return undefined;
}

async function sha256Of(chunks: Chunks): Promise<string> {
	const hash = createHash('sha256');
	for await (const chunk of chunks()) hash.update(chunk);
	return hash.digest('hex');
}

/**
 * The parsed database of a file, from the cache when its content was parsed before. A file whose
 * hash is not given and whose size no cached database has is read once, hashed while it is
 * parsed (see parseUnlessCached); any other is hashed first, and parsed only if that is new.
 */
export async function databaseOf(ctx: IExecuteFunctions, file: DatabaseFile): Promise<IpDatabase> {
	const chunks = chunksOf(ctx, file.binary);
	const size = await chunks.size?.();
	const given = givenSha256(file);
	if (given)
		return await cachedDatabase(given, async () => await parseDatabase(chunks, size), size);
	if (size !== undefined) {
		const parsed = await parseUnlessCached(size, async () => {
			const hash = createHash('sha256');
			const database = await parseDatabase(chunks, size, (chunk) => hash.update(chunk));
			return { database, sha256: hash.digest('hex') };
		});
		if (parsed) return parsed;
	}
	const sha256 = await sha256Of(chunks);
	return await cachedDatabase(sha256, async () => await parseDatabase(chunks, size), size);
}

/** A CSV starts with its header, `network` first (after an optional byte-order mark or quote). */
/** Bytes of the file's start that tell a CSV from anything else. */
const HEAD = 64;

const looksLikeCsv = (head: Uint8Array) =>
	/^(\uFEFF)?"?network"?\s*[,\r\n]/.test(Buffer.from(head.subarray(0, 64)).toString('utf8'));

/**
 * The file's bytes, held once: with its size known, one Buffer of that size filled chunk by chunk
 * as the stream delivers them (no list of chunks joined into a second copy); otherwise the chunks,
 * joined at the end (a single chunk, the in-memory case, is used as it is).
 */
class FileBytes {
	private buffer: Buffer | undefined;

	private readonly held: Uint8Array[] = [];

	length = 0;

	constructor(private readonly size: number | undefined) {}

	push(chunk: Uint8Array): void {
		if (
			this.buffer === undefined &&
			this.size !== undefined &&
			this.held.length === 0 &&
			chunk.length < this.size
		) {
			this.buffer = Buffer.allocUnsafe(this.size);
		}
		if (this.buffer !== undefined && this.length + chunk.length <= this.buffer.length) {
			this.buffer.set(chunk, this.length);
		} else {
			if (this.buffer !== undefined) {
				// More bytes than n8n said the file has: keep what came, as chunks.
				this.held.push(this.buffer.subarray(0, this.length));
				this.buffer = undefined;
			}
			this.held.push(chunk);
		}
		this.length += chunk.length;
	}

	bytes(): Uint8Array {
		if (this.buffer !== undefined) return this.buffer.subarray(0, this.length);
		return this.held.length === 1 ? this.held[0] : Buffer.concat(this.held, this.length);
	}
}

/**
 * Format from content: the CSV header at the start, or the MMDB metadata marker at the end.
 * `observe` sees every chunk (the caller hashes them). `size`, when known, is the file's byte count: the MMDB is read into one buffer of that size,
 * and the CSV index reserves its arrays for the rows it holds.
 */
export async function parseDatabase(
	chunks: Chunks,
	size?: number,
	observe?: (chunk: Uint8Array) => void,
): Promise<IpDatabase> {
	let csv: CsvIndexBuilder | undefined;
	let file: FileBytes | undefined;
	// The first bytes decide (at least HEAD of them, unless the file is shorter): held until then.
	let head: Uint8Array[] | undefined = [];
	let headLength = 0;
	/** Whether the rest is read whole (an MMDB, or anything not a CSV, from n8n's store). */
	let readWhole = false;
	const decide = () => {
		const start = head!.length === 1 ? head![0] : Buffer.concat(head!, headLength);
		if (looksLikeCsv(start)) csv = new CsvIndexBuilder(size);
		else if (chunks.whole) readWhole = true;
		else file = new FileBytes(size);
		if (!readWhole) {
			for (const chunk of head!) {
				observe?.(chunk);
				(csv ?? file!).push(chunk);
			}
		}
		head = undefined;
	};
	for await (const chunk of chunks()) {
		if (chunk.length === 0) continue;
		if (head !== undefined) {
			head.push(chunk);
			headLength += chunk.length;
			if (headLength >= HEAD) decide();
			if (readWhole) break; // ends the stream: n8n reads the file whole below
			continue;
		}
		observe?.(chunk);
		(csv ?? file!).push(chunk);
	}
	if (head !== undefined && headLength > 0) decide();
	if (csv) return (csv as CsvIndexBuilder).end();
	const bytes = readWhole
		? await wholeFile(chunks, size, observe)
		: (file?.bytes() ?? new Uint8Array(0));
	if (bytes.length === 0)
		throw new DatabaseFileError(
			'The database file is empty (0 bytes): it is neither an MMDB nor a CSV database, was the download or the file read cut short?',
		);
	if (size !== undefined && bytes.length < size) {
		throw new DatabaseFileError(
			`The database file ends early: ${bytes.length.toLocaleString('en-US')} of the ${size.toLocaleString('en-US')} bytes n8n stored for it arrived: was the file cut short?`,
		);
	}
	// A tar holds the MMDB unaltered, marker and all: its header is the tell (see fileKinds.ts).
	if (isTar(bytes) || !hasMmdbMarker(bytes)) throw new DatabaseFileError(notADatabase(bytes));
	return openMmdbDatabase(bytes);
}

/** The file read whole by n8n's store; where that store cannot, streamed into one buffer of its size. */
async function wholeFile(
	chunks: Chunks,
	size: number | undefined,
	observe?: (chunk: Uint8Array) => void,
): Promise<Uint8Array> {
	let bytes: Uint8Array | undefined;
	try {
		bytes = await chunks.whole!();
	} catch {
		// An n8n whose getBinaryDataBuffer takes only a property name: the stream below.
	}
	if (bytes === undefined) {
		const file = new FileBytes(size);
		for await (const chunk of chunks()) {
			observe?.(chunk);
			file.push(chunk);
		}
		return file.bytes();
	}
	observe?.(bytes);
	return bytes;
}
