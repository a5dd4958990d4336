import type { IDataObject, INodePropertyOptions } from 'n8n-workflow';

/**
 * A service's answer as CSV columns, for a result file whose header is written before the first
 * answer arrives: the columns are the fields of the service's record (phone, email, IP
 * geolocation, company, IBAN; VAT validation's from the public documentation), in the
 * record's order, nested fields named with dots (`email_deliverability.status`).
 *
 * A cell is the field's value as text: a string as it is, a number or boolean as JSON writes it,
 * null or a missing field as an empty cell, an array or object (mx_records, breached_domains)
 * as JSON text. A key of the answer that these lists do not hold is not dropped: it goes, by
 * its dotted path, into one JSON object in the last answer column, `other_fields` (an empty cell
 * when there is none), so a field the service adds later still reaches the file.
 */

/** The phone analysis record. */
export const PHONE_ANSWER_COLUMNS: readonly string[] = [
	'phone_number',
	'phone_format.international',
	'phone_format.national',
	'phone_carrier.name',
	'phone_carrier.line_type',
	'phone_carrier.mcc',
	'phone_carrier.mnc',
	'phone_location.country_name',
	'phone_location.country_code',
	'phone_location.country_prefix',
	'phone_location.region',
	'phone_location.city',
	'phone_location.timezone',
	'phone_messaging.sms_domain',
	'phone_messaging.sms_email',
	'phone_validation.is_valid',
	'phone_validation.line_status',
	'phone_validation.is_voip',
	'phone_validation.minimum_age',
	'phone_registration.name',
	'phone_registration.type',
	'phone_risk.risk_level',
	'phone_risk.is_disposable',
	'phone_risk.is_abuse_detected',
	'phone_breaches.total_breaches',
	'phone_breaches.date_first_breached',
	'phone_breaches.date_last_breached',
	'phone_breaches.breached_domains',
];

/** The email reputation record. */
export const EMAIL_ANSWER_COLUMNS: readonly string[] = [
	'email_address',
	'suggested_correction',
	'email_deliverability.status',
	'email_deliverability.status_detail',
	'email_deliverability.is_format_valid',
	'email_deliverability.is_smtp_valid',
	'email_deliverability.is_mx_valid',
	'email_deliverability.mx_records',
	'email_quality.score',
	'email_quality.is_free_email',
	'email_quality.is_username_suspicious',
	'email_quality.is_disposable',
	'email_quality.is_catchall',
	'email_quality.is_subaddress',
	'email_quality.is_role',
	'email_quality.is_dmarc_enforced',
	'email_quality.is_spf_strict',
	'email_quality.minimum_age',
	'email_sender.first_name',
	'email_sender.last_name',
	'email_sender.email_provider_name',
	'email_sender.organization_name',
	'email_sender.organization_type',
	'email_domain.domain',
	'email_domain.domain_age',
	'email_domain.is_live_site',
	'email_domain.registrar',
	'email_domain.registrar_url',
	'email_domain.date_registered',
	'email_domain.date_last_renewed',
	'email_domain.date_expires',
	'email_domain.is_risky_tld',
	'email_risk.address_risk_status',
	'email_risk.domain_risk_status',
	'email_breaches.total_breaches',
	'email_breaches.date_first_breached',
	'email_breaches.date_last_breached',
	'email_breaches.breached_domains',
];

/** The IP geolocation record. */
export const IP_GEOLOCATION_ANSWER_COLUMNS: readonly string[] = [
	'ip_address',
	'city',
	'city_geoname_id',
	'region',
	'region_iso_code',
	'region_geoname_id',
	'postal_code',
	'country',
	'country_code',
	'country_geoname_id',
	'country_is_eu',
	'continent',
	'continent_code',
	'continent_geoname_id',
	'longitude',
	'latitude',
	'security.is_vpn',
	'timezone.name',
	'timezone.abbreviation',
	'timezone.gmt_offset',
	'timezone.current_time',
	'timezone.is_dst',
	'flag.emoji',
	'flag.unicode',
	'flag.png',
	'flag.svg',
	'currency.currency_name',
	'currency.currency_code',
	'connection.autonomous_system_number',
	'connection.autonomous_system_organization',
	'connection.connection_type',
	'connection.isp_name',
	'connection.organization_name',
];

