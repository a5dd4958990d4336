import { parse as oracleParse } from 'csv-parse/sync';
import fc from 'fast-check';

import {
	AmbiguousDelimiterError,
	CsvError,
	CsvParser,
	SepLineError,
	type CsvRow,
} from '../../nodes/shared/csv/csv';
import { CsvIndexBuilder } from '../../nodes/shared/ipDatabases/csvIndexBuilder';
import { DatabaseFileError } from '../../nodes/shared/ipDatabases/lookupTypes';
import { parseIpAddress } from '../../nodes/shared/values/ipAddress';
import type { Campaign } from './campaign';

/**
 * The CSV scanner and the CSV IP index under generated files: text made of what CSV syntax is
 * made of (delimiters, quotes, line ends, a byte order mark, a `sep=` line, multi-byte and
 * invalid UTF-8), pushed in random chunks.
 */

/** What files are made of: mostly the bytes that steer the scanner, some text, some bytes that are not UTF-8. */
const PIECES = [
	',',
	';',
	'\t',
	'"',
	'""',
	'\n',
	'\r',
	'\r\n',
	'a',
	'7',
	' ',
	'é',
	'😀',
	'\ufffd',
	'sep=;\n',
	'\ufeff',
];
const INVALID_UTF8 = [0xff, 0xc3, 0x80, 0xed, 0xa0, 0x80];

const csvBytes = fc
	.array(
		fc.oneof(
			{ weight: 20, arbitrary: fc.constantFrom(...PIECES).map((piece) => Buffer.from(piece)) },
			{ weight: 1, arbitrary: fc.constantFrom(...INVALID_UTF8).map((byte) => Buffer.of(byte)) },
		),
		{ maxLength: 200 },
	)
	.map((pieces) => Buffer.concat(pieces));

/** Where to cut the file into chunks: fractions of its length. */
const cuts = fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 6 });

const chunksOf = (bytes: Buffer, fractions: number[]) => {
	const at = [...new Set(fractions.map((fraction) => Math.floor(fraction * bytes.length)))].sort(
		(a, b) => a - b,
	);
	const chunks: Buffer[] = [];
	let from = 0;
	for (const cut of [...at, bytes.length]) {
		// A copy, overwritten after its push: the reader must keep nothing of a chunk.
		chunks.push(Buffer.from(bytes.subarray(from, cut)));
		from = cut;
	}
	return chunks;
};

type Delimiter = ',' | ';' | '\t' | 'detect';

/** The rows, or the reader's error as its class and message; any other error is thrown. */
function read(chunks: Buffer[], delimiter: Delimiter): CsvRow[] | string {
	const rows: CsvRow[] = [];
	const parser = new CsvParser((row) => rows.push(row), { delimiter });
	try {
		for (const chunk of chunks) {
			parser.push(chunk);
			chunk.fill(0x58);
		}
		parser.end();
	} catch (error) {
		if (
			error instanceof CsvError ||
			error instanceof SepLineError ||
			error instanceof AmbiguousDelimiterError
		)
			return `${(error as Error).name}: ${(error as Error).message}`;
		throw error;
	}
	return rows;
}

