import type { DatabaseKind } from './databaseKinds';
import type { IpDatabase } from './lookupTypes';

/**
 * Parsed databases, kept across the items of a run and across runs of this n8n process while
 * the file's content is the same: keyed by the content's SHA-256 (the service builds the same file from the same data, byte for byte,
 * so the same checksum is the same build). At most two builds per database kind (for files of
 * another schema: per metadata database_type) stay (the
 * current one and the one before, for a run that still holds it); the least recently used goes
 * first, so a new build replaces the old one and memory stays bounded whatever the run count.
 * Files of other schemas are FOREIGN_BUILDS at most in all, whatever their database_type: a file
 * names its own, so a source that gives each download another would otherwise be kept for ever,
 * each file with its metadata and its reader's records (16 files of 60 KB, each within the
 * reader's bounds, filled a 256 MiB heap).
 */
const BUILDS_PER_KIND = 2;

/** Builds of files of other schemas kept, all their database_types together. */
export const FOREIGN_BUILDS = 4;

/** A file not yet known to be a database holds a slot too, until it is parsed. */
const MAX_PENDING = 4;

interface Entry {
	database: Promise<IpDatabase>;
	kind?: DatabaseKind;
	/** The metadata's database_type: files of another schema are grouped by it, two builds each too. */
	databaseType?: string;
	retainedBytes?: number;
	/** The file's size in bytes, when known: a file of a size no entry has cannot be cached (see parseUnlessCached). */
	fileBytes?: number;
	lastUsed: number;
}

const entries = new Map<string, Entry>();
let clock = 0;
let parses = 0;
/** Of those, the parses that hashed the file while parsing it (one read of the file, not two). */
let hashedWhileParsed = 0;

/**
 * The database of this content: the cached one, or `parse()`'s, started once even when several
 * items or runs ask at the same time. A failed parse is not kept (the next run tries again).
 */
export async function cachedDatabase(
	sha256: string,
	parse: () => Promise<IpDatabase>,
	fileBytes?: number,
): Promise<IpDatabase> {
	const known = entries.get(sha256);
	if (known) {
		known.lastUsed = ++clock;
		return await known.database;
	}
	parses++;
	const entry: Entry = { database: parse(), lastUsed: ++clock, fileBytes };
	entries.set(sha256, entry);
	entry.database.catch(() => {
		if (entries.get(sha256) === entry) entries.delete(sha256);
	});
	const database = await entry.database;
	entry.kind = database.kind;
	entry.databaseType = database.databaseType;
	entry.retainedBytes = database.retainedBytes;
	evict();
	return database;
}

/** Parses of files whose SHA-256 is computed while they are parsed, by the file's size. */
const unhashed = new Map<number, Promise<unknown>>();

/**
 * A file of `fileBytes` bytes whose SHA-256 is not given. When no cached database (parsed or being
 * parsed) has that size, its content cannot be in the cache: `parseHashing` reads the file once,
 * hashing it while it parses (n8n streams it once, not twice), and its database is cached under
 * that hash. Otherwise (the second run on a file, most often) `undefined`: the caller hashes the
 * file first and asks `cachedDatabase`, which finds the parse or starts one. Two runs on the same
 * new file at once: the second waits for the first's parse, then finds it by its hash.
 */
export async function parseUnlessCached(
	fileBytes: number,
	parseHashing: () => Promise<{ database: IpDatabase; sha256: string }>,
): Promise<IpDatabase | undefined> {
	const running = unhashed.get(fileBytes);
	if (running) {
		await running.catch(() => undefined);
		return undefined;
	}
	for (const entry of entries.values()) if (entry.fileBytes === fileBytes) return undefined;
	parses++;
	hashedWhileParsed++;
	const parsing = parseHashing();
	unhashed.set(fileBytes, parsing);
	let parsed: { database: IpDatabase; sha256: string };
	try {
		parsed = await parsing;
	} finally {
		unhashed.delete(fileBytes);
	}
	const { database, sha256 } = parsed;
	const known = entries.get(sha256);
	if (known) {
		known.lastUsed = ++clock;
		return await known.database;
	}
	entries.set(sha256, {
		database: Promise.resolve(database),
		kind: database.kind,
		databaseType: database.databaseType,
		retainedBytes: database.retainedBytes,
		fileBytes,
		lastUsed: ++clock,
	});
	evict();
	return database;
}

function evict(): void {
	const byKind = new Map<string, Array<[string, Entry]>>();
	for (const pair of entries) {
		const { kind, databaseType } = pair[1];
		const group = kind ?? (databaseType === undefined ? 'pending' : `type:${databaseType}`);
		byKind.set(group, [...(byKind.get(group) ?? []), pair]);
	}
	const newestFirst = (list: Array<[string, Entry]>) =>
		list.sort((a, b) => b[1].lastUsed - a[1].lastUsed);
	const foreign: Array<[string, Entry]> = [];
	for (const [group, list] of byKind) {
		const keep = group === 'pending' ? MAX_PENDING : BUILDS_PER_KIND;
		const kept = newestFirst(list).slice(0, keep);
		for (const [sha256] of list.slice(keep)) entries.delete(sha256);
		if (group.startsWith('type:')) foreign.push(...kept);
	}
	for (const [sha256] of newestFirst(foreign).slice(FOREIGN_BUILDS)) entries.delete(sha256);
}

/** For tests and the bench: how many parses began in this process, and what is cached now. */
export const cacheStats = () => ({
	parses,
	hashedWhileParsed,
	cached: [...entries.entries()].map(([sha256, entry]) => ({
		sha256,
		kind: entry.kind,
		databaseType: entry.databaseType,
		retainedBytes: entry.retainedBytes,
		fileBytes: entry.fileBytes,
	})),
	/** Bytes the parsed databases in the cache keep, together. */
	retainedBytes: [...entries.values()].reduce((sum, entry) => sum + (entry.retainedBytes ?? 0), 0),
});

/** For tests: forget every parsed database. */
export function clearDatabaseCache(): void {
	entries.clear();
}
