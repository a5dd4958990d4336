import { shortened } from '../shared/values/quoted';
import type { DatabaseKind } from '../shared/ipDatabases/databaseKinds';
import type { IpDatabase } from '../shared/ipDatabases/lookupTypes';

/**
 * What part of the answer a parsed database gives, and how its records are laid out.
 *
 * The readers (nodes/shared/ipDatabases/) tell Abstract's three kinds apart; a foreign MMDB
 * (MaxMind's GeoLite2/GeoIP2, DB-IP's lite files, IPinfo ...) comes with no kind and its own
 * `database_type`, its records as the file holds them (nested maps). This adapter is the one
 * place the lookup node reads those two fields, so that the readers' types can change under it.
 */

/** The part of the live API's answer a database fills: location, `connection`, `security`. */
export type Role = 'geolocation' | 'asn' | 'security';

/**
 * - `contract`: a flat record of strings in the schema of one of Abstract's three databases;
 * - `geoip2-location`, `geoip2-asn`: MaxMind's GeoIP2/GeoLite2 layout (City, Country; ASN, ISP),
 *   which DB-IP's lite MMDBs share;
 * - `unknown`: any other MaxMind DB file, read as stored only.
 */
export type Layout = 'contract' | 'geoip2-location' | 'geoip2-asn' | 'unknown';

export interface DatabaseRole {
	/** Unknown for a foreign file whose layout this node cannot map. */
	role?: Role;
	layout: Layout;
	/** The MMDB metadata's `database_type` (for a CSV: its kind). */
	databaseType: string;
	/** Under which key "As Stored" puts its record when several databases are given. */
	key: string;
}

const ROLE_OF_KIND: Record<DatabaseKind, Role> = {
	'ip-geolocation': 'geolocation',
	'ip-asn': 'asn',
	'ip-security': 'security',
};

/** The Abstract database of each role: its name in messages about such a database. */
export const KIND_OF_ROLE: Record<Role, DatabaseKind> = {
	geolocation: 'ip-geolocation',
	asn: 'ip-asn',
	security: 'ip-security',
};

/**
 * MaxMind's and DB-IP's own names, spelled as they spell them: GeoLite2-City, GeoIP2-Country,
 * GeoIP2-Enterprise, DBIP-City-Lite, GeoLite2-ASN, GeoIP2-ISP ... Case matters: repackaged files
 * (the ip-location-db packages' "geolite2-city-ipv4" ...) hold a flat layout of their own.
 */
const GEOIP2_VENDOR = /^(GeoIP2|GeoLite2|DBIP)-/;
const GEOIP2_LOCATION = /(City|Country|Enterprise)/i;
const GEOIP2_ASN = /(ASN|ISP)/i;

const roles = new WeakMap<IpDatabase, DatabaseRole>();

/** The role and layout of a parsed database (computed once per parsed database). */
export function roleOf(database: IpDatabase): DatabaseRole {
	let known = roles.get(database);
	if (!known) {
		known = describe(database);
		roles.set(database, known);
	}
	return known;
}

function describe(database: IpDatabase): DatabaseRole {
	const kind = database.kind as DatabaseKind | undefined;
	// `databaseType` arrives with the readers' support for foreign files; until then every file has a kind.
	const databaseType = String(
		(database as { databaseType?: unknown }).databaseType ?? kind ?? 'unknown',
	);
	if (kind && kind in ROLE_OF_KIND) {
		const role = ROLE_OF_KIND[kind];
		return { role, layout: 'contract', databaseType, key: role };
	}
	if (GEOIP2_VENDOR.test(databaseType)) {
		if (GEOIP2_LOCATION.test(databaseType))
			return { role: 'geolocation', layout: 'geoip2-location', databaseType, key: 'geolocation' };
		if (GEOIP2_ASN.test(databaseType))
			return { role: 'asn', layout: 'geoip2-asn', databaseType, key: 'asn' };
	}
	return { layout: 'unknown', databaseType, key: databaseType };
}

/**
 * How messages name a database: its kind for Abstract's files, its database_type for others (cut
 * short: a file's metadata may hold a database_type of tens of KB).
 */
export function nameOf(role: DatabaseRole): string {
	return role.layout === 'contract' && role.role
		? KIND_OF_ROLE[role.role]
		: shortened(role.databaseType);
}
