import { MmdbError } from '../../dist/nodes/shared/ipDatabases/mmdbDecoder';
import { MmdbReader } from '../../dist/nodes/shared/ipDatabases/mmdbReader';
import { parseIpAddress } from '../../dist/nodes/shared/values/ipAddress';
import { databaseFileOf } from '../sandbox/ipDatabases/archives';
import { edgesOf, random32 } from './mmdbCompare';
import {
	bytes,
	float,
	int32,
	uint128,
	uint16,
	uint32,
	uint64,
	METADATA_MARKER,
	writeTestMmdb,
	type MmdbValue,
	type TestWriterOptions,
} from './mmdbTestWriter';

/**
 * Damaged MMDB files: each gives an MmdbError whose message names the problem, never another
 * exception or a hang. Every test here runs under a jest timeout of its own (the third argument),
 * so a hang fails the test instead of stalling the suite; nothing asserts on elapsed time.
 */

const TIMEOUT = 30_000;

/** The error a function throws; fails the test if it returns or throws anything but an MmdbError. */
function mmdbErrorOf(run: () => unknown): MmdbError {
	try {
		run();
	} catch (error) {
		if (error instanceof MmdbError) return error;
		throw new Error(`Expected an MmdbError, got ${String(error)}`);
	}
	throw new Error('Expected an MmdbError, nothing was thrown');
}

const sample: MmdbValue = {
	name: 'sample',
	list: ['a', uint32(7), { deep: [true, false, float(2.5)] }],
	numbers: {
		u16: uint16(9),
		i32: int32(-4),
		u64: uint64(1n << 63n),
		u128: uint128(5n),
		double: 1.25,
	},
	raw: bytes(Uint8Array.from([1, 2, 3])),
};

function smallFile(options: Partial<TestWriterOptions> = {}) {
	return writeTestMmdb(
		[
			{ network: '1.0.0.0/8', record: sample },
			{ network: '2.2.0.0/16', record: { name: 'two', list: ['a'] } },
			{ network: '128.0.0.0/2', record: { name: 'wide' } },
		],
		{ recordSize: 24, ipVersion: 4, ...options },
	);
}

/** A file whose one network (0.0.0.0/1) has these raw bytes as its record, at data offset 0. */
function fileWithRecordBytes(raw: number[], size = 64) {
	const written = writeTestMmdb([{ network: '0.0.0.0/1', record: bytes(new Uint8Array(size)) }], {
		recordSize: 24,
		ipVersion: 4,
	});
	expect(written.recordOffsets[0]).toBe(0);
	written.file.set(raw, written.dataStart);
	return written.file;
}

function setRecord(file: Uint8Array, node: number, side: 0 | 1, value: number) {
	const at = node * 6 + side * 3;
	file[at] = value >> 16;
	file[at + 1] = (value >> 8) & 0xff;
	file[at + 2] = value & 0xff;
}

