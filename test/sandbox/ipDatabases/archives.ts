import { createHash } from 'crypto';
import { createGzip, gzipSync } from 'zlib';

import { csvLine, writeCsv } from './csvWriter';
import { writeMmdb } from './mmdbWriter';
import { randomFraction } from '../random';
import { COLUMNS, mmdbRecord, rowsOf, type DatabaseId, type FormatId } from './records';
import { TAR_END, tarEntry, tarHeader, tarPadding } from './tarWriter';

/**
 * The archives the download endpoint serves: `svc-<database>[-csv].tar.gz`
 * holding README.md, the database file and its `.sha256` (sha256sum's `<hex>  <file>` line),
 * members sorted by name. Builds are reproducible: fixed times and owners in the tar, gzip header
 * time 0, so the same build number always gives the same bytes.
 */
export interface DatabaseArchive {
	database: DatabaseId;
	format: FormatId;
	build: number;
	/** The archive's name: svc-ip-asn-csv.tar.gz. */
	fileName: string;
	/** The database file inside: svc-ip-asn.csv. */
	databaseFileName: string;
	databaseFileSize: number;
	/** The database file itself (kept for the small builds only). */
	databaseFile?: Buffer;
	sha256: string;
	/** The .tar.gz bytes. */
	bytes: Buffer;
}

export const archiveFileName = (database: DatabaseId, format: FormatId) =>
	format === 'mmdb' ? `svc-${database}.tar.gz` : `svc-${database}-csv.tar.gz`;

export const databaseFileName = (database: DatabaseId, format: FormatId) =>
	`svc-${database}.${format}`;

/** Build 1 is 2026-01-05 (a Monday); each later build is a week on (the databases are rebuilt weekly). */
export const buildEpoch = (build: number) => 1767571200 + (build - 1) * 604800;

const SHA256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

export function checksumLine(hex: string, fileName: string): Buffer {
	return Buffer.from(`${hex}  ${fileName}\n`, 'utf8');
}

function readme(database: DatabaseId, format: FormatId, build: number): Buffer {
	const file = databaseFileName(database, format);
	return Buffer.from(
		[
			`# ${database} (${format.toUpperCase()}), build ${build}`,
			'',
			`Built ${new Date(buildEpoch(build) * 1000).toISOString()} by the Abstract API sandbox.`,
			'',
			`- \`${file}\`: the database (${format === 'mmdb' ? 'MaxMind DB format, one record per network' : 'CSV, RFC 4180, one header row'})`,
			`- \`${file}.sha256\`: its SHA-256`,
			'',
			`Verify with \`sha256sum -c ${file}.sha256\`, which prints \`${file}: OK\` when the file is intact.`,
			'Extract each archive into its own directory: every archive holds a README.md.',
			'',
			'Licensed to one organization under its agreement; redistribution is forbidden.',
			'',
		].join('\n'),
		'utf8',
	);
}

export function databaseFileOf(database: DatabaseId, format: FormatId, build: number): Buffer {
	const rows = rowsOf(database, build);
	if (format === 'csv') {
		return writeCsv(
			COLUMNS[database],
			rows.map((row) => ({ network: row.network, ...row.fields })),
		);
	}
	return writeMmdb(
		rows.map((row) => ({ network: row.network, record: mmdbRecord(database, row) })),
		{
			databaseType: `svc-${database}`,
			description: `Abstract API sandbox ${database} database, build ${build}`,
			buildEpoch: buildEpoch(build),
		},
	);
}

const cache = new Map<string, DatabaseArchive>();

/**
 * The archive of a build. `checksum` replaces the `.sha256` content (a build whose checksum file
 * does not match its database file, for the mismatch fault).
 */
export function buildArchive(
	database: DatabaseId,
	format: FormatId,
	build: number,
	options: { checksum?: string } = {},
): DatabaseArchive {
	const id = `${database}/${format}/${build}/${options.checksum ?? ''}`;
	const known = cache.get(id);
	if (known) return known;
	const file = databaseFileOf(database, format, build);
	const name = databaseFileName(database, format);
	const sha256 = SHA256(file);
	const mtime = buildEpoch(build);
	const tar = Buffer.concat([
		tarEntry('README.md', readme(database, format, build), mtime),
		tarEntry(name, file, mtime),
		tarEntry(`${name}.sha256`, checksumLine(options.checksum ?? sha256, name), mtime),
		TAR_END,
	]);
	const archive: DatabaseArchive = {
		database,
		format,
		build,
		fileName: archiveFileName(database, format),
		databaseFileName: name,
		databaseFileSize: file.length,
		databaseFile: file,
		sha256,
		bytes: gzipSync(tar, { level: 9 }),
	};
	cache.set(id, archive);
	return archive;
}

