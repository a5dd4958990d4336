import { csvLine } from '../test/sandbox/ipDatabases/csvWriter';
import { writeMmdb } from '../test/sandbox/ipDatabases/mmdbWriter';
import { COLUMNS } from '../test/sandbox/ipDatabases/records';

/**
 * Synthetic geolocation databases for the lookup bench: `rows` networks (nine in ten IPv4 /24s
 * from 1.0.0.0 on, one in ten IPv6 /48s), records drawn from a few thousand places, some with
 * commas (quoted in the CSV). Deterministic, so every run measures the same bytes.
 */
const PLACES = 5000;

function place(index: number): Record<string, string> {
	const country = index % 200;
	return {
		country: country % 7 === 0 ? `Country ${country}, Republic of` : `Country ${country}`,
		country_code: String.fromCharCode(65 + (country % 26), 65 + Math.floor(country / 26)),
		country_geoname_id: String(1000000 + country),
		country_is_eu: country % 5 === 0 ? 'True' : 'False',
		continent: 'Europe',
		continent_code: 'EU',
		continent_geoname_id: '6255148',
		region: `Region ${index % 900}`,
		region_iso_code: `C${country}-R${index % 900}`,
		region_geoname_id: String(2000000 + (index % 900)),
		city: index % 11 === 0 ? `Town ${index}, Upper` : `Town ${index}`,
		city_geoname_id: String(3000000 + index),
		postal_code: String(10000 + index),
		latitude: (((index * 37) % 18000) / 100 - 90).toFixed(4),
		longitude: (((index * 53) % 36000) / 100 - 180).toFixed(4),
		timezone_name: 'Europe/Paris',
	};
}

export function networkOf(row: number): string {
	if (row % 10 === 9) {
		const n = Math.floor(row / 10);
		return `2a00:${(n >> 16).toString(16)}:${(n & 0xffff).toString(16)}::/48`;
	}
	const n = row - Math.floor(row / 10) + 256; // from 1.0.0.0/24
	return `${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}.0/24`;
}

/** The CSV in chunks of about 1 MB, generated as it is read (the file is never whole in memory). */
export function* csvChunks(rows: number): Generator<Buffer> {
	const columns = COLUMNS['ip-geolocation'];
	let lines: string[] = [csvLine(columns)];
	let size = 0;
	for (let row = 0; row < rows; row++) {
		const record: Record<string, string> = { network: networkOf(row), ...place(row % PLACES) };
		const line = csvLine(columns.map((column) => record[column] ?? ''));
		lines.push(line);
		size += line.length;
		if (size >= 1024 * 1024) {
			yield Buffer.from(lines.join(''), 'utf8');
			lines = [];
			size = 0;
		}
	}
	if (lines.length > 0) yield Buffer.from(lines.join(''), 'utf8');
}

export function csvFile(rows: number): Buffer {
	return Buffer.concat([...csvChunks(rows)]);
}

export function mmdbFile(rows: number): Buffer {
	return writeMmdb(
		Array.from({ length: rows }, (_, row) => ({
			network: networkOf(row),
			record: place(row % PLACES),
		})),
		{ databaseType: 'svc-ip-geolocation', description: 'bench', buildEpoch: 1767571200 },
	);
}

/** Addresses to look up: nine in ten inside the networks, one in ten in a private range (a miss). */
export function addresses(rows: number, count: number): string[] {
	return Array.from({ length: count }, (_, index) => {
		if (index % 10 === 0) return `10.${index & 255}.${(index >> 8) & 255}.1`;
		const row = (index * 7919) % rows;
		const network = networkOf(row);
		return network.includes(':')
			? network.replace('::/48', '::1')
			: network.replace('.0/24', `.${index % 250}`);
	});
}
