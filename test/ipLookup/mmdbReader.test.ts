import { readFileSync } from 'fs';
import path from 'path';
import { runInNewContext } from 'vm';

import { Reader, type Response } from 'mmdb-lib';

import { MmdbError } from '../../dist/nodes/shared/ipDatabases/mmdbDecoder';
import { MmdbReader } from '../../dist/nodes/shared/ipDatabases/mmdbReader';
import { parseIpAddress } from '../../dist/nodes/shared/values/ipAddress';
import { databaseFileOf } from '../sandbox/ipDatabases/archives';
import { DATABASES, mmdbRecord, rowsOf } from '../sandbox/ipDatabases/records';
import {
	addressText,
	aroundHits,
	compareReaders,
	edgesOf,
	random32,
	randomIpv4,
	randomIpv6,
	type Comparison,
} from './mmdbCompare';
import {
	bytes,
	float,
	int32,
	uint128,
	uint16,
	uint32,
	uint64,
	writeTestMmdb,
	type MmdbValue,
	type TestNetwork,
} from './mmdbTestWriter';

/**
 * The package's MMDB reader against mmdb-lib (the established reader, a devDependency) on a
 * real-world database nobody here wrote, on the sandbox's builds, and on files written with every
 * record size and data type. Same misses, same records (deep equal), same prefix lengths.
 */

const ROOT = path.join(__dirname, '..', '..');
const REAL_WORLD = path.join(ROOT, 'node_modules/@ip-location-db/geo-whois-asn-country-mmdb');

const open = (file: Uint8Array) => ({
	ours: new MmdbReader(file),
	theirs: new Reader<Response>(Buffer.from(file.buffer, file.byteOffset, file.byteLength)),
});

function expectSame(result: Comparison) {
	expect(result.mismatches).toEqual([]);
	expect(result.compared).toBe(result.hits + result.misses);
}

function* repeat<T>(count: number, make: (index: number) => T): Generator<T> {
	for (let index = 0; index < count; index++) yield make(index);
}

