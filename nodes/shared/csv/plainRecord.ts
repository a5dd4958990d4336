/**
 * The scanner's fast path: a record that lies whole in the chunk and whose quoted fields hold
 * neither `""` nor a line break (nearly every record of a real export) is read in one pass, its
 * ranges pointing into the chunk itself. Anything else is left to the careful path, and so is a
 * record past the scanner's bounds (csvRecord.ts), which the careful path refuses.
 */

import { Byte } from './csvBytes';
import { growFields, MAX_FIELDS, MAX_RECORD_BYTES, type CsvRecord } from './csvRecord';

/** The record is not plain: the careful path reads it (nothing consumed). */
export const NOT_PLAIN = -1;

/**
 * Reads the record starting at `i` into `record` (its ranges, raw text and whether it is ASCII);
 * returns the index of its line end (a CR or an LF), or NOT_PLAIN.
 */
export function readPlainRecord(
	record: CsvRecord,
	bytes: Buffer,
	i: number,
	n: number,
	delimiter: number,
): number {
	// Every byte that ends an unquoted field is at most this: most bytes are past with one comparison.
	const highest = delimiter > Byte.Cr ? delimiter : Byte.Cr;
	let { starts, ends } = record;
	let count = 0;
	let high = 0;
	let position = i;
	let b = 0;
	for (;;) {
		let fieldStart = position;
		let fieldEnd: number;
		if (position < n && bytes[position] === Byte.Quote) {
			// A quoted field: up to the next quote, which must close it (not `""`, no line break inside).
			fieldStart = ++position;
			while (position < n) {
				b = bytes[position];
				// All three are below 0x2d: most bytes are past with one comparison.
				if (b <= Byte.Comma && (b === Byte.Quote || b === Byte.Lf || b === Byte.Cr)) break;
				high |= b;
				position++;
			}
			if (position + 1 >= n || b !== Byte.Quote) return NOT_PLAIN;
			fieldEnd = position++;
			b = bytes[position];
			if (b !== delimiter && b !== Byte.Lf && b !== Byte.Cr) return NOT_PLAIN; // `""` or text after the quote
		} else {
			while (position < n) {
				b = bytes[position];
				if (b <= highest && (b === delimiter || b === Byte.Lf || b === Byte.Cr)) break;
				high |= b;
				position++;
			}
			if (position >= n) return NOT_PLAIN; // the record goes on in the next chunk
			fieldEnd = position;
		}
		if (count === starts.length) {
			// Past the bound: the careful path refuses it, naming the row.
			if (count >= MAX_FIELDS) return NOT_PLAIN;
			({ starts, ends } = growFields(record));
		}
		starts[count] = fieldStart;
		ends[count] = fieldEnd;
		count++;
		if (b !== delimiter) break;
		position++;
	}
	// `position` is at the record's CR or LF. A record of many MB lies whole only in a chunk as
	// large (a file held in memory): past the bound, the careful path refuses it.
	if (position - i > MAX_RECORD_BYTES) return NOT_PLAIN;
	record.bytes = bytes;
	record.count = count;
	record.rawStart = i;
	record.rawEnd = position;
	record.ascii = high < 0x80;
	return position;
}
