import type { IDataObject } from 'n8n-workflow';

/**
 * A record of MaxMind's GeoIP2/GeoLite2 layout (City, Country, ASN, ISP; DB-IP's lite files use
 * the same) in the live API's shape, field by field as `likeTheApi` gives an
 * Abstract database's record. Names are the English ones (`names.en`), as the API's are.
 * The layout nests: `{ city: { names: { en } }, subdivisions: [{ iso_code }], location: { ... } }`.
 * A country's `is_in_european_union` is stored only when true, so a country without it is not in
 * the EU; with no country at all, the flag is unknown (null).
 */

type Json = Record<string, unknown>;

const objectAt = (value: unknown): Json | undefined =>
	typeof value === 'object' && value !== null && !Array.isArray(value)
		? (value as Json)
		: undefined;

const englishName = (place: Json | undefined) => valueOf(objectAt(place?.names)?.en);

/** A stored scalar as is (numbers stay numbers: this layout stores them typed); anything else null. */
function valueOf(value: unknown): string | number | boolean | null {
	return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean'
		? value
		: null;
}

/** The top-level keys of the GeoIP2 City/Country layout: a record with none of them is not in it. */
const LOCATION_KEYS = [
	'city',
	'continent',
	'country',
	'location',
	'postal',
	'registered_country',
	'represented_country',
	'subdivisions',
	'traits',
];

/**
 * Whether a found record has the GeoIP2 location layout: its known keys hold maps (subdivisions a
 * list), never plain values as a flat layout's `city` or `country` would. An empty record has
 * nothing to map, and passes.
 */
export function hasGeoip2Location(record: Json): boolean {
	const known = Object.keys(record).filter((key) => LOCATION_KEYS.includes(key));
	if (Object.keys(record).length === 0) return true;
	return (
		known.length > 0 &&
		known.every((key) => typeof record[key] === 'object' && record[key] !== null)
	);
}

/** The location fields of the API's answer (without `ip_address`). */
export function geoip2Location(record: Json): IDataObject {
	const city = objectAt(record.city);
	const subdivision = objectAt(
		Array.isArray(record.subdivisions) ? record.subdivisions[0] : undefined,
	);
	const country = objectAt(record.country);
	const continent = objectAt(record.continent);
	const location = objectAt(record.location);
	return {
		city: englishName(city),
		city_geoname_id: valueOf(city?.geoname_id),
		region: englishName(subdivision),
		region_iso_code: valueOf(subdivision?.iso_code),
		region_geoname_id: valueOf(subdivision?.geoname_id),
		postal_code: valueOf(objectAt(record.postal)?.code),
		country: englishName(country),
		country_code: valueOf(country?.iso_code),
		country_geoname_id: valueOf(country?.geoname_id),
		country_is_eu: country ? country.is_in_european_union === true : null,
		continent: englishName(continent),
		continent_code: valueOf(continent?.code),
		continent_geoname_id: valueOf(continent?.geoname_id),
		longitude: valueOf(location?.longitude),
		latitude: valueOf(location?.latitude),
		timezone: { name: valueOf(location?.time_zone) },
	};
}

/** `connection` of the API's answer from an ASN (or ISP) record. */
export function geoip2Connection(record: Json): IDataObject {
	return {
		autonomous_system_number: valueOf(record.autonomous_system_number),
		autonomous_system_organization: valueOf(record.autonomous_system_organization),
	};
}
