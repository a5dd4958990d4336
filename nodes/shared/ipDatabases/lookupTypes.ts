import type { DatabaseKind, StoredRecord } from './databaseKinds';

/** What a lookup finds: the record, and the network (CIDR) it answers for around the address. */
export interface Match {
	network: string;
	record: StoredRecord;
}

/** A parsed database, MMDB or CSV, ready for lookups. */
export interface IpDatabase {
	kind: DatabaseKind;
	format: 'mmdb' | 'csv';
	/** An address of 4 (IPv4) or 16 (IPv6) bytes, as `parseIpAddress` gives it. */
	lookup(address: Uint8Array): Match | undefined;
	/** Bytes the parsed form keeps (for the cache's bound and the README's figures). */
	retainedBytes: number;
}

/** A database file that cannot be used: says what is wrong and where. */
export class DatabaseFileError extends Error {
	constructor(message: string) {
		super(message);
		this.name = 'DatabaseFileError';
	}
}
