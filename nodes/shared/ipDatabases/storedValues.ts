import type { IDataObject } from 'n8n-workflow';

/**
 * A record of a foreign MMDB as an item's JSON. The reader gives values as the file holds them
 * (and as mmdb-lib does): BigInt for uint64 and uint128, Uint8Array for bytes, which JSON has no
 * form for. A BigInt within 2^53 becomes a number, a larger one its decimal text; bytes become
 * lowercase hex. Everything else (maps, arrays, strings, numbers, booleans) stays as stored.
 * A record that is not a map (a file may store a bare string or number) comes under `value`.
 */
export function jsonRecord(record: unknown): IDataObject {
	const value = jsonValue(record);
	if (value !== null && typeof value === 'object' && !Array.isArray(value))
		return value as IDataObject;
	return { value } as IDataObject;
}

export function jsonValue(value: unknown): unknown {
	if (typeof value === 'bigint')
		return value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : value.toString();
	if (value instanceof Uint8Array)
		return Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('hex');
	if (Array.isArray(value)) return value.map(jsonValue);
	if (value !== null && typeof value === 'object') {
		const out: Record<string, unknown> = {};
		for (const [key, entry] of Object.entries(value)) {
			if (key === '__proto__')
				Object.defineProperty(out, key, {
					value: jsonValue(entry),
					enumerable: true,
					writable: true,
					configurable: true,
				});
			else out[key] = jsonValue(entry);
		}
		return out;
	}
	return value;
}
