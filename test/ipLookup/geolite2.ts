import { readFileSync } from 'fs';
import path from 'path';

import { Reader, type Response } from 'mmdb-lib';

import { openMmdbDatabase } from '../../dist/nodes/shared/ipDatabases/mmdbDatabase';
import {
	asReader,
	aroundHits,
	compareReaders,
	random32,
	randomIpv4,
	randomIpv6,
	type Comparison,
} from './mmdbCompare';

/**
 * MaxMind's GeoLite2 files (devDependency `geolite2`: City, Country, ASN), read through the reader
 * layer (openMmdbDatabase: a database_type none of Abstract's three, so records as stored) and
 * compared with mmdb-lib, the established reader, address by address: 100,000 random IPv4 and
 * 100,000 IPv6 addresses (half uniform, half near covered networks), plus each IPv4 address's
 * IPv4-mapped, 6to4 and Teredo forms for a few thousand of them (MaxMind aliases those subtrees
 * to the IPv4 tree). Same records (deep equal), same misses, same prefix lengths and networks.
 */
export const GEOLITE2 = path.join(__dirname, '..', '..', 'node_modules/geolite2/dbs');

export const COUNT = 100_000;

function* repeat<T>(count: number, make: (index: number) => T): Generator<T> {
	for (let index = 0; index < count; index++) yield make(index);
}

/** The IPv6 forms MaxMind's files answer with an IPv4 record: ::ffff:a.b.c.d, 2002:AABB:CCDD::, 2001:0:AABB:CCDD::. */
export function aliasedForms(ipv4: string): string[] {
	const [a, b, c, d] = ipv4.split('.').map(Number);
	const high = ((a << 8) | b).toString(16);
	const low = ((c << 8) | d).toString(16);
	return [`::ffff:${ipv4}`, `2002:${high}:${low}::1`, `2001:0:${high}:${low}:8000:63bf:3fff:fdd2`];
}

export interface GeoLite2Run {
	databaseType: string;
	kind: unknown;
	ipv4: Comparison;
	ipv6: Comparison;
	aliased: Comparison;
}

/** One file compared with mmdb-lib (6-18 s a file): what geolite2.test.ts holds against its expectations. */
export function compareGeoLite2(fileName: string, seed: number): GeoLite2Run {
	const file = readFileSync(path.join(GEOLITE2, fileName));
	const database = openMmdbDatabase(file);
	const ours = asReader(database);
	const theirs = new Reader<Response>(file);
	const next = random32(seed);
	const ipv4 = compareReaders(
		ours,
		theirs,
		repeat(COUNT, () => randomIpv4(next)),
	);
	const uniform = [...repeat(COUNT / 2, (index) => randomIpv6(next, index))];
	const ipv6 = compareReaders(ours, theirs, [
		...uniform,
		...aroundHits(theirs, uniform, COUNT / 2, next),
	]);
	const aliased = compareReaders(
		ours,
		theirs,
		[...repeat(3000, () => randomIpv4(next))].flatMap(aliasedForms),
	);
	return { databaseType: database.databaseType, kind: database.kind, ipv4, ipv6, aliased };
}

export const FAMILIES = ['ipv4', 'ipv6', 'aliased'] as const;
