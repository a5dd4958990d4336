import type { IDataObject } from 'n8n-workflow';

import {
	SECURITY_FLAGS,
	type DatabaseKind,
	type StoredRecord,
} from '../shared/ipDatabases/databaseKinds';

/**
 * A stored record in the live API's shape (its field names mapped to the API's), so that a
 * lookup can take the place of the IP Geolocation node in a flow: numbers where the API has
 * numbers, `country_is_eu` a boolean, `region_iso_code` without its country prefix,
 * `timezone_name` as `timezone.name`. A field the database has but this network lacks is null
 * (the key stays, so expressions downstream see one shape); what the database never has
 * (currency, flag, local time, DST, ...) is not invented.
 */
export function likeTheApi(
	kind: DatabaseKind,
	ipAddress: string,
	record: StoredRecord,
): IDataObject {
	if (kind === 'ip-asn') return { ip_address: ipAddress, connection: connectionOf(record) };
	if (kind === 'ip-security') return { ip_address: ipAddress, security: securityOf(record) };
	return { ip_address: ipAddress, ...locationOf(record) };
}

/** `connection` of the API's answer from an ip-asn record. */
export function connectionOf(record: StoredRecord): IDataObject {
	return {
		autonomous_system_number: integerOrText(stripAs(record.asn)),
		autonomous_system_organization: record.autonomous_system_organization ?? null,
	};
}

/** `security` of the API's answer from an ip-security record: the flags it stores are True. */
export function securityOf(record: StoredRecord): IDataObject {
	const security: IDataObject = {};
	for (const flag of SECURITY_FLAGS) security[flag] = isTrue(record[flag]);
	return security;
}

/** The location fields of the API's answer (without `ip_address`) from an ip-geolocation record. */
export function locationOf(record: StoredRecord): IDataObject {
	const countryCode = record.country_code ?? null;
	return {
		city: record.city ?? null,
		city_geoname_id: integerOrText(record.city_geoname_id),
		region: record.region ?? null,
		region_iso_code: bareSubdivision(record.region_iso_code, countryCode),
		region_geoname_id: integerOrText(record.region_geoname_id),
		postal_code: record.postal_code ?? null,
		country: record.country ?? null,
		country_code: countryCode,
		country_geoname_id: integerOrText(record.country_geoname_id),
		country_is_eu: record.country_is_eu === undefined ? null : isTrue(record.country_is_eu),
		continent: record.continent ?? null,
		continent_code: record.continent_code ?? null,
		continent_geoname_id: integerOrText(record.continent_geoname_id),
		longitude: decimalOrText(record.longitude),
		latitude: decimalOrText(record.latitude),
		timezone: { name: record.timezone_name ?? null },
	};
}

/**
 * The parts of the answer a database that was not given would fill, all null: "unknown", which
 * the API also answers for a field it has no data for (a false security flag would be a claim).
 */
export function unknownLocation(): IDataObject {
	const location = locationOf({});
	location.country_is_eu = null;
	return location;
}

export const unknownConnection = (): IDataObject => ({
	autonomous_system_number: null,
	autonomous_system_organization: null,
});

export const unknownSecurity = (): IDataObject =>
	Object.fromEntries(SECURITY_FLAGS.map((flag) => [flag, null]));

/** `True` in any case (the databases write the literal True or False). */
const isTrue = (value: string | undefined) =>
	value !== undefined && value.trim().toLowerCase() === 'true';

/** "AS15169" and "15169" both name AS 15169. */
const stripAs = (value: string | undefined) => value?.replace(/^\s*AS/i, '');

/** A whole number where the text is one; otherwise the text as stored (never NaN, never lost). */
export function integerOrText(value: string | undefined): number | string | null {
	if (value === undefined) return null;
	const text = value.trim();
	return /^-?\d+$/.test(text) && Number.isSafeInteger(Number(text)) ? Number(text) : value;
}

/** A decimal number where the text is one; otherwise the text as stored. */
export function decimalOrText(value: string | undefined): number | string | null {
	if (value === undefined) return null;
	const text = value.trim();
	return /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(text) ? Number(text) : value;
}

/** "US-CA" -> "CA" (the live API gives the bare subdivision); a code without the prefix stays. */
export function bareSubdivision(
	code: string | undefined,
	countryCode: string | null,
): string | null {
	if (code === undefined) return null;
	const dash = code.indexOf('-');
	if (dash < 0) return code;
	const prefix = code.slice(0, dash);
	if (
		countryCode === null ||
		prefix.toUpperCase() === countryCode.toUpperCase() ||
		/^[A-Z]{2}$/i.test(prefix)
	) {
		return code.slice(dash + 1);
	}
	return code;
}
