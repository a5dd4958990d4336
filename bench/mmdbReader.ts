import { existsSync, readFileSync } from 'fs';
import path from 'path';

import { Reader, type Response } from 'mmdb-lib';

import { databaseFileOf } from '../test/sandbox/ipDatabases/archives';
import { aroundHits, randomIpv4, randomIpv6 } from '../test/sandbox/ipDatabases/addresses';
import { random32 } from '../test/sandbox/random';
import { rowsOf } from '../test/sandbox/ipDatabases/records';

/**
 * The package's MMDB reader over mmdb-lib (the established reader): lookups per second, IPv4 and
 * IPv6, in this process, on the same real-world file (@ip-location-db/geo-whois-asn-country-mmdb,
 * 7.8 MB, both IP versions), the same addresses (seeded), no cache on either side (mmdb-lib's
 * default is no cache; the package's reader has none). Rounds alternate the two readers (and which
 * goes first), so both see the same machine load; the figure is the median round's ratio.
 *
 * The headline compares the text APIs (an address string in, the record out: what a node does with
 * an expression's value); "parsed bytes in" is the package's lookup of already-parsed addresses over
 * the same mmdb-lib figure. IPv6 addresses are half uniform (mostly misses), half near covered
 * networks (mostly hits). A last line uses larger records (the sandbox's geolocation build).
 */

interface PackageReader {
	lookupText(ip: string): unknown;
	lookup(address: Uint8Array): unknown;
}

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const COUNT = 100_000;

/** The folder of the built package the benchmark runs from (its dist/ is what it measures). */
export function packageRoot(): string {
	let dir = __dirname;
	while (!existsSync(path.join(dir, 'package.json')) || !existsSync(path.join(dir, 'dist'))) {
		const parent = path.dirname(dir);
		if (parent === dir) throw new Error('No built package (dist/) above the benchmark');
		dir = parent;
	}
	return dir;
}

/** Lookups per second of one pass; `hits` keeps the results alive so no pass is optimised away. */
function pass(
	lookup: (ip: string) => unknown,
	addresses: string[],
): { perSecond: number; hits: number } {
	let hits = 0;
	const start = process.hrtime.bigint();
	for (let index = 0; index < addresses.length; index++) if (lookup(addresses[index])) hits++;
	const nanoseconds = Number(process.hrtime.bigint() - start);
	return { perSecond: (addresses.length * 1e9) / nanoseconds, hits };
}

function passBytes(
	reader: PackageReader,
	addresses: Uint8Array[],
): { perSecond: number; hits: number } {
	let hits = 0;
	const start = process.hrtime.bigint();
	for (let index = 0; index < addresses.length; index++)
		if (reader.lookup(addresses[index])) hits++;
	const nanoseconds = Number(process.hrtime.bigint() - start);
	return { perSecond: (addresses.length * 1e9) / nanoseconds, hits };
}