describe('damaged files: a clear MmdbError', () => {
	test(
		'no metadata marker',
		() => {
			expect(mmdbErrorOf(() => new MmdbReader(new Uint8Array(4096))).message).toMatch(
				/no metadata marker/,
			);
			expect(mmdbErrorOf(() => new MmdbReader(new Uint8Array(0))).message).toMatch(
				/no metadata marker/,
			);
			const file = smallFile().file;
			const marker = Buffer.from(file).lastIndexOf(Buffer.from(METADATA_MARKER));
			file[marker + 5] ^= 0x20; // 'MaxMind' becomes 'Maxmind'
			expect(mmdbErrorOf(() => new MmdbReader(file)).message).toMatch(/no metadata marker/);
		},
		TIMEOUT,
	);

	test(
		'truncated at every byte: the metadata is cut or lost',
		() => {
			const file = smallFile().file;
			const messages = new Set<string>();
			for (let length = 0; length < file.length; length++) {
				const message = mmdbErrorOf(() => new MmdbReader(file.subarray(0, length))).message;
				expect(message).toMatch(/no metadata marker|past the end|the metadata has no/);
				messages.add(message.replace(/\d+/g, 'N'));
			}
			expect(messages.size).toBeGreaterThan(2);
		},
		TIMEOUT,
	);

	test(
		'a truncated data section with the metadata kept: lookups past the cut fail, the others answer',
		() => {
			const written = smallFile();
			const marker = Buffer.from(written.file).lastIndexOf(Buffer.from(METADATA_MARKER));
			const dataSize = marker - written.dataStart;
			const addresses = ['1.2.3.4', '2.2.2.2', '130.0.0.1'].map((ip) => parseIpAddress(ip)!);
			let errors = 0;
			let answers = 0;
			for (let keep = 0; keep < dataSize; keep++) {
				const file = Buffer.concat([
					written.file.subarray(0, written.dataStart + keep),
					written.file.subarray(marker),
				]);
				const reader = new MmdbReader(file);
				for (const address of addresses) {
					try {
						reader.lookup(address);
						answers++;
					} catch (error) {
						expect(error).toBeInstanceOf(MmdbError);
						expect((error as Error).message).toMatch(
							/past the end of the data section|points to byte \d+ of a data section of \d+ bytes/,
						);
						errors++;
					}
				}
			}
			expect(errors).toBeGreaterThan(0);
			expect(answers).toBeGreaterThan(0);
		},
		TIMEOUT,
	);

	test(
		'the search tree points outside the data section, into the separator, or back into itself',
		() => {
			const written = smallFile();
			const marker = Buffer.from(written.file).lastIndexOf(Buffer.from(METADATA_MARKER));
			const dataSize = marker - written.dataStart;
			const lookup = (file: Uint8Array) => new MmdbReader(file).lookupText('1.2.3.4');

			let file = Uint8Array.from(written.file);
			setRecord(file, 0, 0, written.nodeCount + 16 + dataSize + 100); // past the data, into the metadata
			expect(mmdbErrorOf(() => lookup(file)).message).toMatch(
				/search tree points to byte \d+ of a data section of \d+ bytes/,
			);

			file = Uint8Array.from(written.file);
			setRecord(file, 0, 0, 0xffffff);
			expect(mmdbErrorOf(() => lookup(file)).message).toMatch(/search tree points to byte/);

			file = Uint8Array.from(written.file);
			setRecord(file, 0, 0, written.nodeCount + 5);
			expect(mmdbErrorOf(() => lookup(file)).message).toMatch(/points into the 16-byte separator/);

			file = Uint8Array.from(written.file);
			setRecord(file, 0, 0, 0); // a loop back to the root, which 0.0.0.0 (all zero bits) follows to the end
			expect(mmdbErrorOf(() => new MmdbReader(file).lookupText('0.0.0.0')).message).toMatch(
				/search tree is deeper than 32 bits/,
			);
		},
		TIMEOUT,
	);

	test(
		'the tree points at an end marker or a data cache container, which are not values',
		() => {
			const written = smallFile({ endMarker: true });
			const marker = Buffer.from(written.file).lastIndexOf(Buffer.from(METADATA_MARKER));
			const file = Uint8Array.from(written.file);
			setRecord(file, 0, 0, written.nodeCount + 16 + (marker - written.dataStart) - 2); // the end marker's two bytes
			expect(mmdbErrorOf(() => new MmdbReader(file).lookupText('1.2.3.4')).message).toMatch(
				/an end marker \(type 13\) where a value must be/,
			);

			const container = fileWithRecordBytes([0x01, 12 - 7]);
			expect(mmdbErrorOf(() => new MmdbReader(container).lookupText('1.2.3.4')).message).toMatch(
				/a data cache container \(type 12\)/,
			);
		},
		TIMEOUT,
	);

	test.each([
		['an unknown extended type', [0x00, 0xf0], /extended type 247 is not a MaxMind DB type/],
		[
			'extended type 0 (would be type 7 again)',
			[0x00, 0x00],
			/extended type 7 is not a MaxMind DB type/,
		],
		[
			'a map whose size runs past the end',
			[0xff, 0xff, 0xff, 0xff],
			/a map of \d+ entries runs past the end of the data section/,
		],
		[
			'an array whose size runs past the end',
			[0x1f, 0x04, 0xff, 0xff, 0xff],
			/an array of \d+ elements runs past the end/,
		],
		[
			'a string whose size runs past the end',
			[0x5f, 0x00, 0x10, 0x00],
			/a string of \d+ bytes runs past the end of the data section/,
		],
		['bytes whose size runs past the end', [0x9e, 0x01, 0x00], /\d+ bytes runs past the end/],
		['a uint32 of 5 bytes', [0xc5, 1, 2, 3, 4, 5], /a uint32 of 5 bytes/],
		['a uint128 of 17 bytes', [0x11, 0x03], /a uint128 of 17 bytes/],
		['a double of 4 bytes', [0x64, 0, 0, 0, 0], /a double of 4 bytes \(must be 8\)/],
		['a boolean of size 2', [0x02, 0x07], /a boolean of size 2/],
		[
			'a pointer past the end',
			[0x38, 0x7f, 0xff, 0xff, 0xff],
			/a pointer to \d+, past the end of the data section/,
		],
		[
			'a map key that is not a string',
			[0xe1, 0xc1, 0x05, 0x41, 0x61],
			/a map key that is not a string/,
		],
		['a size byte past the end', [0xe1, 0x41, 0x61, 0x5d], /past the end/],
	])(
		'a record with %s',
		(_name, raw, message) => {
			// Records sit at the end of a small data section here, so sizes can run past its end.
			const file = fileWithRecordBytes(raw as number[], raw.length + 2);
			const written = Uint8Array.from(file);
			expect(mmdbErrorOf(() => new MmdbReader(written).lookupText('1.2.3.4')).message).toMatch(
				message as RegExp,
			);
		},
		TIMEOUT,
	);

	test(
		'pointer loops: a pointer to itself, two pointers to each other, a map that points to itself',
		() => {
			const self = fileWithRecordBytes([0x20, 0x00]);
			expect(mmdbErrorOf(() => new MmdbReader(self).lookupText('1.2.3.4')).message).toMatch(
				/a pointer to a pointer/,
			);
			// Two pointers, each to the other.
			const pair = fileWithRecordBytes([0x20, 0x02, 0x20, 0x00]);
			expect(mmdbErrorOf(() => new MmdbReader(pair).lookupText('1.2.3.4')).message).toMatch(
				/a pointer to a pointer/,
			);
			// { a: <pointer to this map> }: legal pointers, endless nesting.
			const map = fileWithRecordBytes([0xe1, 0x41, 0x61, 0x20, 0x00]);
			expect(mmdbErrorOf(() => new MmdbReader(map).lookupText('1.2.3.4')).message).toMatch(
				/nest deeper than 512/,
			);
		},
		TIMEOUT,
	);

	test(
		'a pointer bomb: a small record that expands to billions of values',
		() => {
			// Four levels of maps, 64 keys each (a key: 3 bytes, a pointer: 2), every value of the first
			// three a pointer to the next level: 64^4 leaves from 1,300 bytes.
			const compact: number[] = [];
			const compactAt: number[] = [];
			for (let level = 0; level < 4; level++) {
				compactAt.push(level === 0 ? 0 : compact.length);
				compact.push(0xe0 | 29, 64 - 29);
				for (let key = 0; key < 64; key++) compact.push(0x42, 0x6b, 0x30 + key, 0, 0);
			}
			for (let level = 0; level < 4; level++) {
				for (let key = 0; key < 64; key++) {
					const at = compactAt[level] + 2 + key * 5 + 3;
					if (level < 3) {
						const target = compactAt[level + 1];
						compact[at] = 0x20 | (target >> 8);
						compact[at + 1] = target & 0xff;
					} else {
						compact[at] = 0xa0 | 1; // uint16 of one byte
						compact[at + 1] = key;
					}
				}
			}
			const file = fileWithRecordBytes(compact, compact.length + 8);
			expect(mmdbErrorOf(() => new MmdbReader(file).lookupText('1.2.3.4')).message).toMatch(
				/the record at byte 0 of the data section decodes to more than 64 KiB/,
			);
		},
		TIMEOUT,
	);

	test.each([
		['node_count missing', { node_count: undefined }, /the metadata has no "node_count"/],
		['record_size missing', { record_size: undefined }, /the metadata has no "record_size"/],
		['ip_version missing', { ip_version: undefined }, /the metadata has no "ip_version"/],
		[
			'database_type missing',
			{ database_type: undefined },
			/"database_type" is missing or not a string/,
		],
		['build_epoch missing', { build_epoch: undefined }, /the metadata has no "build_epoch"/],
		['record_size a string', { record_size: '24' }, /"record_size" is not an unsigned integer/],
		['node_count negative', { node_count: int32(-1) }, /"node_count" is not an unsigned integer/],
		[
			'record_size 20',
			{ record_size: uint16(20) },
			/record size 20 \(the format has 24, 28 and 32\)/,
		],
		['ip_version 5', { ip_version: uint16(5) }, /IP version 5 \(must be 4 or 6\)/],
		[
			'format version 3',
			{ binary_format_major_version: uint16(3) },
			/binary format major version 3/,
		],
		[
			'node_count larger than the file',
			{ node_count: uint32(10_000_000) },
			/node_count 10000000 at 24-bit records needs 60000016 bytes/,
		],
	])(
		'metadata: %s',
		(_name, metadata, message) => {
			const file = smallFile({ metadata: metadata as Record<string, MmdbValue | undefined> }).file;
			expect(mmdbErrorOf(() => new MmdbReader(file)).message).toMatch(message as RegExp);
		},
		TIMEOUT,
	);

	test(
		'metadata that is not a map, and metadata whose key was flipped',
		() => {
			const written = smallFile();
			const marker = Buffer.from(written.file).lastIndexOf(Buffer.from(METADATA_MARKER));
			const notAMap = Buffer.concat([
				written.file.subarray(0, marker),
				Buffer.from(METADATA_MARKER),
				Buffer.from([0x43, 0x61, 0x62, 0x63]),
			]);
			expect(mmdbErrorOf(() => new MmdbReader(notAMap)).message).toMatch(
				/the metadata is not a map/,
			);

			const flipped = Uint8Array.from(written.file);
			const key = Buffer.from(flipped).indexOf(Buffer.from('node_count'), marker);
			flipped[key] ^= 0x01; // 'node_count' becomes 'oode_count'
			expect(mmdbErrorOf(() => new MmdbReader(flipped)).message).toMatch(
				/the metadata has no "node_count"/,
			);
		},
		TIMEOUT,
	);
});

