import type { DatabaseKind, StoredRecord } from './databaseKinds';

/** What a lookup finds: the record, and the network (CIDR) it answers for around the address. */
export interface Match {
	network: string;
	record: StoredRecord;
}

/**
 * What a lookup in a file of another schema finds (MaxMind's GeoLite2 and GeoIP2, DB-IP,
 * IPinfo ...): the record exactly as the file holds it (maps, arrays, strings, numbers, booleans;
 * BigInt for uint64 and uint128, Uint8Array for bytes, as the MMDB reader decodes them), and the
 * network as for Abstract's files. `jsonValue` (storedValues.ts) makes it an item's JSON.
 */
export interface ForeignMatch {
	network: string;
	record: unknown;
}

interface DatabaseCommon {
	/**
	 * The MMDB metadata's `database_type` as the file gives it ("svc-ip-asn", "GeoLite2-City");
	 * for a CSV, the kind its header names (a CSV has no metadata).
	 */
	databaseType: string;
	format: 'mmdb' | 'csv';
	/** Bytes the parsed form keeps (for the cache's bound and the README's figures). */
	retainedBytes: number;
}

/** A database of one of Abstract's three kinds: flat, string-valued records. */
export interface ContractDatabase extends DatabaseCommon {
	kind: DatabaseKind;
	/** An address of 4 (IPv4) or 16 (IPv6) bytes, as `parseIpAddress` gives it. */
	lookup(address: Uint8Array): Match | undefined;
}

/** Any other MaxMind DB file: read, never refused for its type; records as stored. */
export interface ForeignDatabase extends DatabaseCommon {
	kind: undefined;
	/** An address of 4 (IPv4) or 16 (IPv6) bytes, as `parseIpAddress` gives it. */
	lookup(address: Uint8Array): ForeignMatch | undefined;
}

/** A parsed database, MMDB or CSV, ready for lookups: `kind` tells Abstract's files from others. */
export type IpDatabase = ContractDatabase | ForeignDatabase;

/** A database file that cannot be used: says what is wrong and where. */
export class DatabaseFileError extends Error {
	constructor(message: string) {
		super(message);
		this.name = 'DatabaseFileError';
	}
}
