import { Reader, type Response } from 'mmdb-lib';

import { MmdbReader } from '../../dist/nodes/shared/ipDatabases/mmdbReader';
import { parseIpAddress } from '../../dist/nodes/shared/values/ipAddress';
import { addressText, aroundHits as aroundHitsOf } from '../sandbox/ipDatabases/addresses';
import { deepEqual, normalise } from './mmdbValues';

/**
 * Helpers that compare the package's MMDB reader with mmdb-lib (the established reader), address
 * by address: the same miss, or the same record (deep equal) and the same prefix length, and a
 * network that is the address with the bits past that prefix cleared.
 */

export { random32 } from '../sandbox/random';
export { deepEqual, normalise };

export { addressText, randomIpv4, randomIpv6 } from '../sandbox/ipDatabases/addresses';

function masked(bytes: Uint8Array, prefix: number): Uint8Array {
	const out = Uint8Array.from(bytes);
	for (let index = 0; index < out.length; index++) {
		const kept = prefix - index * 8;
		if (kept <= 0) out[index] = 0;
		else if (kept < 8) out[index] &= 0xff << (8 - kept);
	}
	return out;
}

export interface Comparison {
	compared: number;
	hits: number;
	misses: number;
	mismatches: string[];
}

/** What the comparison asks of the package's side: the MMDB reader, or a database of the reader layer (see `asReader`). */
export type ComparedReader = Pick<MmdbReader, 'lookupText'>;

/** A database of the reader layer (openMmdbDatabase: foreign files, records as stored) as a reader to compare. */
export function asReader(database: {
	lookup(address: Uint8Array): { network: string; record: unknown } | undefined;
}): ComparedReader {
	return {
		lookupText(ip: string) {
			const found = database.lookup(parseIpAddress(ip)!);
			return (
				found && {
					network: found.network,
					record: found.record,
					prefixLength: Number(found.network.split('/')[1]),
				}
			);
		},
	};
}

export function compareReaders(
	ours: ComparedReader,
	theirs: Reader<Response>,
	addresses: Iterable<string>,
): Comparison {
	const result: Comparison = { compared: 0, hits: 0, misses: 0, mismatches: [] };
	const fail = (ip: string, why: string) => {
		if (result.mismatches.length < 20) result.mismatches.push(`${ip}: ${why}`);
	};
	for (const ip of addresses) {
		result.compared++;
		const [expected, expectedPrefix] = theirs.getWithPrefixLength(ip);
		const actual = ours.lookupText(ip);
		if (expected === null) {
			result.misses++;
			if (actual !== undefined) fail(ip, `mmdb-lib misses, the package found ${actual.network}`);
			continue;
		}
		result.hits++;
		if (actual === undefined) {
			fail(ip, `mmdb-lib found /${expectedPrefix}, the package missed`);
			continue;
		}
		if (actual.prefixLength !== expectedPrefix)
			fail(ip, `prefix ${actual.prefixLength}, mmdb-lib ${expectedPrefix}`);
		const [networkText, length] = actual.network.split('/');
		const address = parseIpAddress(ip)!;
		const networkBytes = parseIpAddress(networkText);
		const expectedNetwork = masked(address, actual.prefixLength);
		if (
			Number(length) !== actual.prefixLength ||
			!networkBytes ||
			Buffer.compare(Buffer.from(networkBytes), Buffer.from(expectedNetwork)) !== 0
		) {
			fail(
				ip,
				`network ${actual.network} is not ${addressText(expectedNetwork)}/${actual.prefixLength}`,
			);
		}
		if (!deepEqual(actual.record, normalise(expected))) {
			fail(ip, `record ${stringify(actual.record)}, mmdb-lib ${stringify(expected)}`);
		}
	}
	return result;
}

const stringify = (value: unknown) =>
	JSON.stringify(value, (_key, entry: unknown) =>
		typeof entry === 'bigint' ? `${entry}n` : entry instanceof Uint8Array ? [...entry] : entry,
	);

/** The first and last address of a CIDR block, and the addresses just outside it, as bytes. */
export function edgesOf(cidr: string): Uint8Array[] {
	const [text, length] = cidr.split('/');
	const bytes = parseIpAddress(text)!;
	const width = bytes.length * 8;
	const prefix = Number(length);
	let first = 0n;
	for (const byte of bytes) first = (first << 8n) | BigInt(byte);
	first &= ((1n << BigInt(width)) - 1n) ^ ((1n << BigInt(width - prefix)) - 1n);
	const last = first | ((1n << BigInt(width - prefix)) - 1n);
	const max = (1n << BigInt(width)) - 1n;
	const values = [first, last, first + (last - first) / 2n];
	if (first > 0n) values.push(first - 1n);
	if (last < max) values.push(last + 1n);
	return values.map((value) => {
		const out = new Uint8Array(bytes.length);
		for (let index = out.length - 1; index >= 0; index--) {
			out[index] = Number(value & 0xffn);
			value >>= 8n;
		}
		return out;
	});
}

/** Addresses near the networks that `seeds` hit in mmdb-lib (see the sandbox's addresses.ts). */
export function aroundHits(
	theirs: Reader<Response>,
	seeds: string[],
	count: number,
	next: () => number,
): Generator<string> {
	return aroundHitsOf(theirs, seeds, count, next, parseIpAddress);
}