describe('fuzz: seeded random damage gives a result or an MmdbError, nothing else', () => {
	const bases = {
		'test file (IPv6, alias, every type)': writeTestMmdb(
			[
				{ network: '1.0.0.0/8', record: sample },
				{ network: '1.2.0.0/16', record: { name: 'nested', list: [sample] } },
				{ network: '2001:db8::/32', record: sample },
				{ network: '200.1.0.0/16', record: { name: 'other', flag: true } },
			],
			{ recordSize: 28, ipVersion: 6, aliasIpv4: true, endMarker: true },
		).file,
		'sandbox ip-geolocation build': Uint8Array.from(databaseFileOf('ip-geolocation', 'mmdb', 1)),
	};
	const addresses = [
		'1.0.0.0/8',
		'1.2.0.0/16',
		'2001:db8::/32',
		'200.1.0.0/16',
		'8.8.8.0/24',
		'2a02:26f0::/29',
		'0.0.0.0/1',
	]
		.flatMap(edgesOf)
		.concat(['::ffff:1.2.3.4', '::1', '10.0.0.1'].map((ip) => parseIpAddress(ip)!));

	for (const [name, base] of Object.entries(bases)) {
		test(`${name}: 3,000 corruptions (flipped bytes in the tree, data and metadata; truncations; splices)`, () => {
			const next = random32(base.length);
			const outcomes = { opened: 0, answered: 0, mmdbErrors: 0 };
			const others: string[] = [];
			for (let round = 0; round < 3000; round++) {
				const file = Uint8Array.from(base);
				let damaged: Uint8Array = file;
				const kind = round % 4;
				if (kind === 3) damaged = file.subarray(0, next() % file.length);
				else if (kind === 2) {
					// A run of random bytes somewhere.
					const at = next() % file.length;
					for (let index = at; index < Math.min(file.length, at + 1 + (next() % 16)); index++)
						file[index] = next() & 0xff;
				} else {
					for (let flips = 1 + (next() % 3); flips > 0; flips--)
						file[next() % file.length] ^= 1 << next() % 8;
				}
				try {
					const reader = new MmdbReader(damaged);
					outcomes.opened++;
					for (const address of addresses) {
						reader.lookup(address);
						outcomes.answered++;
					}
				} catch (error) {
					if (error instanceof MmdbError) outcomes.mmdbErrors++;
					else if (others.length < 10) others.push(`round ${round}: ${String(error)}`);
				}
			}
			expect(others).toEqual([]);
			expect(outcomes.opened).toBeGreaterThan(500);
			expect(outcomes.mmdbErrors).toBeGreaterThan(500);
		}, 60_000);
	}
});
