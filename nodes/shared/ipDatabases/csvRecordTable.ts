import { parseCsv } from '../csv/csv';

import { recordFromCsv, type DatabaseKind, type StoredRecord } from './databaseKinds';

const ZERO = 0x30;

/**
 * The distinct records of a CSV, kept as the bytes the file wrote them in (a row's text after its
 * network) and decoded when a lookup finds one: a record costs its ~100 bytes of text, not the
 * ~600 of an object of 16 strings (a geolocation CSV of real data has a distinct record for
 * nearly every row, its coordinates and postal code). Rows that needed more than their bytes
 * (unescaping across chunks, a quoted network) are kept as objects.
 */
export class RecordTable {
	constructor(
		private readonly kind: DatabaseKind,
		private readonly columns: readonly string[],
		private readonly rawEntries: Int32Array,
		private readonly keys: { pool: Uint8Array; starts: Int32Array; lengths: Int32Array },
		private readonly materialized: Map<number, StoredRecord>,
	) {}

	get count(): number {
		return this.rawEntries.length;
	}

	get(id: number): StoredRecord {
		const entry = this.rawEntries[id];
		if (entry < 0) return this.materialized.get(id)!;
		const { pool, starts, lengths } = this.keys;
		// "0" for the network, then the row's own bytes from the comma after it: one CSV record.
		const line = Buffer.allocUnsafe(lengths[entry] + 1);
		line[0] = ZERO;
		line.set(pool.subarray(starts[entry], starts[entry] + lengths[entry]), 1);
		return recordFromCsv(this.kind, this.columns, parseCsv(line)[0].fields);
	}

	/** The bytes kept: the rows' text and the arrays, and a rough size of the objects (UTF-16 strings and their maps). */
	get retainedBytes(): number {
		let bytes =
			this.keys.pool.byteLength +
			this.keys.starts.byteLength +
			this.keys.lengths.byteLength +
			this.rawEntries.byteLength;
		for (const record of this.materialized.values()) {
			bytes += 64;
			for (const key in record) bytes += 16 + record[key].length * 2;
		}
		return bytes;
	}
}
