import { existsSync, readFileSync } from 'fs';
import path from 'path';

import { deepCopy } from 'n8n-workflow';

import { addresses, csvChunks, mmdbFile } from './ipLookupData';
import { packageRoot } from './mmdbReader';
import { randomIpv4 } from '../test/sandbox/ipDatabases/addresses';
import { random32 } from '../test/sandbox/random';

/**
 * The readers of this build against those of another build of the package (BENCH_BASELINE: the
 * folder of its package.json, built with `npm run build`), side by side in this process: MMDB
 * lookups (GeoLite2-City: records of about 4 KB decoded; the sandbox-shaped geolocation build;
 * a 7.8 MB real-world country file), IP Database Lookup's rows as items (its memo of answers
 * and each row's item, over GeoLite2-City), the CSV parser over a 32 MB lead list and the CSV index
 * built from a 200,000-row geolocation CSV. Rounds alternate which build goes first; each figure
 * is the median round's ratio, this build's speed over the baseline's (above 1: faster). Without
 * BENCH_BASELINE it says so and measures nothing.
 */

interface Reader {
	lookupText(ip: string): unknown;
	lookup(address: Uint8Array): { network: string; record: unknown } | undefined;
}
type Row = Record<string, unknown>;
type LookUp = (address: Uint8Array, ipAddress: string) => Row;
interface Memo {
	answer(ipAddress: string): Row | undefined;
}
interface Builds {
	MmdbReader: new (file: Uint8Array) => Reader;
	CsvParser: new (
		onRow: (row: { fields: string[] }) => void,
		options?: { delimiter?: string },
	) => {
		push(chunk: Uint8Array): void;
		end(): void;
	};
	CsvIndexBuilder: new (expectedBytes?: number) => {
		push(chunk: Uint8Array): void;
		end(): unknown;
	};
	/** IP Database Lookup's rows as items, as the build makes them: each row's item JSON, from its address and its row. */
	rowItems: (lookUp: LookUp) => (ipAddress: string, csvRow: Row) => Row | undefined;
	jsonRecord: (record: unknown) => Record<string, unknown>;
}

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);

function load(root: string): Builds {
	const from = (file: string) =>
		// eslint-disable-next-line @typescript-eslint/no-require-imports
		require(path.join(root, 'dist/nodes/shared', file)) as Record<string, unknown>;
	const fileLookup = from('../AbstractIpLookup/fileLookup.js');
	const AddressMemo = from('../AbstractIpLookup/addressMemo.js').AddressMemo as new (
		lookUp: LookUp,
		capacity: { answers: number },
	) => Memo;
	const { rowItemsMemo, rowItemJson, ANSWERS_HELD } = fileLookup as {
		rowItemsMemo?: (lookUp: LookUp) => Memo;
		rowItemJson?: (memo: Memo, ipAddress: string, csvRow: Row) => Row | undefined;
		ANSWERS_HELD: number;
	};
	return {
		rowItems:
			rowItemsMemo && rowItemJson
				? (lookUp) => {
						const memo = rowItemsMemo(lookUp);
						return (ipAddress, csvRow) => rowItemJson(memo, ipAddress, csvRow);
					}
				: // Builds before rowItemJson: a memo of answers by count, each row's item a copy.
					(lookUp) => {
						const memo = new AddressMemo(lookUp, { answers: ANSWERS_HELD });
						return (ipAddress, csvRow) => {
							const found = memo.answer(ipAddress);
							return found && { ...deepCopy(found), ...csvRow };
						};
					},
		jsonRecord: from('ipDatabases/storedValues.js').jsonRecord as Builds['jsonRecord'],
		MmdbReader: from('ipDatabases/mmdbReader.js').MmdbReader as Builds['MmdbReader'],
		CsvParser: from('csv/csv.js').CsvParser as Builds['CsvParser'],
		CsvIndexBuilder: from('ipDatabases/csvIndexBuilder.js')
			.CsvIndexBuilder as Builds['CsvIndexBuilder'],
	};
}

