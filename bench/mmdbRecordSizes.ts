import { readFileSync } from 'fs';
import path from 'path';

import { mmdbFile } from './ipLookupData';
import { packageRoot } from './mmdbReader';
import { atTheBound, VALUE_KINDS, type Decoding } from '../test/ipLookup/mmdbValueKinds';
import { databaseFileOf } from '../test/sandbox/ipDatabases/archives';
import { DATABASES } from '../test/sandbox/ipDatabases/records';

/**
 * `node .out/bench/mmdbRecordSizes.js [file.mmdb ...]`: what the records of real MMDB files make
 * in the decoder's estimate (mmdbDecoder.ts, the measure of its bound and of the reader's record
 * cache): every record the search tree points to, decoded once, and the metadata; the largest,
 * the mean, and the bound over the largest. Without arguments, every real database this package
 * can reach: GeoLite2-City, -Country and -ASN (the geolite2 devDependency), the three of
 * @ip-location-db/geo-whois-asn-country-mmdb, the sandbox's three Abstract-format builds, and an
 * Abstract-format geolocation build of a million networks (the size of the live one). Then what
 * a lookup of a record at the bound costs: records of one kind of value each, as many as the
 * bound lets through, decoded 31 times (the median and the slowest). docs/ip-lookups.md quotes
 * its figures.
 */

interface Reading {
	MmdbReader: new (file: Uint8Array) => { metadata: Record<string, unknown> };
	METADATA_MARKER: Uint8Array;
}

/** The data offsets the search tree points to (each record once). */
function recordOffsets(file: Uint8Array, nodeCount: number, recordSize: number): Set<number> {
	const offsets = new Set<number>();
	const nodeBytes = recordSize / 4;
	const at = (node: number, right: boolean): number => {
		const base = node * nodeBytes;
		if (recordSize === 24) {
			const from = base + (right ? 3 : 0);
			return (file[from] << 16) | (file[from + 1] << 8) | file[from + 2];
		}
		if (recordSize === 28) {
			const middle = file[base + 3];
			const high = right ? middle & 0x0f : middle >> 4;
			const from = base + (right ? 4 : 0);
			return high * 0x1000000 + ((file[from] << 16) | (file[from + 1] << 8) | file[from + 2]);
		}
		const from = base + (right ? 4 : 0);
		return (
			file[from] * 0x1000000 + ((file[from + 1] << 16) | (file[from + 2] << 8) | file[from + 3])
		);
	};
	for (let node = 0; node < nodeCount; node++)
		for (const right of [false, true]) {
			const value = at(node, right);
			if (value > nodeCount) offsets.add(value - nodeCount - 16);
		}
	return offsets;
}

export function run(files: string[]): void {
	const root = packageRoot();
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	const decoding = require(
		path.join(root, 'dist/nodes/shared/ipDatabases/mmdbDecoder.js'),
	) as Decoding;
	const { Decoder, DECODED_BYTES } = decoding;
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	const { MmdbReader, METADATA_MARKER } = require(
		path.join(root, 'dist/nodes/shared/ipDatabases/mmdbReader.js'),
	) as Reading;
	const named = (name: string) => ({ name: path.basename(name), file: () => readFileSync(name) });
	const databases =
		files.length > 0
			? files.map(named)
			: [
					...['City', 'Country', 'ASN'].map((name) =>
						named(path.join(root, `node_modules/geolite2/dbs/GeoLite2-${name}.mmdb`)),
					),
					...['', '-ipv4', '-ipv6'].map((part) =>
						named(
							path.join(
								root,
								`node_modules/@ip-location-db/geo-whois-asn-country-mmdb/geo-whois-asn-country${part}.mmdb`,
							),
						),
					),
					...DATABASES.map((database) => ({
						name: `the sandbox's svc-${database}.mmdb`,
						file: () => databaseFileOf(database, 'mmdb', 2),
					})),
					{
						name: 'an Abstract-format geolocation build of 1,000,000 networks',
						file: () => mmdbFile(1_000_000),
					},
				];
	let largestOfAll = 0;
	for (const { name, file: read } of databases) {
		const file = read();
		const { metadata } = new MmdbReader(file);
		const nodeCount = Number(metadata.node_count);
		const recordSize = Number(metadata.record_size);
		const dataStart = (nodeCount * recordSize) / 4 + 16;
		const dataEnd = file.lastIndexOf(Buffer.from(METADATA_MARKER));
		const decoder = new Decoder(file, dataStart, dataEnd, 'data section');
		let largest = 0;
		let total = 0;
		const offsets = recordOffsets(file, nodeCount, recordSize);
		for (const offset of offsets) {
			decoder.decodeAt(dataStart + offset);
			largest = Math.max(largest, decoder.decodedBytes);
			total += decoder.decodedBytes;
		}
		const metadataStart = dataEnd + METADATA_MARKER.length;
		const metadataDecoder = new Decoder(file, metadataStart, file.length, 'metadata');
		metadataDecoder.decodeAt(metadataStart);
		largestOfAll = Math.max(largestOfAll, largest, metadataDecoder.decodedBytes);
		console.log(
			`${name}: ${offsets.size.toLocaleString('en-US')} records, the largest ${largest.toLocaleString('en-US')} bytes in the decoder's estimate, the mean ${Math.round(total / offsets.size).toLocaleString('en-US')}; its metadata ${metadataDecoder.decodedBytes.toLocaleString('en-US')} bytes`,
		);
	}
	console.log(
		`The largest record or metadata of all: ${largestOfAll.toLocaleString('en-US')} bytes; the bound (${DECODED_BYTES.toLocaleString('en-US')}) is ${(DECODED_BYTES / largestOfAll).toFixed(1)} times it`,
	);

	for (const [name, kind] of Object.entries(VALUE_KINDS)) {
		const { bytes, count } = atTheBound(kind, decoding);
		const decoder = new Decoder(bytes, 0, bytes.length, 'data section');
		for (let warm = 0; warm < 5; warm++) decoder.decodeAt(0);
		const times: number[] = [];
		for (let round = 0; round < 31; round++) {
			const started = performance.now();
			decoder.decodeAt(0);
			times.push(performance.now() - started);
		}
		times.sort((a, b) => a - b);
		console.log(
			`A record of ${count.toLocaleString('en-US')} ${name} (at the bound): decoded in ${times[15].toFixed(2)} ms (median), ${times[30].toFixed(2)} ms (slowest of 31)`,
		);
	}
}

if (require.main === module) run(process.argv.slice(2));