const RESERVED_FIRST_OCTETS = new Set([0, 10, 100, 127, 169, 172, 192, 198, 203]);

/** Row `index` of a padded CSV: the small build's records, cycled, on distinct public /24s. */
function paddedRows(database: DatabaseId, build: number) {
	const templates = rowsOf(database, build).filter((row) => !row.network.includes(':'));
	const octets = Array.from({ length: 223 }, (_, index) => index + 1).filter(
		(octet) => !RESERVED_FIRST_OCTETS.has(octet),
	);
	return function* rows(count: number): Generator<Buffer> {
		const random = randomFraction(build * 7919);
		const lines: string[] = [csvLine(COLUMNS[database])];
		for (let index = 0; index < count; index++) {
			const fields = { ...templates[index % templates.length].fields };
			for (const key of Object.keys(fields)) {
				if (key.endsWith('geoname_id'))
					fields[key] = String(1_000_000 + Math.floor(random() * 9_000_000));
				else if (key === 'latitude') fields[key] = (random() * 180 - 90).toFixed(4);
				else if (key === 'longitude') fields[key] = (random() * 360 - 180).toFixed(4);
				else if (key === 'postal_code') fields[key] = String(10000 + Math.floor(random() * 89999));
				else if (key === 'asn') fields[key] = String(1 + Math.floor(random() * 400000));
			}
			const octet = octets[Math.floor(index / 65536) % octets.length];
			const network = `${octet}.${(index >> 8) & 255}.${index & 255}.0/24`;
			lines.push(
				csvLine(
					COLUMNS[database].map((column) =>
						column === 'network' ? network : (fields[column] ?? ''),
					),
				),
			);
			if (lines.length >= 4096) yield Buffer.from(lines.splice(0).join(''), 'utf8');
		}
		if (lines.length > 0) yield Buffer.from(lines.join(''), 'utf8');
	};
}

/**
 * A CSV archive of about `targetBytes` compressed (the benchmark's 100 MB download), made on the
 * fly and never stored in the repository: the small build's records cycled over many networks.
 * The row count is estimated from a compressed sample, then the archive is streamed through gzip.
 */
export async function buildLargeCsvArchive(
	database: DatabaseId,
	targetBytes: number,
	build = 1,
): Promise<DatabaseArchive> {
	const rows = paddedRows(database, build);
	const sampleRows = 50_000;
	const sample = Buffer.concat([...rows(sampleRows)]);
	const ratio = gzipSync(sample, { level: 6 }).length / sample.length;
	const count = Math.max(1, Math.round((targetBytes / ratio / sample.length) * sampleRows));
	const compressed: Buffer[] = [];
	const facts = await streamCsvArchive(
		database,
		() => rows(count),
		(chunk) => compressed.push(chunk),
		build,
	);
	return { ...facts, bytes: Buffer.concat(compressed) };
}

/**
 * A CSV archive as the service builds it (README.md, the database file, its .sha256), its
 * compressed bytes handed to `sink` as gzip makes them: `rows` is read twice, once for the size
 * the tar header states, then for the bytes, so the database file is never whole in memory.
 */
export async function streamCsvArchive(
	database: DatabaseId,
	rows: () => Iterable<Buffer>,
	sink: (compressed: Buffer) => void,
	build = 1,
): Promise<Omit<DatabaseArchive, 'bytes'>> {
	let size = 0;
	for (const chunk of rows()) size += chunk.length;
	const name = databaseFileName(database, 'csv');
	const mtime = buildEpoch(build);
	const gzip = createGzip({ level: 6 });
	gzip.on('data', sink);
	const done = new Promise<void>((resolve, reject) => {
		gzip.on('end', resolve);
		gzip.on('error', reject);
	});
	const write = async (chunk: Buffer) => {
		if (!gzip.write(chunk)) await new Promise((resolve) => gzip.once('drain', resolve));
	};
	await write(tarEntry('README.md', readme(database, 'csv', build), mtime));
	await write(tarHeader(name, size, mtime));
	const hash = createHash('sha256');
	for (const chunk of rows()) {
		hash.update(chunk);
		await write(chunk);
	}
	const sha256 = hash.digest('hex');
	await write(tarPadding(size));
	await write(tarEntry(`${name}.sha256`, checksumLine(sha256, name), mtime));
	gzip.end(TAR_END);
	await done;
	return {
		database,
		format: 'csv',
		build,
		fileName: archiveFileName(database, 'csv'),
		databaseFileName: name,
		databaseFileSize: size,
		sha256,
	};
}
