import fc from 'fast-check';
import { Reader, type Response } from 'mmdb-lib';

import { DECODED_BYTES, MmdbError, VALUE_BYTES } from '../../nodes/shared/ipDatabases/mmdbDecoder';
import { METADATA_MARKER, MmdbReader } from '../../nodes/shared/ipDatabases/mmdbReader';
import { addressText } from '../sandbox/ipDatabases/addresses';
import { databaseFileOf } from '../sandbox/ipDatabases/archives';
import { recordPointerBomb, sharedArrayRecords } from '../hostileFiles/craftedMmdb';
import {
	bytes,
	float,
	int32,
	uint128,
	uint16,
	uint32,
	uint64,
	writeTestMmdb,
} from '../ipLookup/mmdbTestWriter';
import { deepEqual, normalise } from '../ipLookup/mmdbValues';
import type { Campaign } from './campaign';

/**
 * The MMDB reader under damaged files: real builds and files of every data type and pointer size,
 * each with bytes changed, inserted or cut in its search tree, its data section or its metadata.
 * The reader must open the file and look addresses up, or give an MmdbError: no other exception,
 * no record past its bound; and where it answers, mmdb-lib (the established reader) reading the
 * same damaged file answers the same record, or fails.
 */

const every: Parameters<typeof writeTestMmdb>[0][number]['record'] = {
	name: 'every type',
	list: ['a', uint32(7), { deep: [true, false, float(2.5)] }, 'a'],
	numbers: {
		u16: uint16(9),
		u16wide: uint16(0xbeef),
		u32: uint32(0xdeadbeef),
		i32: int32(-4),
		i32short: int32(0x123456),
		u64: uint64(1n << 63n),
		u128: uint128(5n),
		double: 1.25,
	},
	raw: bytes(Uint8Array.from([1, 2, 3])),
	again: { deep: [true, false, float(2.5)] },
};

/** The files mutated: small ones, so that most changes land where a reader reads. */
function seedFiles(): Uint8Array[] {
	return [
		databaseFileOf('ip-asn', 'mmdb', 1),
		writeTestMmdb(
			[
				{ network: '1.0.0.0/8', record: every },
				{ network: '2.2.0.0/16', record: { name: 'two', list: ['a', 'a'] } },
				{ network: '128.0.0.0/2', record: { name: 'wide' } },
			],
			{ recordSize: 24, ipVersion: 4 },
		).file,
		writeTestMmdb(
			[
				{ network: '2001:db8::/32', record: every },
				{ network: '1.2.3.0/24', record: ['x', 'y', 'x'] },
			],
			{ recordSize: 28, ipVersion: 6, aliasIpv4: true, dataCache: ['cached', 'x'] },
		).file,
		writeTestMmdb([{ network: '0.0.0.0/1', record: every }], {
			recordSize: 32,
			ipVersion: 6,
			endMarker: true,
		}).file,
		// Near the bound: a change may push a record past it, or make it a bomb.
		recordPointerBomb(60, 16_000),
		sharedArrayRecords(30, 4),
	];
}

/** The three parts of a file, where changes are aimed. */
function regions(file: Uint8Array): Array<[number, number]> {
	const marker = Buffer.from(file).lastIndexOf(Buffer.from(METADATA_MARKER));
	const metadataStart = marker < 0 ? file.length : marker + METADATA_MARKER.length;
	// The tree's size is not known without the metadata: its first sixteenth stands for it.
	return [
		[0, Math.max(1, Math.floor(marker / 16))],
		[Math.floor(marker / 16), Math.max(marker, 1)],
		[metadataStart, file.length],
	];
}

const edit = fc.record({
	// Cutting a file loses its metadata: rarer than a changed byte.
	kind: fc.constantFrom('set', 'set', 'flip', 'flip', 'insert', 'delete', 'cut'),
	// Most changes in the data section, where the records are.
	region: fc.constantFrom(0, 1, 1, 1, 2),
	at: fc.double({ min: 0, max: 1, noNaN: true }),
	byte: fc.integer({ min: 0, max: 255 }),
});