const median = (values: number[]) =>
	[...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const rate = (perSecond: number) => `${Math.round(perSecond).toLocaleString('en-US')}/s`;

interface Figures {
	ratio: number;
	bytesRatio: number;
	ours: number;
	theirs: number;
	hits: number;
}

function compare(
	ours: PackageReader,
	theirs: Reader<Response>,
	addresses: string[],
	parse: (text: string) => Uint8Array,
): Figures {
	const parsed = addresses.map(parse);
	const oursText = (ip: string) => ours.lookupText(ip);
	const theirsText = (ip: string) => theirs.get(ip);
	// Warm-up: both readers' code optimised before any round counts.
	pass(oursText, addresses);
	pass(theirsText, addresses);
	passBytes(ours, parsed);
	const ratios: number[] = [];
	const bytesRatios: number[] = [];
	const oursRates: number[] = [];
	const theirsRates: number[] = [];
	let hits = [0, 0];
	for (let round = 0; round < ROUNDS; round++) {
		// Alternate which reader goes first, so neither always runs on a warmer or cooler machine.
		let mine: { perSecond: number; hits: number };
		let other: { perSecond: number; hits: number };
		if (round % 2 === 0) {
			mine = pass(oursText, addresses);
			other = pass(theirsText, addresses);
		} else {
			other = pass(theirsText, addresses);
			mine = pass(oursText, addresses);
		}
		const bytes = passBytes(ours, parsed);
		ratios.push(mine.perSecond / other.perSecond);
		bytesRatios.push(bytes.perSecond / other.perSecond);
		oursRates.push(mine.perSecond);
		theirsRates.push(other.perSecond);
		hits = [mine.hits, other.hits];
	}
	if (hits[0] !== hits[1]) throw new Error(`The readers found ${hits[0]} and ${hits[1]} addresses`);
	return {
		ratio: median(ratios),
		bytesRatio: median(bytesRatios),
		ours: median(oursRates),
		theirs: median(theirsRates),
		hits: hits[0],
	};
}

function print(label: string, figures: Figures) {
	console.log(
		`  ${label}: ${figures.ratio.toFixed(2)}x mmdb-lib's lookups per second ` +
			`(package ${rate(figures.ours)}, mmdb-lib ${rate(figures.theirs)}; ${figures.hits.toLocaleString('en-US')} of ${COUNT.toLocaleString('en-US')} covered); ` +
			`parsed bytes in: ${figures.bytesRatio.toFixed(2)}x`,
	);
}

export async function run(): Promise<void> {
	const root = packageRoot();
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	const { MmdbReader } = require(
		path.join(root, 'dist/nodes/shared/ipDatabases/mmdbReader.js'),
	) as {
		MmdbReader: new (file: Uint8Array) => PackageReader;
	};
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	const { parseIpAddress } = require(path.join(root, 'dist/nodes/shared/values/ipAddress.js')) as {
		parseIpAddress: (text: string) => Uint8Array;
	};
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	const version = (
		require(path.join(root, 'node_modules/mmdb-lib/package.json')) as { version: string }
	).version;
	const file = readFileSync(
		path.join(
			root,
			'node_modules/@ip-location-db/geo-whois-asn-country-mmdb/geo-whois-asn-country.mmdb',
		),
	);
	const ours = new MmdbReader(file);
	const theirs = new Reader<Response>(file, {}); // no `cache` option: mmdb-lib decodes every lookup afresh
	const next = random32(2026);

	console.log(
		`\nMMDB reader, package over mmdb-lib ${version}: geo-whois-asn-country.mmdb (${(file.length / 1e6).toFixed(1)} MB), ` +
			`${COUNT.toLocaleString('en-US')} seeded addresses a family, text in, record out, no cache on either side, median of ${ROUNDS} interleaved rounds`,
	);
	print(
		'IPv4',
		compare(
			ours,
			theirs,
			Array.from({ length: COUNT }, () => randomIpv4(next)),
			parseIpAddress,
		),
	);
	const uniform6 = Array.from({ length: COUNT }, (_, index) => randomIpv6(next, index));
	print(
		'IPv6',
		compare(
			ours,
			theirs,
			[
				...uniform6.slice(0, COUNT / 2),
				...aroundHits(theirs, uniform6, COUNT / 2, next, parseIpAddress),
			],
			parseIpAddress,
		),
	);

	// Larger records: the sandbox's geolocation build (16 string fields a record), addresses in its networks.
	const sandbox = databaseFileOf('ip-geolocation', 'mmdb', 1);
	const seeds = rowsOf('ip-geolocation', 1).map((row) =>
		row.network.split('/')[0].replace(/::$/, '::1'),
	);
	const sandboxOurs = new MmdbReader(sandbox);
	const sandboxTheirs = new Reader<Response>(sandbox, {});
	print(
		'16-field records (sandbox geolocation build, mixed families)',
		compare(
			sandboxOurs,
			sandboxTheirs,
			[...aroundHits(sandboxTheirs, seeds, COUNT, next, parseIpAddress)],
			parseIpAddress,
		),
	);
}

if (require.main === module) {
	void run().then(() => process.exit(0));
}
