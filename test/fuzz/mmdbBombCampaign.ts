import fc from 'fast-check';

import {
	DECODED_BYTES,
	MmdbBoundError,
	OBJECT_BYTES,
	VALUE_BYTES,
} from '../../nodes/shared/ipDatabases/mmdbDecoder';
import { MmdbReader } from '../../nodes/shared/ipDatabases/mmdbReader';
import { control, oneRecordFile, pointer, text, uint16 } from '../hostileFiles/craftedMmdb';
import type { Campaign } from './campaign';

/**
 * The MMDB decoder's bound under pointer bombs: a record that is an array of pointers to one
 * shared value (a string, a byte array, an array of numbers, a map, or an array of pointers to
 * one of those), built to decode to between half and twice the bound. What it decodes to is
 * worked out from how it was built (the decoder's estimate, as mmdbDecoder.ts states it), not by
 * the decoder: the reader must answer exactly the records within the bound and refuse the others
 * with an MmdbBoundError. The damaged-file campaign (mmdbCampaign.ts) cannot tell: a few changed
 * bytes never take its files past the bound, and it passes with the bound removed.
 */

/** Data section bytes that start with a value (at offset 0), and what that value decodes to. */
interface Shared {
	data: number[];
	/** Where the value starts (after what it points to). */
	at: number;
	estimate: number;
}

const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);

const leaf: fc.Arbitrary<Shared> = fc.oneof(
	fc.integer({ min: 0, max: 20_000 }).map((size) => ({
		data: text('s'.repeat(size)),
		at: 0,
		estimate: VALUE_BYTES + size,
	})),
	fc.integer({ min: 0, max: 4_000 }).map((size) => ({
		data: [...control(4, size), ...new Array<number>(size).fill(7)],
		at: 0,
		estimate: VALUE_BYTES + OBJECT_BYTES.bytes + size,
	})),
	fc.integer({ min: 0, max: 300 }).map((count) => ({
		data: [...control(11, count), ...Array.from({ length: count }, () => uint16(9)).flat()],
		at: 0,
		estimate: VALUE_BYTES + OBJECT_BYTES.array + count * VALUE_BYTES,
	})),
	fc.integer({ min: 0, max: 200 }).map((count) => {
		const keys = Array.from({ length: count }, (_, index) => `k${index}`);
		return {
			data: [...control(7, count), ...keys.flatMap((key) => [...text(key), ...uint16(1)])],
			at: 0,
			estimate:
				VALUE_BYTES + OBJECT_BYTES.map + sum(keys.map((key) => 2 * VALUE_BYTES + key.length)),
		};
	}),
);

/** `copies` pointers to `target`, in an array written after it. */
function arrayOfPointers(target: Shared, copies: number): Shared {
	const data = [...target.data];
	const at = data.length;
	data.push(...control(11, copies));
	const to = pointer(target.at);
	for (let index = 0; index < copies; index++) data.push(...to);
	return {
		data,
		at,
		estimate: VALUE_BYTES + OBJECT_BYTES.array + copies * (VALUE_BYTES + target.estimate),
	};
}

/** A leaf, or an array of pointers to one: a pointer's target holding pointers in turn. */
const shared = fc.oneof(
	leaf,
	fc
		.tuple(leaf, fc.integer({ min: 1, max: 64 }))
		.map(([inner, copies]) => arrayOfPointers(inner, copies)),
);

export const mmdbBombCampaign: Campaign = {
	name: 'MMDB pointer bombs',
	holds:
		'a record that decodes to at most the bound is answered, one past it refused with an MmdbBoundError',
	testRuns: 300,
	property: () =>
		fc.property(shared, fc.double({ min: 0.5, max: 2, noNaN: true }), (target, scale) => {
			const copies = Math.max(
				1,
				Math.round((scale * DECODED_BYTES) / (VALUE_BYTES + target.estimate)),
			);
			const record = arrayOfPointers(target, copies);
			const reader = new MmdbReader(oneRecordFile(record.data, record.at));
			let answered: boolean;
			try {
				answered = reader.lookupText('1.2.3.4') !== undefined;
			} catch (error) {
				if (!(error instanceof MmdbBoundError)) throw error;
				answered = false;
			}
			if (answered !== record.estimate <= DECODED_BYTES)
				throw new Error(
					`a record of ${record.estimate} estimated bytes (${copies} pointers) was ${answered ? 'answered' : 'refused'}`,
				);
		}),
};