type Edit = typeof edit extends fc.Arbitrary<infer T> ? T : never;

function mutate(file: Uint8Array, edits: Edit[]): Uint8Array {
	let out = Buffer.from(file);
	for (const { kind, region, at, byte } of edits) {
		const [from, to] = regions(out)[region];
		const position = Math.min(out.length, from + Math.floor(at * Math.max(0, to - from)));
		if (kind === 'set' && position < out.length) out[position] = byte;
		else if (kind === 'flip' && position < out.length) out[position] ^= 1 << (byte & 7);
		else if (kind === 'insert')
			out = Buffer.concat([out.subarray(0, position), Buffer.of(byte), out.subarray(position)]);
		else if (kind === 'delete')
			out = Buffer.concat([out.subarray(0, position), out.subarray(position + 1)]);
		else if (kind === 'cut') out = out.subarray(0, position);
	}
	return out;
}

/** The decoder's estimate of a value, made again from the value: the bound the reader keeps to. */
function estimate(value: unknown): number {
	if (typeof value === 'string') return VALUE_BYTES + Buffer.byteLength(value, 'utf8');
	if (value instanceof Uint8Array) return VALUE_BYTES + value.length;
	if (Array.isArray(value))
		return value.reduce((sum: number, entry) => sum + estimate(entry), VALUE_BYTES);
	if (value !== null && typeof value === 'object')
		return Object.entries(value).reduce(
			(sum, [key, entry]) => sum + estimate(key) + estimate(entry),
			VALUE_BYTES,
		);
	return VALUE_BYTES;
}

const address = fc.oneof(
	fc.uint8Array({ minLength: 4, maxLength: 4 }),
	fc.uint8Array({ minLength: 16, maxLength: 16 }),
	// Where the seed files have networks (twice as often as the random ones together).
	{
		weight: 4,
		arbitrary: fc.constantFrom(
			Uint8Array.of(1, 2, 3, 4),
			Uint8Array.of(2, 2, 9, 9),
			Uint8Array.of(130, 0, 0, 1),
			Uint8Array.of(0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1),
			Uint8Array.of(0, 0, 0, 9),
			Uint8Array.of(8, 8, 8, 8),
		),
	},
);

/** mmdb-lib's record for an address, or undefined when it fails (a damaged file may break it). */
function theirs(file: Uint8Array, bytesOfAddress: Uint8Array): { record: unknown } | undefined {
	try {
		const reader = new Reader<Response>(Buffer.from(file));
		return { record: reader.get(addressText(bytesOfAddress)) ?? undefined };
	} catch {
		return undefined;
	}
}

export const mmdbCampaign: Campaign = {
	name: 'MMDB reader',
	holds:
		"an MmdbError or a record within the bound, never another exception; where it answers, mmdb-lib's record or mmdb-lib's failure",
	testRuns: 4000,
	property: () => {
		const seeds = seedFiles();
		return fc.property(
			fc.integer({ min: 0, max: seeds.length - 1 }),
			fc.array(edit, { minLength: 1, maxLength: 4 }),
			fc.array(address, { minLength: 1, maxLength: 8 }),
			(seed, edits, addresses) => {
				const file = mutate(seeds[seed], edits);
				let reader: MmdbReader;
				try {
					reader = new MmdbReader(file);
				} catch (error) {
					if (error instanceof MmdbError) return;
					throw error;
				}
				for (const lookedUp of addresses) {
					let found: ReturnType<MmdbReader['lookup']>;
					try {
						found = reader.lookup(lookedUp);
					} catch (error) {
						if (error instanceof MmdbError) continue;
						throw error;
					}
					if (!found) continue;
					if (estimate(found.record) > DECODED_BYTES)
						throw new Error(`a record of ${estimate(found.record)} estimated bytes was answered`);
					const other = theirs(file, lookedUp);
					if (
						other &&
						other.record !== undefined &&
						!deepEqual(found.record, normalise(other.record))
					)
						throw new Error(`${addressText(lookedUp)}: mmdb-lib read another record`);
				}
			},
		);
	},
};
