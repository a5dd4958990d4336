import { createHash } from 'crypto';
import { BINARY_ENCODING } from 'n8n-workflow';
import type { IBinaryData, IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { cachedDatabase } from './databaseCache';
import { CsvIndexBuilder } from './csvIndex';
import { hasMmdbMarker, openMmdbDatabase } from './mmdbDatabase';
import { DatabaseFileError, type IpDatabase } from './lookupTypes';

/**
 * A database file given as n8n binary data, to its parsed form. In filesystem (and S3,
 * database) binary mode the bytes are streamed from n8n's store, never read whole unless the
 * format needs it (an MMDB is searched in place; a CSV is indexed while it streams).
 */
export interface DatabaseFile {
	binary: IBinaryData;
	/** The JSON of the item that carries it: the download node's has the file's SHA-256. */
	json?: IDataObject;
}

const CHUNK = 1024 * 1024;

type Chunks = () => AsyncIterable<Uint8Array>;

function chunksOf(ctx: IExecuteFunctions, binary: IBinaryData): Chunks {
	if (binary.id) {
		const id = binary.id;
		return async function* () {
			const stream = await ctx.helpers.getBinaryStream(id, CHUNK);
			for await (const chunk of stream as AsyncIterable<Uint8Array>) yield chunk;
		};
	}
	const bytes = Buffer.from(binary.data ?? '', BINARY_ENCODING);
	return async function* () {
		yield bytes;
	};
}

/**
 * The content's SHA-256: the one the download node put beside the file (its JSON names the
 * same file), or one computed while the bytes stream through.
 */
async function sha256Of(file: DatabaseFile, chunks: Chunks): Promise<string> {
	const given = file.json?.sha256;
	if (typeof given === 'string' && /^[0-9a-f]{64}$/i.test(given) && file.json?.fileName === file.binary.fileName) {
		return given.toLowerCase();
	}
	const hash = createHash('sha256');
	for await (const chunk of chunks()) hash.update(chunk);
	return hash.digest('hex');
}

/** The parsed database of a file, from the cache when its content was parsed before. */
export async function databaseOf(ctx: IExecuteFunctions, file: DatabaseFile): Promise<IpDatabase> {
	const chunks = chunksOf(ctx, file.binary);
	const sha256 = await sha256Of(file, chunks);
	return await cachedDatabase(sha256, async () => await parseDatabase(chunks));
}

/** A CSV starts with its header, `network` first (after an optional byte-order mark or quote). */
const looksLikeCsv = (head: Uint8Array) => /^(\uFEFF)?"?network"?\s*[,\r\n]/.test(Buffer.from(head.subarray(0, 64)).toString('utf8'));

/** Format from content: the CSV header at the start, or the MMDB metadata marker at the end. */
export async function parseDatabase(chunks: Chunks): Promise<IpDatabase> {
	let csv: CsvIndexBuilder | undefined;
	const held: Uint8Array[] = [];
	let size = 0;
	for await (const chunk of chunks()) {
		if (csv === undefined && size === 0 && held.length === 0) {
			if (looksLikeCsv(chunk)) csv = new CsvIndexBuilder();
		}
		if (csv) csv.push(chunk);
		else {
			held.push(chunk);
			size += chunk.length;
		}
	}
	if (csv) return csv.end();
	const file = held.length === 1 ? held[0] : Buffer.concat(held, size);
	if (file.length === 0) throw new DatabaseFileError('The database file is empty');
	if (!hasMmdbMarker(file)) {
		const start = Buffer.from(file.subarray(0, 40)).toString('utf8').replace(/[^\x20-\x7e]/g, '?');
		throw new DatabaseFileError(
			`The file is neither an MMDB database (no MaxMind metadata marker in its last 128 KiB) nor a database CSV (its first line does not start with the column "network"; it starts "${start}")`,
		);
	}
	return openMmdbDatabase(file);
}
