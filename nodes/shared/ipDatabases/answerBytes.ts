import { OBJECT_BYTES, VALUE_BYTES } from './mmdbDecoder';

/**
 * The memory a JSON value holds (an answer made of records, as items carry it), in the MMDB
 * decoder's estimate (mmdbDecoder.ts): VALUE_BYTES a value, a map's or array's object beside,
 * a string's characters. What a memo of answers counts, so that it is bounded in bytes and not
 * only in answers: each answer may be up to the decoder's bound, and a count of 16,384 of them
 * is a GiB. Walked once per answer made (a memo's miss), never per row.
 */
export function answerBytes(value: unknown): number {
	if (typeof value === 'string') return VALUE_BYTES + value.length;
	if (value === null || typeof value !== 'object') return VALUE_BYTES;
	if (Array.isArray(value)) {
		let bytes = VALUE_BYTES + OBJECT_BYTES.array;
		for (const entry of value) bytes += answerBytes(entry);
		return bytes;
	}
	let bytes = VALUE_BYTES + OBJECT_BYTES.map;
	const map = value as Record<string, unknown>;
	for (const key in map) bytes += VALUE_BYTES + key.length + answerBytes(map[key]);
	return bytes;
}
