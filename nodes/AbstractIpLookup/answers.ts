import type { IDataObject } from 'n8n-workflow';

import { namesListed } from '../shared/csv/csvRows';
import { quoted } from '../shared/values/quoted';
import { jsonRecord } from '../shared/ipDatabases/storedValues';
import type { DatabaseKind, StoredRecord } from '../shared/ipDatabases/databaseKinds';
import type { ForeignMatch, Match } from '../shared/ipDatabases/lookupTypes';
import {
	connectionOf,
	likeTheApi,
	locationOf,
	securityOf,
	unknownConnection,
	unknownLocation,
	unknownSecurity,
} from './apiShape';
import { KIND_OF_ROLE, nameOf, type DatabaseRole } from './databaseRoles';
import { geoip2Connection, geoip2Location, hasGeoip2Location } from './geoip2Shape';
import { missItem, missReason, noFlags } from './misses';

/**
 * An item's answer from the databases it was looked up in, in the Output Shape chosen (As Stored,
 * or Like the API: the live IP Geolocation API's record).
 */

export type Shape = 'asStored' | 'likeTheApi';

export interface Looked {
	role: DatabaseRole;
	match?: Match | ForeignMatch;
}

/** A database's failure to answer in the chosen shape: an error for the item, never an empty answer. */
export class ShapeError extends Error {
	constructor(
		message: string,
		readonly description: string,
	) {
		super(message);
		this.name = 'ShapeError';
	}
}

/** Records of foreign files are nested maps, of Abstract's own files flat strings: one view of both. */
/** The record as JSON: a foreign file's 64/128-bit integers and bytes have no JSON form of their own (storedValues.ts). */
const recordOf = (match: Match | ForeignMatch) =>
	jsonRecord(match.record) as Record<string, unknown>;

/** As Stored: a record of Abstract's files is flat strings already (copied by the spread); a foreign one is made JSON. */
const storedOf = (role: DatabaseRole, match: Match | ForeignMatch) =>
	role.layout === 'contract' ? (match.record as StoredRecord) : recordOf(match);

/** Like the API needs a layout the node can map; a file of unknown layout says so, before any lookup. */
export function checkShape(role: DatabaseRole, shape: Shape): void {
	if (shape !== 'likeTheApi' || role.layout !== 'unknown') return;
	throw new ShapeError(
		`The MMDB file's database_type is ${quoted(role.databaseType)}, a layout this node cannot map to the IP Geolocation API's fields`,
		"Set Output Shape to As Stored: it gives the record exactly as the file holds it, plus the matched network. Like the IP Geolocation API maps Abstract's three databases (ip-geolocation, ip-asn, ip-security) and files in the GeoIP2/GeoLite2 layout (City, Country, ASN; DB-IP lite).",
	);
}

/**
 * - One database: as version 1 always answered (saved workflows rely on it): As Stored is the
 *   record plus `network` at the top; Like the API is the part that database covers.
 * - Several: As Stored puts each database's record (with its `network`) under its own key
 *   (`geolocation`, `asn`, `security`; a foreign file of unknown layout under its database_type);
 *   Like the API is the live API's whole record: location, `connection` and `security`, the
 *   fields of a database not given null.
 */
export function answer(looked: Looked[], ipAddress: string, shape: Shape): IDataObject {
	if (looked.length === 1) return singleAnswer(looked[0], ipAddress, shape);
	return shape === 'likeTheApi' ? wholeAnswer(looked, ipAddress) : storedAnswers(looked, ipAddress);
}

function singleAnswer({ role, match }: Looked, ipAddress: string, shape: Shape): IDataObject {
	if (!match) return missItem(role, ipAddress, shape);
	if (shape === 'asStored')
		return { ip_address: ipAddress, network: match.network, ...storedOf(role, match) };
	if (role.layout === 'contract')
		return likeTheApi(
			KIND_OF_ROLE[role.role!] as DatabaseKind,
			ipAddress,
			match.record as StoredRecord,
		);
	return { ip_address: ipAddress, ...apiPart(role, match) };
}

/** The part of the API's answer one found record gives: location fields, `{ connection }` or `{ security }`. */
function apiPart(role: DatabaseRole, match: Match | ForeignMatch): IDataObject {
	const record = recordOf(match);
	if (role.layout === 'geoip2-location') {
		if (!hasGeoip2Location(record)) {
			throw new ShapeError(
				`The ${nameOf(role)} database's record for ${match.network} is not in the GeoIP2 City/Country layout (its keys: ${namesListed(Object.keys(record))})`,
				'Set Output Shape to As Stored to get the record as the file holds it.',
			);
		}
		return geoip2Location(record);
	}
	if (role.layout === 'geoip2-asn') return { connection: geoip2Connection(record) };
	const stored = match.record as StoredRecord;
	if (role.role === 'asn') return { connection: connectionOf(stored) };
	if (role.role === 'security') return { security: securityOf(stored) };
	return locationOf(stored);
}

function wholeAnswer(looked: Looked[], ipAddress: string): IDataObject {
	const whole: IDataObject = {
		ip_address: ipAddress,
		...unknownLocation(),
		connection: unknownConnection(),
		security: unknownSecurity(),
	};
	for (const { role, match } of looked) {
		if (match) Object.assign(whole, apiPart(role, match));
		// A location or ASN database that does not list the address leaves its fields null; the
		// security database that does not list it says it carries no flag (as with one database).
		else if (role.role === 'security') whole.security = noFlags();
	}
	if (looked.every(({ match }) => !match)) {
		whole.found = false;
		const order = ({ role }: Looked) => ['geolocation', 'asn', 'security'].indexOf(role.role ?? '');
		const names = [...looked].sort((a, b) => order(a) - order(b)).map(({ role }) => nameOf(role));
		whole.reason = `No network of the ${names.join(', ')} databases covers ${ipAddress}`;
	}
	return whole;
}

function storedAnswers(looked: Looked[], ipAddress: string): IDataObject {
	const stored: IDataObject = { ip_address: ipAddress };
	for (const { role, match } of looked) {
		stored[role.key] = match
			? { network: match.network, ...storedOf(role, match) }
			: { found: false, reason: missReason(role, ipAddress) };
	}
	return stored;
}