describe('a real-world MMDB: @ip-location-db/geo-whois-asn-country-mmdb, against mmdb-lib', () => {
	const dual = readFileSync(path.join(REAL_WORLD, 'geo-whois-asn-country.mmdb'));

	test('reads the metadata as mmdb-lib does', () => {
		const { ours, theirs } = open(dual);
		expect(ours.metadata.node_count).toBe(theirs.metadata.nodeCount);
		expect(ours.metadata.record_size).toBe(theirs.metadata.recordSize);
		expect(ours.metadata.ip_version).toBe(6);
		expect(ours.metadata.database_type).toBe(theirs.metadata.databaseType);
		expect(new Date(Number(ours.metadata.build_epoch) * 1000)).toEqual(theirs.metadata.buildEpoch);
		expect(ours.metadata.languages).toEqual([]);
	});

	test('100,000 random IPv4 addresses: same records, misses and prefixes', () => {
		const { ours, theirs } = open(dual);
		const next = random32(8);
		const result = compareReaders(
			ours,
			theirs,
			repeat(100_000, () => randomIpv4(next)),
		);
		expectSame(result);
		// Both paths exercised: most public addresses are covered, private and reserved ones are not.
		expect(result.hits).toBeGreaterThan(50_000);
		expect(result.misses).toBeGreaterThan(5_000);
	});

	test('100,000 random IPv6 addresses: same records, misses and prefixes', () => {
		const { ours, theirs } = open(dual);
		const next = random32(6);
		const uniform = [...repeat(50_000, (index) => randomIpv6(next, index))];
		const result = compareReaders(ours, theirs, [
			...uniform,
			...aroundHits(theirs, uniform, 50_000, next),
		]);
		expectSame(result);
		expect(result.hits).toBeGreaterThan(20_000);
		expect(result.misses).toBeGreaterThan(20_000);
	});

	test('the same database as an IPv4-only tree and as an IPv6-only tree', () => {
		const v4 = open(readFileSync(path.join(REAL_WORLD, 'geo-whois-asn-country-ipv4.mmdb')));
		expect(v4.ours.metadata.ip_version).toBe(4);
		const next = random32(4);
		expectSame(
			compareReaders(
				v4.ours,
				v4.theirs,
				repeat(20_000, () => randomIpv4(next)),
			),
		);
		const v6 = open(readFileSync(path.join(REAL_WORLD, 'geo-whois-asn-country-ipv6.mmdb')));
		expectSame(
			compareReaders(
				v6.ours,
				v6.theirs,
				repeat(20_000, (index) => randomIpv6(next, index)),
			),
		);

		// In an IPv4 database an IPv4-mapped address answers for its IPv4 part; other IPv6 are not covered.
		const plain = v4.ours.lookupText('8.8.8.8')!;
		const mapped = v4.ours.lookupText('::ffff:8.8.8.8')!;
		expect(mapped.record).toEqual(plain.record);
		expect(mapped.prefixLength).toBe(96 + plain.prefixLength);
		expect(mapped.network).toBe(`::ffff:${plain.network.split('/')[0]}/${96 + plain.prefixLength}`);
		expect(v4.ours.lookupText('2001:4860::1')).toBeUndefined();
	});

	test('examples: an IPv4 network, an IPv6 network, a private address, not an address', () => {
		const { ours } = open(dual);
		expect(ours.lookupText('8.8.8.8')).toEqual({
			network: '8.8.0.0/15',
			prefixLength: 15,
			record: { country_code: 'US' },
		});
		expect(ours.lookupText('2001:4860:4860::8888')).toEqual({
			network: '2001:4860::/32',
			prefixLength: 32,
			record: { country_code: 'US' },
		});
		expect(ours.lookupText('10.1.2.3')).toBeUndefined();
		expect(() => ours.lookupText('8.8.8')).toThrow(MmdbError);
		expect(() => ours.lookupText('8.8.8')).toThrow('"8.8.8" is not an IPv4 or IPv6 address');
	});
});

describe("the sandbox's MMDB builds, against mmdb-lib", () => {
	for (const database of DATABASES) {
		for (const build of [1, 2]) {
			test(`${database} build ${build}: every network, at its edges and just outside`, () => {
				const { ours, theirs } = open(databaseFileOf(database, 'mmdb', build));
				const rows = rowsOf(database, build);
				const addresses = rows.flatMap((row) => edgesOf(row.network).map(addressText));
				const next = random32(build);
				addresses.push(
					...repeat(2000, () => randomIpv4(next)),
					...repeat(2000, (index) => randomIpv6(next, index)),
				);
				const result = compareReaders(ours, theirs, addresses);
				expectSame(result);
				expect(result.hits).toBeGreaterThanOrEqual(rows.length * 3);

				// A network with no more specific one inside answers with itself and its record.
				for (const row of rows) {
					const nested = rows.some(
						(other) =>
							other !== row &&
							other.network !== row.network &&
							contains(row.network, other.network),
					);
					if (nested) continue;
					for (const address of edgesOf(row.network).slice(0, 3)) {
						const match = ours.lookup(address)!;
						expect(match.network).toBe(row.network);
						expect(match.record).toEqual(mmdbRecord(database, row));
					}
				}
			});
		}
	}
});

function contains(outer: string, inner: string): boolean {
	const [outerText, outerLength] = outer.split('/');
	const [innerText, innerLength] = inner.split('/');
	const a = parseIpAddress(outerText)!;
	const b = parseIpAddress(innerText)!;
	if (a.length !== b.length || Number(innerLength) < Number(outerLength)) return false;
	for (let bit = 0; bit < Number(outerLength); bit++) {
		if (((a[bit >> 3] >> (7 - (bit & 7))) & 1) !== ((b[bit >> 3] >> (7 - (bit & 7))) & 1))
			return false;
	}
	return true;
}