export const csvScannerCampaign: Campaign = {
	name: 'CSV scanner',
	holds:
		"the same rows or the same CsvError whatever the chunking; csv-parse's cells wherever it reads the file; no other exception",
	testRuns: 25_000,
	property: () =>
		fc.property(
			csvBytes,
			cuts,
			fc.constantFrom<Delimiter>(',', ';', '\t', 'detect'),
			(bytes, fractions, delimiter) => {
				const whole = read([Buffer.from(bytes)], delimiter);
				const chunked = read(chunksOf(bytes, fractions), delimiter);
				if (JSON.stringify(chunked) !== JSON.stringify(whole))
					throw new Error(`chunked ${JSON.stringify(chunked)} whole ${JSON.stringify(whole)}`);
				if (typeof whole === 'string' || delimiter === 'detect') return;
				// csv-parse (the oracle) where it reads the file: it has no sep= line and no lone-CR
				// rule of a quoted cell's text, so those files are left to the chunking check.
				const text = bytes.toString('utf8');
				if (text.includes('sep=') || text.includes('\ufffd')) return;
				let expected: string[][];
				try {
					expected = oracleParse(text, {
						bom: true,
						delimiter,
						relax_quotes: true,
						relax_column_count: true,
						record_delimiter: ['\r\n', '\n', '\r'],
					}) as string[][];
				} catch {
					return;
				}
				const cells = whole.map((row) => row.fields);
				// csv-parse skips what this reader gives as a record of one empty cell (an empty line).
				const kept = cells.filter((row) => !(row.length === 1 && row[0] === ''));
				const expectedKept = expected.filter((row) => !(row.length === 1 && row[0] === ''));
				if (JSON.stringify(kept) !== JSON.stringify(expectedKept))
					throw new Error(`ours ${JSON.stringify(kept)} csv-parse ${JSON.stringify(expectedKept)}`);
			},
		),
};

/** A network as a CSV row writes it, and its bounds for the oracle. */
interface Row {
	version: 4 | 6;
	/** The address as a number (IPv4: 32 bits, IPv6: 128) and the prefix. */
	value: bigint;
	prefix: number;
	asn: string;
}

const v4Row = fc
	.record({
		value: fc.bigInt({ min: 0n, max: 2n ** 32n - 1n }),
		prefix: fc.integer({ min: 0, max: 32 }),
	})
	.map(({ value, prefix }) => ({ version: 4 as const, value, prefix }));
const v6Row = fc
	.record({
		// Near a few places, so that networks nest and overlap.
		value: fc.oneof(
			fc.bigInt({ min: 0n, max: 2n ** 128n - 1n }),
			fc.bigInt({ min: 0n, max: 2n ** 16n }).map((low) => (0x2001_0db8n << 96n) | low),
		),
		prefix: fc.integer({ min: 0, max: 128 }),
	})
	.map(({ value, prefix }) => ({ version: 6 as const, value, prefix }));
const nearV4Row = fc
	.record({ low: fc.integer({ min: 0, max: 0xffff }), prefix: fc.integer({ min: 8, max: 32 }) })
	.map(({ low, prefix }) => ({
		version: 4 as const,
		value: BigInt(((10 << 24) | low) >>> 0),
		prefix,
	}));

const width = (version: 4 | 6) => (version === 4 ? 32 : 128);
const masked = (value: bigint, prefix: number, bits: number) =>
	prefix === 0 ? 0n : (value >> BigInt(bits - prefix)) << BigInt(bits - prefix);

function text(version: 4 | 6, value: bigint): string {
	if (version === 4)
		return [24n, 16n, 8n, 0n].map((shift) => String((value >> shift) & 255n)).join('.');
	const groups: string[] = [];
	for (let group = 7; group >= 0; group--)
		groups.push(((value >> BigInt(group * 16)) & 0xffffn).toString(16));
	return groups.join(':');
}

function bytesOf(version: 4 | 6, value: bigint): Uint8Array {
	const length = version === 4 ? 4 : 16;
	const out = new Uint8Array(length);
	for (let index = 0; index < length; index++)
		out[index] = Number((value >> BigInt((length - 1 - index) * 8)) & 255n);
	return out;
}

/**
 * Where an IPv6 address holds an IPv4 one that the index answers it by (as the MMDB of the same
 * build does: csvIndex.ts), that IPv4 address; undefined for any other.
 */
function ipv4Within(value: bigint): bigint | undefined {
	const top16 = value >> 112n;
	if (top16 === 0x2002n) return (value >> 80n) & 0xffffffffn;
	if (value >> 96n === 0x2001_0000n) return (value >> 64n) & 0xffffffffn;
	const high96 = value >> 32n;
	if (high96 === 0n || high96 === 0xffffn) return value & 0xffffffffn;
	return undefined;
}

