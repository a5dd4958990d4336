import { kindOfDatabaseType, type StoredRecord } from './databaseKinds';
import { DatabaseFileError, type ForeignMatch, type IpDatabase, type Match } from './lookupTypes';
import { MmdbBoundError, MmdbError } from './mmdbDecoder';
import { METADATA_MARKER, MmdbReader } from './mmdbReader';

/** The MMDB spec puts the metadata in the file's last 128 KiB. */
const METADATA_WINDOW = 128 * 1024;

/** Whether the bytes end like an MMDB file: the metadata marker within the last 128 KiB. */
export function hasMmdbMarker(file: Uint8Array): boolean {
	const from = Math.max(0, file.length - METADATA_WINDOW);
	for (let at = file.length - METADATA_MARKER.length; at >= from; at--) {
		let same = true;
		for (let index = 0; index < METADATA_MARKER.length && same; index++)
			same = file[at + index] === METADATA_MARKER[index];
		if (same) return true;
	}
	return false;
}

/**
 * An MMDB file opened for lookups. A file whose metadata's `database_type` names one of the
 * three Abstract kinds gives that kind's flat string records; any other MaxMind DB file (GeoLite2,
 * DB-IP, IPinfo ...) is read too, its records exactly as stored. The file's bytes are the parsed
 * form: nothing is decoded until a lookup asks for its record.
 */
export function openMmdbDatabase(file: Uint8Array): IpDatabase {
	const reader = attempt(
		() => new MmdbReader(file),
		'The MMDB file cannot be read',
		(message) =>
			// The metadata is the file's last part: a value that runs past it is a file cut inside it.
			/(runs|starts) past the end of the metadata/.test(message)
				? `The MMDB file ends early: ${file.length.toLocaleString('en-US')} bytes, inside its metadata (${message}): was the download cut short?`
				: undefined,
	);
	const databaseType = String(reader.metadata.database_type);
	const kind = kindOfDatabaseType(databaseType);
	const common = { databaseType, format: 'mmdb' as const, retainedBytes: file.byteLength };
	if (!kind) {
		return {
			...common,
			kind: undefined,
			lookup(address: Uint8Array): ForeignMatch | undefined {
				const found = attempt(() => reader.lookup(address), 'The MMDB file is damaged');
				return found && { network: found.network, record: found.record };
			},
		};
	}
	// The reader keeps its decoded records a while; each one's flat form is made once too.
	const flat = new WeakMap<object, StoredRecord>();
	return {
		...common,
		kind,
		lookup(address: Uint8Array): Match | undefined {
			const found = attempt(() => reader.lookup(address), 'The MMDB file is damaged');
			if (!found) return undefined;
			const decoded = found.record;
			let record = typeof decoded === 'object' && decoded !== null ? flat.get(decoded) : undefined;
			if (record === undefined) {
				record = storedRecord(decoded);
				flat.set(decoded as object, record);
			}
			return { network: found.network, record };
		},
	};
}

/**
 * The reader's result, or its error as a DatabaseFileError that says what the node was doing
 * (`explain` may give a message of its own for an error it recognises).
 */
function attempt<T>(
	work: () => T,
	what: string,
	explain?: (message: string) => string | undefined,
): T {
	let failure: Error | undefined;
	let result: T | undefined;
	try {
		result = work();
	} catch (error) {
		failure = error as Error;
	}
	if (failure) {
		const message =
			failure instanceof MmdbError ? failure.message : String(failure.message ?? failure);
		// A record over the decoder's bound is refused, whether the file is damaged or built so.
		if (failure instanceof MmdbBoundError)
			throw new DatabaseFileError(
				`The MMDB file cannot be used: ${message.replace(/^MMDB file: /, '')}`,
			);
		throw new DatabaseFileError(explain?.(message) ?? `${what}: ${message}`);
	}
	return result as T;
}

/** The record as the file holds it: a flat map of strings; anything else is kept as text. */
function storedRecord(value: unknown): StoredRecord {
	if (typeof value !== 'object' || value === null || Array.isArray(value)) {
		throw new DatabaseFileError(
			'The MMDB file holds a record that is not a map of fields (an Abstract IP database holds a flat, string-valued record per network)',
		);
	}
	const record: StoredRecord = {};
	for (const [key, field] of Object.entries(value as Record<string, unknown>)) {
		record[key] =
			typeof field === 'string'
				? field
				: typeof field === 'object'
					? JSON.stringify(field)
					: String(field);
	}
	return record;
}