describe('files with every record size and data type, against mmdb-lib', () => {
	const cached = Array.from({ length: 30 }, (_, index) => `cached-${index}`);

	function record(index: number): MmdbValue {
		return {
			name: `network ${index}`,
			unicode: 'Linköping, 東京, 🌍',
			empty: '',
			text29: 'x'.repeat(100),
			text30: 'y'.repeat(300),
			double: 3.25 + index,
			negative: -0.5,
			bytes: bytes(Uint8Array.from([0, 1, 2, 255, index & 255])),
			noBytes: bytes(new Uint8Array(0)),
			uint16: uint16(65535),
			uint16Small: uint16(index),
			uint32: uint32(4294967295),
			uint32Zero: uint32(0),
			int32: int32(-123456),
			int32Min: int32(-2147483648),
			int32Short: int32(70000),
			uint64: uint64(18446744073709551615n),
			uint64Small: uint64(BigInt(index)),
			uint128: uint128((1n << 128n) - 1n),
			uint128Mid: uint128(1n << 100n),
			yes: true,
			no: false,
			float: float(1.5),
			list: ['a', 'b', uint32(index), [true, { nested: 'x' }], []],
			emptyMap: {},
			// The same map and strings in every record: stored once, then pointers (in maps and arrays).
			shared: { continent: 'Europe', code: 'EU', codes: ['EU', 'EUR'] },
			fromCache: cached[index % cached.length],
			[cached[(index + 7) % cached.length]]: [
				cached[(index + 13) % cached.length],
				cached[(index + 23) % cached.length],
			],
		};
	}

	const ipv4Networks = [
		'1.2.3.0/24',
		'10.0.0.0/8',
		'10.1.0.0/16',
		'10.1.2.128/25',
		'192.168.1.7/32',
		'255.255.255.255/32',
		'0.0.0.0/32',
		'128.0.0.0/1',
	];
	const ipv6Networks = [
		'2001:db8::/32',
		'2001:db8:1::/48',
		'fe80::/10',
		'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff/128',
		'2a00::/12',
		'8000::/2',
	];

	for (const recordSize of [24, 28, 32] as const) {
		for (const ipVersion of [4, 6] as const) {
			test(`record size ${recordSize}, IPv${ipVersion} tree${ipVersion === 6 ? ' with the ::ffff:0:0/96 alias' : ''}`, () => {
				const networks: TestNetwork[] = [
					...ipv4Networks,
					...(ipVersion === 6 ? ipv6Networks : []),
				].map((network, index) => ({
					network,
					record: record(index),
				}));
				const written = writeTestMmdb(networks, {
					recordSize,
					ipVersion,
					aliasIpv4: ipVersion === 6,
					dataCache: cached,
					dataCacheFar: recordSize !== 24,
					endMarker: true,
				});
				// The file holds pointers of all four size classes, and (28, 32) record values past 2^24.
				expect(written.pointerSizes.every((count) => count > 0)).toBe(true);
				if (recordSize !== 24)
					expect(written.nodeCount + 16 + Math.min(...written.recordOffsets)).toBeGreaterThan(
						2 ** 24,
					);

				const { ours, theirs } = open(written.file);
				const addresses = networks.flatMap(({ network }) => edgesOf(network).map(addressText));
				if (ipVersion === 6) {
					// IPv4 written as IPv4-mapped IPv6 reaches the IPv4 subtree through the alias.
					addresses.push(
						...ipv4Networks.flatMap((network) =>
							edgesOf(network).map((edge) => `::ffff:${edge.join('.')}`),
						),
					);
				}
				const next = random32(recordSize + ipVersion);
				addresses.push(...repeat(1000, () => randomIpv4(next)));
				if (ipVersion === 6) addresses.push(...repeat(1000, (index) => randomIpv6(next, index)));
				const result = compareReaders(ours, theirs, addresses);
				expectSame(result);
				expect(result.hits).toBeGreaterThan(networks.length * 3);

				// The values, typed as documented (BigInt for uint64 and uint128, Uint8Array for bytes).
				const first = ours.lookupText('1.2.3.4')!;
				expect(first.network).toBe('1.2.3.0/24');
				const values = first.record as Record<string, unknown>;
				expect(values.uint64).toBe(18446744073709551615n);
				expect(values.uint64Small).toBe(0n);
				expect(values.uint128).toBe((1n << 128n) - 1n);
				expect(values.int32).toBe(-123456);
				expect(values.int32Min).toBe(-2147483648);
				expect(values.uint32).toBe(4294967295);
				expect(values.float).toBe(1.5);
				expect(values.bytes).toEqual(Uint8Array.from([0, 1, 2, 255, 0]));
				expect(Buffer.isBuffer(values.bytes)).toBe(false);
				expect(values.unicode).toBe('Linköping, 東京, 🌍');
				expect(values.list).toEqual(['a', 'b', 0, [true, { nested: 'x' }], []]);
				if (ipVersion === 6) {
					const mapped = ours.lookupText('::ffff:1.2.3.4')!;
					expect(mapped).toEqual({ ...first, network: '::ffff:1.2.3.0/120', prefixLength: 120 });
				}
			});
		}
	}

	test('an IPv6 tree whose ::/64 is one record: IPv4 addresses match 0.0.0.0/0 there, as in mmdb-lib', () => {
		const written = writeTestMmdb(
			[
				{ network: '::/64', record: { low: 'yes' } },
				{ network: '2001:db8::/32', record: { doc: 'yes' } },
			],
			{ recordSize: 24, ipVersion: 6 },
		);
		const { ours, theirs } = open(written.file);
		expectSame(
			compareReaders(ours, theirs, [
				'1.2.3.4',
				'::1',
				'::ffff:1.2.3.4',
				'2001:db8::1',
				'2001:db9::1',
			]),
		);
		expect(ours.lookupText('1.2.3.4')).toEqual({
			network: '0.0.0.0/0',
			prefixLength: 0,
			record: { low: 'yes' },
		});
	});

	test('a "__proto__" key is data, not the prototype', () => {
		const written = writeTestMmdb(
			[
				{
					network: '1.0.0.0/8',
					record: JSON.parse('{"__proto__": {"polluted": "yes"}, "a": "b"}') as MmdbValue,
				},
			],
			{
				recordSize: 24,
				ipVersion: 4,
			},
		);
		const record = new MmdbReader(written.file).lookupText('1.2.3.4')!.record as Record<
			string,
			unknown
		>;
		expect(Object.getPrototypeOf(record)).toBe(Object.prototype);
		expect(Object.keys(record)).toEqual(['__proto__', 'a']);
		expect((record as { polluted?: string }).polluted).toBeUndefined();
	});
});

describe('the file as bytes', () => {
	test('a Uint8Array from another realm (a vm context) is read; anything but bytes is an MmdbError', () => {
		const written = writeTestMmdb([{ network: '1.0.0.0/8', record: { a: 'b' } }], {
			recordSize: 24,
			ipVersion: 4,
		});
		const foreign = runInNewContext(`new Uint8Array(${written.file.length})`) as Uint8Array;
		foreign.set(written.file);
		expect(foreign instanceof Uint8Array).toBe(false);
		expect(new MmdbReader(foreign).lookupText('1.2.3.4')).toEqual({
			network: '1.0.0.0/8',
			prefixLength: 8,
			record: { a: 'b' },
		});
		for (const notBytes of ['a string', [1, 2, 3], new Uint16Array(8), undefined]) {
			expect(() => new MmdbReader(notBytes as unknown as Uint8Array)).toThrow(MmdbError);
		}
	});
});