/** The company record: every field is top-level (arrays become JSON text). */
export const COMPANY_ANSWER_COLUMNS: readonly string[] = [
	'domain',
	'company_name',
	'description',
	'logo',
	'year_founded',
	'street_address',
	'city',
	'state',
	'country',
	'country_iso_code',
	'postal_code',
	'latitude',
	'longitude',
	'sic_code',
	'naics_code',
	'industry',
	'employee_count',
	'employee_range',
	'annual_revenue',
	'revenue_range',
	'phone_numbers',
	'email_addresses',
	'type',
	'ticker',
	'exchange',
	'global_ranking',
	'tags',
	'technologies',
	'linkedin_url',
	'facebook_url',
	'twitter_url',
	'instagram_url',
	'crunchbase_url',
];

/** The IBAN result. */
export const IBAN_ANSWER_COLUMNS: readonly string[] = ['iban', 'is_valid'];

/**
 * VAT number validation: its answer is documented only in part, and the public documentation's
 * field names are not consistent; these are the documented ones. Any other key the service sends
 * still reaches the file, in other_fields.
 */
export const VAT_VALIDATION_ANSWER_COLUMNS: readonly string[] = [
	'vat_number',
	'valid',
	'company.name',
	'company.address',
	'country.code',
	'country.name',
];

/**
 * The columns of a record that the service was asked to limit to some top-level keys (the
 * `fields` option of IP geolocation and company enrichment): the others would stay empty.
 */
export function columnsOfKeys(
	columns: readonly string[],
	keys: string | undefined,
): readonly string[] {
	if (keys === undefined) return columns;
	const wanted = new Set(keys.split(','));
	return columns.filter((column) => wanted.has(column.split('.')[0]));
}

/** The record's top-level keys, in order (what the `fields` option offers). */
export function topLevelKeys(columns: readonly string[]): readonly string[] {
	return [...new Set(columns.map((column) => column.split('.')[0]))];
}

/** The column that holds, as one JSON object, the answer's keys outside the record's known fields. */
export const OTHER_FIELDS_COLUMN = 'other_fields';

/** The columns as choices of a multi-select (the Result Fields option). */
export function answerColumnOptions(columns: readonly string[]): INodePropertyOptions[] {
	return columns.map((column) => ({ name: column, value: column }));
}

/** A value as one CSV cell. */
export function cellOf(value: unknown): string {
	if (value === null || value === undefined) return '';
	if (typeof value === 'string') return value;
	if (typeof value === 'number' || typeof value === 'boolean') return String(value);
	return JSON.stringify(value);
}

/** The record's known fields as a tree of keys: a leaf is a column (its position, if written), a branch an object. */
interface FieldNode {
	/** The field's position among the written columns; undefined for a field left out (or a branch). */
	position?: number;
	children?: Map<string, FieldNode>;
}

/**
 * Flattens answers into fixed columns. `columns` are the ones written (all the known fields,
 * or the user's pick); `known` are all the known fields, so that a field left out by the pick
 * is not taken for an unknown one. The fields are walked along a tree of the known keys,
 * so that a known field costs no dotted name (a result file flattens every row's answer).
 */
export class AnswerFlattener {
	private readonly root = new Map<string, FieldNode>();

	constructor(
		readonly columns: readonly string[],
		known: readonly string[],
	) {
		const written = new Map(columns.map((column, position) => [column, position]));
		for (const column of known) {
			let level = this.root;
			const parts = column.split('.');
			parts.forEach((part, depth) => {
				let node = level.get(part);
				if (!node) level.set(part, (node = {}));
				if (depth === parts.length - 1) node.position = written.get(column);
				else level = node.children ??= new Map();
			});
		}
	}

	/** The answer's cells in `columns` order, and the other_fields cell. */
	flatten(answer: IDataObject): { cells: string[]; other: string } {
		const cells = new Array<string>(this.columns.length).fill('');
		const other: IDataObject = {};
		let others = 0;
		const walk = (object: IDataObject, level: Map<string, FieldNode>, prefix: string) => {
			for (const key of Object.keys(object)) {
				const value = object[key];
				const node = level.get(key);
				if (node && !node.children) {
					if (node.position !== undefined) cells[node.position] = cellOf(value);
				} else if (
					node?.children &&
					value !== null &&
					typeof value === 'object' &&
					!Array.isArray(value)
				) {
					walk(value as IDataObject, node.children, `${prefix}${key}.`);
				} else if (!node?.children || value !== null) {
					// Not a known field, or a section that is not an object: kept as it came.
					// (A section that came as null is no unknown field.)
					other[`${prefix}${key}`] = value;
					others++;
				}
			}
		};
		walk(answer, this.root, '');
		return { cells, other: others > 0 ? JSON.stringify(other) : '' };
	}
}