const median = (values: number[]) =>
	[...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** Milliseconds `work` takes. */
function time(work: () => void): number {
	const started = performance.now();
	work();
	return performance.now() - started;
}

/**
 * This build's speed over the baseline's: the median of rounds that alternate which goes first,
 * after one warm-up of each; and both builds' median times.
 */
function compare(
	ours: () => void,
	theirs: () => void,
): { ratio: number; ours: number; theirs: number } {
	ours();
	theirs();
	const ratios: number[] = [];
	const oursMs: number[] = [];
	const theirsMs: number[] = [];
	for (let round = 0; round < ROUNDS; round++) {
		let mine: number;
		let other: number;
		if (round % 2 === 0) {
			mine = time(ours);
			other = time(theirs);
		} else {
			other = time(theirs);
			mine = time(ours);
		}
		ratios.push(other / mine);
		oursMs.push(mine);
		theirsMs.push(other);
	}
	return { ratio: median(ratios), ours: median(oursMs), theirs: median(theirsMs) };
}

function print(label: string, figures: { ratio: number; ours: number; theirs: number }) {
	console.log(
		`  ${label}: ${figures.ratio.toFixed(2)}x the baseline's speed (${figures.ours.toFixed(0)} ms against ${figures.theirs.toFixed(0)} ms, medians of ${ROUNDS} rounds)`,
	);
}

/** `passes` passes over the addresses: a round long enough to stand above the machine's noise. */
function lookups(reader: Reader, ips: string[], passes = 1): () => void {
	return () => {
		let hits = 0;
		for (let pass = 0; pass < passes; pass++)
			for (const ip of ips) if (reader.lookupText(ip)) hits++;
		if (hits < 0) throw new Error('unreachable');
	};
}

export async function run(): Promise<void> {
	const baseline = process.env.BENCH_BASELINE;
	if (!baseline) {
		console.log(
			'\nReaders against a baseline build: set BENCH_BASELINE to the folder of another built copy of the package',
		);
		return;
	}
	const root = packageRoot();
	const ours = load(root);
	const theirs = load(path.resolve(baseline));
	console.log(
		`\nReaders of this build (${root}) against the baseline's (${path.resolve(baseline)}), side by side`,
	);

	const next = random32(2026);
	const ipv4 = Array.from({ length: 100_000 }, () => randomIpv4(next));
	const city = path.join(root, 'node_modules/geolite2/dbs/GeoLite2-City.mmdb');
	if (existsSync(city)) {
		const file = readFileSync(city);
		print(
			'MMDB lookups, GeoLite2-City (100,000 random IPv4 addresses, records decoded)',
			compare(lookups(new ours.MmdbReader(file), ipv4), lookups(new theirs.MmdbReader(file), ipv4)),
		);
	}
	if (existsSync(city)) {
		// Rows as items: each row's item JSON, its answer from the memo, as lookUpFile makes it. A
		// log of 10,000 addresses fits a memo of 16,384 answers; one of 20,000 does not.
		const rows = (builds: Builds, log: string[]) => {
			const cityReader = new builds.MmdbReader(readFileSync(city));
			return () => {
				const rowItem = builds.rowItems((address, ipAddress) => {
					const found = cityReader.lookup(address);
					return found
						? { ip_address: ipAddress, network: found.network, ...builds.jsonRecord(found.record) }
						: { ip_address: ipAddress, found: false };
				});
				let items = 0;
				for (const [index, ip] of log.entries())
					if (rowItem(ip, { csvRow: { number: index + 2, columns: { ip } } })) items++;
				if (items < 0) throw new Error('unreachable');
			};
		};
		for (const distinct of [10_000, 20_000]) {
			const log = Array.from({ length: 100_000 }, (_, index) => ipv4[(index * 7919) % distinct]);
			print(
				`Rows as items, GeoLite2-City (a log of 100,000 lines over ${distinct.toLocaleString('en-US')} addresses: memo, copy)`,
				compare(rows(ours, log), rows(theirs, log)),
			);
		}
	}
	const country = readFileSync(
		path.join(
			root,
			'node_modules/@ip-location-db/geo-whois-asn-country-mmdb/geo-whois-asn-country.mmdb',
		),
	);
	print(
		'MMDB lookups, geo-whois-asn-country (100,000 random IPv4 addresses, 10 times)',
		compare(
			lookups(new ours.MmdbReader(country), ipv4, 10),
			lookups(new theirs.MmdbReader(country), ipv4, 10),
		),
	);
	const geolocation = mmdbFile(200_000);
	const inside = addresses(200_000, 100_000);
	print(
		'MMDB lookups, a 200,000-network geolocation build (100,000 covered addresses)',
		compare(
			lookups(new ours.MmdbReader(geolocation), inside),
			lookups(new theirs.MmdbReader(geolocation), inside),
		),
	);

	// A lead list of 32 MB, in the 64 KiB chunks of n8n's binary stream.
	const lead = (index: number) =>
		`"Lead ${index}",lead${index}@example.com,"Acme, Inc.",+4930${1_000_000 + index},Berlin\n`;
	let text = 'name,email,company,phone,city\n';
	for (let index = 0; text.length < 32 * 1024 * 1024; index++) text += lead(index);
	const leads = Buffer.from(text);
	const leadChunks: Buffer[] = [];
	for (let at = 0; at < leads.length; at += 64 * 1024)
		leadChunks.push(leads.subarray(at, at + 64 * 1024));
	const parse = (builds: Builds) => () => {
		let rows = 0;
		const parser = new builds.CsvParser(() => rows++, { delimiter: 'detect' });
		for (const chunk of leadChunks) parser.push(chunk);
		parser.end();
	};
	print('CSV parser, a 32 MB lead list in 64 KiB chunks', compare(parse(ours), parse(theirs)));

	const databaseChunks = [...csvChunks(200_000)];
	const size = databaseChunks.reduce((sum, chunk) => sum + chunk.length, 0);
	const index = (builds: Builds) => () => {
		const builder = new builds.CsvIndexBuilder(size);
		for (const chunk of databaseChunks) builder.push(chunk);
		builder.end();
	};
	print(
		`CSV index, a 200,000-row geolocation CSV (${(size / 1024 / 1024).toFixed(0)} MB)`,
		compare(index(ours), index(theirs)),
	);
	await Promise.resolve();
}

if (require.main === module) {
	void run().then(() => process.exit(0));
}
