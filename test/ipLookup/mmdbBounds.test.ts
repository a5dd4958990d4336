import {
	DECODED_BYTES,
	MmdbBoundError,
	VALUE_BYTES,
} from '../../dist/nodes/shared/ipDatabases/mmdbDecoder';
import { MmdbReader } from '../../dist/nodes/shared/ipDatabases/mmdbReader';
import {
	addressOfRecord,
	metadataPointerBomb,
	recordPointerBomb,
	sharedArrayRecords,
} from '../hostileFiles/craftedMmdb';
import { writeTestMmdb } from './mmdbTestWriter';

/**
 * The MMDB decoder's budget (mmdbDecoder.ts): a record, or the metadata, decodes to at most
 * DECODED_BYTES in its estimate (VALUE_BYTES a value, plus a string's bytes), a pointer's target
 * counted each time it is followed. At the bound a record is read; past it, refused with an
 * MmdbBoundError that says where and what the bound is, and refused again at once when met again.
 */

function errorOf(run: () => unknown): Error {
	try {
		run();
	} catch (error) {
		return error as Error;
	}
	throw new Error('nothing was thrown');
}

/** A file whose record for 0.0.0.0/1 is one string of `bytes` bytes. */
const stringRecord = (bytes: number) =>
	writeTestMmdb([{ network: '0.0.0.0/1', record: 'z'.repeat(bytes) }], {
		recordSize: 24,
		ipVersion: 4,
	}).file;

describe('the decoder budget', () => {
	test('a record of exactly the bound is read; one byte more is refused', () => {
		const most = DECODED_BYTES - VALUE_BYTES;
		const record = new MmdbReader(stringRecord(most)).lookupText('1.2.3.4')?.record;
		expect((record as string).length).toBe(most);
		const error = errorOf(() => new MmdbReader(stringRecord(most + 1)).lookupText('1.2.3.4'));
		expect(error).toBeInstanceOf(MmdbBoundError);
		expect(error.message).toBe(
			"MMDB file: the record at byte 0 of the data section decodes to more than 64 KiB (65,536 bytes, the bound; a real database's largest record makes about 6 KB), pointers counted each time they are followed: refused as a pointer bomb or a damaged file",
		);
	});

	test('a string whose size takes three size bytes (70,000 bytes) is read to its size and refused by the bound', () => {
		const error = errorOf(() => new MmdbReader(stringRecord(70_000)).lookupText('1.2.3.4'));
		expect(error).toBeInstanceOf(MmdbBoundError);
	});

	test('pointers count each time they are followed: 64 pointers to one 990-byte string are read, 64 to one 1 KiB string are not', () => {
		// 16 (the array) + 64 x (16 the pointer + 16 the string + its bytes): 67,600 for 1,024.
		const cost = (bytes: number) => VALUE_BYTES + 64 * (2 * VALUE_BYTES + bytes);
		expect(cost(990)).toBeLessThanOrEqual(DECODED_BYTES);
		const read = new MmdbReader(recordPointerBomb(64, 990)).lookupText('1.2.3.4');
		expect((read?.record as string[]).length).toBe(64);
		expect(cost(1024)).toBeGreaterThan(DECODED_BYTES);
		expect(
			errorOf(() => new MmdbReader(recordPointerBomb(64, 1024)).lookupText('1.2.3.4')),
		).toBeInstanceOf(MmdbBoundError);
	});

	test('the metadata has the same bound, checked when the file is opened', () => {
		expect(new MmdbReader(metadataPointerBomb(60, 900)).metadata.languages).toHaveLength(60);
		const error = errorOf(() => new MmdbReader(metadataPointerBomb(70, 900)));
		expect(error).toBeInstanceOf(MmdbBoundError);
		expect(error.message).toMatch(/^MMDB file: the metadata decodes to more than 64 KiB/);
	});

	test('an array or map too large for the bound is refused before it is allocated', () => {
		// 131,070 elements of 16 bytes each: past the bound by their count alone.
		const error = errorOf(() =>
			new MmdbReader(sharedArrayRecords(131_070)).lookupText(addressOfRecord(7)),
		);
		expect(error).toBeInstanceOf(MmdbBoundError);
		expect(error.message).toMatch(/^MMDB file: the record at byte 262,\d{3} of the data section/);
	});

	test('a refused record met again is refused at once, with the same error: it is not decoded again', () => {
		const reader = new MmdbReader(recordPointerBomb());
		const first = errorOf(() => reader.lookupText('1.2.3.4'));
		const again = errorOf(() => reader.lookupText('100.1.2.3'));
		expect(again).toBe(first);
	});

	test('records within the bound are kept and shared until the cache is full', () => {
		const reader = new MmdbReader(sharedArrayRecords(4_000));
		const first = reader.lookupText(addressOfRecord(3))?.record;
		expect(reader.lookupText(addressOfRecord(3))?.record).toBe(first);
		// 4,000 values of 16 bytes a record: 261 records fill the 16 MiB cache, which then starts anew.
		for (let index = 4; index < 300; index++) reader.lookupText(addressOfRecord(index));
		const later = reader.lookupText(addressOfRecord(3))?.record;
		expect(later).toEqual(first);
		expect(later).not.toBe(first);
	});
});
