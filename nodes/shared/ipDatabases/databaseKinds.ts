/**
 * The three Abstract IP databases, as a lookup tells them apart: by the MMDB metadata's
 * `database_type` or by the CSV header's columns. Records follow the MMDB convention in both
 * formats (a field with no value is absent, not an empty string; a security flag appears only
 * when True), so the same address gives the same record from the MMDB and the CSV of one build.
 */
import { namesListed } from '../csv/csvRows';

export type DatabaseKind = 'ip-geolocation' | 'ip-asn' | 'ip-security';

export const DATABASE_KINDS: readonly DatabaseKind[] = ['ip-geolocation', 'ip-asn', 'ip-security'];

/** A record as stored: string values only (the databases' first convention: every value is text). */
export type StoredRecord = Record<string, string>;

/** CSV columns per database, in the files' order, `network` first. */
export const CSV_COLUMNS: Record<DatabaseKind, readonly string[]> = {
	'ip-geolocation': [
		'network',
		'country',
		'country_code',
		'country_geoname_id',
		'country_is_eu',
		'continent',
		'continent_code',
		'continent_geoname_id',
		'region',
		'region_iso_code',
		'region_geoname_id',
		'city',
		'city_geoname_id',
		'postal_code',
		'latitude',
		'longitude',
		'timezone_name',
	],
	'ip-asn': ['network', 'asn', 'autonomous_system_organization', 'asn_country'],
	'ip-security': [
		'network',
		'is_vpn',
		'is_proxy',
		'is_tor',
		'is_hosting',
		'is_relay',
		'is_mobile',
		'is_abuse',
	],
};

export const SECURITY_FLAGS = CSV_COLUMNS['ip-security'].slice(1);

/**
 * The kind named by an MMDB `database_type` ("svc-ip-asn", or a vendor's "Abstract-IP-ASN"):
 * the last of the three ids it contains, ignoring case, dashes and underscores.
 */
export function kindOfDatabaseType(databaseType: unknown): DatabaseKind | undefined {
	const text = String(databaseType ?? '')
		.toLowerCase()
		.replace(/[_\s]/g, '-');
	return DATABASE_KINDS.find((kind) => text.includes(kind));
}

/**
 * The kind a CSV header describes: `network` plus the columns of exactly one database. Columns
 * this list does not hold are an error (a later build may add them; then the node must learn
 * them, not drop them silently).
 */
export function kindOfCsvHeader(header: readonly string[]): {
	kind?: DatabaseKind;
	problem?: string;
} {
	const columns = header.map((column) => column.trim());
	if (columns[0] !== 'network') {
		return {
			problem: `its first column is ${namesListed(columns.slice(0, 1))}, not "network": a database CSV starts with the network column`,
		};
	}
	for (const kind of DATABASE_KINDS) {
		const expected = CSV_COLUMNS[kind];
		const missing = expected.filter((column) => !columns.includes(column));
		if (missing.length > 0) continue;
		const unknown = columns.filter((column) => !expected.includes(column));
		if (unknown.length > 0) {
			return {
				problem: `it has the ${kind} columns plus ${namesListed(unknown)}, which none of the three databases has`,
			};
		}
		return { kind };
	}
	return {
		problem: `its columns (${namesListed(columns)}) are none of the three databases' (ip-geolocation, ip-asn, ip-security)`,
	};
}

/**
 * A CSV row as the MMDB stores the same network: empty fields absent, and in the security
 * database no flag that is False (the MMDB stores only True ones).
 */
export function recordFromCsv(
	kind: DatabaseKind,
	columns: readonly string[],
	fields: readonly string[],
): StoredRecord {
	const record: StoredRecord = {};
	for (let index = 1; index < columns.length; index++) {
		const value = fields[index] ?? '';
		if (value === '') continue;
		if (kind === 'ip-security' && value === 'False') continue;
		record[columns[index]] = value;
	}
	return record;
}