/** The row an address is answered by: the longest prefix covering it, of equal networks the last. */
function oracleRow(rows: Row[], version: 4 | 6, address: bigint): Row | undefined {
	let answer: Row | undefined;
	const bits = width(version);
	for (const row of rows) {
		if (row.version !== version) continue;
		if (masked(address, row.prefix, bits) !== masked(row.value, row.prefix, bits)) continue;
		if (answer === undefined || row.prefix >= answer.prefix) answer = row;
	}
	return answer;
}

export const csvIndexCampaign: Campaign = {
	name: 'CSV IP index',
	holds:
		'each address answered by the longest network covering it (of equal ones the last row), within the network it reports; rows in any chunking',
	testRuns: 6000,
	property: () =>
		fc.property(
			fc.array(fc.oneof(v4Row, nearV4Row, v6Row), { minLength: 1, maxLength: 40 }),
			fc.array(fc.oneof(v4Row, nearV4Row, v6Row), { maxLength: 40 }),
			cuts,
			(networks, probes, fractions) => {
				const rows: Row[] = networks.map((network, index) => ({ ...network, asn: String(index) }));
				const lines = rows.map(
					(row) =>
						`${text(row.version, row.value)}/${row.prefix},${row.asn},"AS ${row.asn}, Inc.",`,
				);
				const file = Buffer.from(
					['network,asn,autonomous_system_organization,asn_country', ...lines].join('\n') + '\n',
				);
				const builder = new CsvIndexBuilder();
				for (const chunk of chunksOf(file, fractions)) builder.push(chunk);
				const index = builder.end();
				// Probes: random addresses, and each network's first and last address.
				const addresses = [
					...probes.map((probe) => ({ version: probe.version, value: probe.value })),
					...rows.flatMap((row) => {
						const start = masked(row.value, row.prefix, width(row.version));
						const last = start | ((1n << BigInt(width(row.version) - row.prefix)) - 1n);
						return [
							{ version: row.version, value: start },
							{ version: row.version, value: last },
						];
					}),
				];
				for (const { version, value } of addresses) {
					const aliased = version === 6 ? ipv4Within(value) : undefined;
					const expected =
						aliased === undefined ? oracleRow(rows, version, value) : oracleRow(rows, 4, aliased);
					const found = index.lookup(bytesOf(version, value));
					if (found?.record.asn !== expected?.asn)
						throw new Error(
							`${text(version, value)}: asn ${found?.record.asn} where the longest network's is ${expected?.asn}`,
						);
					if (!found || !expected || aliased !== undefined) continue;
					// The network reported holds the address, within the row's network.
					const [start, prefixText] = found.network.split('/');
					const prefix = Number(prefixText);
					const reported = parseIpAddress(start);
					const holds =
						reported !== undefined &&
						Buffer.from(reported).equals(
							Buffer.from(bytesOf(version, masked(value, prefix, width(version)))),
						);
					if (!holds || prefix < expected.prefix)
						throw new Error(
							`${text(version, value)}: reported ${found.network}, its row's network is /${expected.prefix}`,
						);
				}
			},
		),
};

/** The index refuses a file with a DatabaseFileError or builds it: nothing else, whatever the bytes. */
export const csvIndexBytesCampaign: Campaign = {
	name: 'CSV IP index on any bytes',
	holds: 'a DatabaseFileError or an index, never another exception, in any chunking',
	testRuns: 20_000,
	property: () =>
		fc.property(
			fc.constantFrom('network,asn,autonomous_system_organization,asn_country\n', 'network,', ''),
			csvBytes,
			cuts,
			(header, bytes, fractions) => {
				const builder = new CsvIndexBuilder();
				try {
					for (const chunk of chunksOf(Buffer.concat([Buffer.from(header), bytes]), fractions))
						builder.push(chunk);
					builder.end();
				} catch (error) {
					if (!(error instanceof DatabaseFileError)) throw error;
				}
			},
		),
};
