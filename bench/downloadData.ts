import { closeSync, existsSync, openSync, promises as fs, writeSync } from 'fs';
import path from 'path';

import { cacheRoot } from '../scripts/n8n/runtime';
import { streamCsvArchive, type DatabaseArchive } from '../test/sandbox/ipDatabases/archives';
import { csvLine } from '../test/sandbox/ipDatabases/csvWriter';
import { COLUMNS } from '../test/sandbox/ipDatabases/records';
import { random32 } from '../test/sandbox/random';

/**
 * The full geolocation CSV archive the download benches serve: 4.73 million networks (668 MiB of
 * CSV, a 56 MiB archive: as compressible as the catalog's ~850 MB in ~80 MB), consecutive /24s
 * sharing a place in runs of 1 to 10 as real blocks do, places drawn from 50,000. Deterministic,
 * made once into the cache folder (about a minute), never whole in memory.
 */
export const FULL_ROWS = 4_730_000;
const PLACES = 50_000;
const RUN = 10;

function place(index: number): Record<string, string> {
	const country = index % 240;
	const region = index % 3000;
	return {
		country: country % 9 === 0 ? `Country ${country}, Republic of` : `Country ${country}`,
		country_code: String.fromCharCode(65 + (country % 26), 65 + Math.floor(country / 26)),
		country_geoname_id: String(1_000_000 + ((country * 7919) % 900_000)),
		country_is_eu: country % 5 === 0 ? 'True' : 'False',
		continent: 'Europe',
		continent_code: 'EU',
		continent_geoname_id: '6255148',
		region: `Region ${region}`,
		region_iso_code: `C${country}-${region}`,
		region_geoname_id: String(2_000_000 + region * 31),
		city: index % 11 === 0 ? `Town ${index}, Upper` : `Town ${index}`,
		city_geoname_id: String(3_000_000 + index * 13),
		postal_code: String(10_000 + ((index * 7) % 90_000)),
		latitude: (((index * 37) % 18_000) / 100 - 90).toFixed(4),
		longitude: (((index * 53) % 36_000) / 100 - 180).toFixed(4),
		timezone_name: 'Europe/Paris',
	};
}

/** The CSV in chunks of 4,096 rows. */
function* fullRows(): Generator<Buffer> {
	const columns = COLUMNS['ip-geolocation'];
	const next = random32(7);
	let lines: string[] = [csvLine(columns)];
	let current = 0;
	let left = 0;
	for (let row = 0; row < FULL_ROWS; row++) {
		if (left === 0) {
			current = next() % PLACES;
			left = 1 + (next() % RUN);
		}
		left--;
		const at = row + 256; // from 1.0.0.0/24
		const record: Record<string, string> = {
			network: `${(at >> 16) & 255}.${(at >> 8) & 255}.${at & 255}.0/24`,
			...place(current),
		};
		lines.push(csvLine(columns.map((column) => record[column] ?? '')));
		if (lines.length >= 4096) {
			yield Buffer.from(lines.join(''), 'utf8');
			lines = [];
		}
	}
	if (lines.length > 0) yield Buffer.from(lines.join(''), 'utf8');
}

export type ArchiveFile = Omit<DatabaseArchive, 'bytes'> & { file: string; bytes: number };

/** The archive's file in the cache folder and its facts, made when missing. */
export async function fullGeolocationArchive(
	log: (line: string) => void = () => {},
): Promise<ArchiveFile> {
	const file = path.join(cacheRoot(), 'bench', `svc-ip-geolocation-csv-${FULL_ROWS}.tar.gz`);
	const factsFile = `${file}.json`;
	if (existsSync(file) && existsSync(factsFile))
		return JSON.parse(await fs.readFile(factsFile, 'utf8')) as ArchiveFile;
	log(`Making the full geolocation CSV archive (${FULL_ROWS} networks) into ${file} ...`);
	await fs.mkdir(path.dirname(file), { recursive: true });
	const partial = `${file}.partial`;
	const fd = openSync(partial, 'w');
	let bytes = 0;
	let facts: Omit<DatabaseArchive, 'bytes'>;
	try {
		facts = await streamCsvArchive('ip-geolocation', fullRows, (chunk) => {
			writeSync(fd, chunk);
			bytes += chunk.length;
		});
	} finally {
		closeSync(fd);
	}
	await fs.rename(partial, file);
	const known: ArchiveFile = { ...facts, file, bytes };
	await fs.writeFile(factsFile, JSON.stringify(known));
	return known;
}

if (require.main === module) {
	fullGeolocationArchive(console.log).then(
		(archive) =>
			console.log(
				`${archive.file}: ${(archive.bytes / 2 ** 20).toFixed(1)} MiB, database file ${(archive.databaseFileSize / 2 ** 20).toFixed(1)} MiB, sha256 ${archive.sha256}`,
			),
		(error: unknown) => {
			console.error(error);
			process.exit(1);
		},
	);
}
