import type { IDataObject } from 'n8n-workflow';

import { CSV_COLUMNS, SECURITY_FLAGS } from '../shared/ipDatabases/databaseKinds';
import type { Shape } from './answers';
import { locationOf, unknownConnection } from './apiShape';
import { KIND_OF_ROLE, type DatabaseRole, type Role } from './databaseRoles';

/**
 * The answer columns of a result file, known before its first row from the databases given and
 * the Output Shape: the keys the per-item answer has (answers.ts), dotted where they nest. The
 * records of a file of another layout (GeoLite2's nested maps, As Stored) have no fixed fields:
 * they reach the file whole, as JSON, through other_fields, as any key not listed here would.
 */

const MISS = ['found', 'reason'];

/** The dotted keys of an object's leaves. */
function dottedKeys(object: IDataObject, prefix = ''): string[] {
	return Object.entries(object).flatMap(([key, value]) =>
		value !== null && typeof value === 'object' && !Array.isArray(value)
			? dottedKeys(value as IDataObject, `${prefix}${key}.`)
			: [`${prefix}${key}`],
	);
}

/** The columns of the live API's part that a database of each role fills. */
const API_PART: Record<Role, string[]> = {
	geolocation: dottedKeys(locationOf({})),
	asn: dottedKeys({ connection: unknownConnection() }),
	security: SECURITY_FLAGS.map((flag) => `security.${flag}`),
};

/** A record's own fields as stored (network aside); none for a layout of nested maps. */
const storedFields = (role: DatabaseRole): string[] =>
	role.layout === 'contract' && role.role ? CSV_COLUMNS[KIND_OF_ROLE[role.role]].slice(1) : [];

export function answerColumnsOf(roles: DatabaseRole[], shape: Shape): string[] {
	if (shape === 'likeTheApi') {
		// Several databases answer with the API's whole record, whatever their roles.
		const parts: Role[] =
			roles.length > 1
				? ['geolocation', 'asn', 'security']
				: roles.map((role) => role.role as Role);
		return ['ip_address', ...parts.flatMap((role) => API_PART[role] ?? []), ...MISS];
	}
	if (roles.length === 1) return ['ip_address', 'network', ...storedFields(roles[0]), ...MISS];
	return [
		'ip_address',
		...roles.flatMap((role) =>
			['network', ...storedFields(role), ...MISS].map((field) => `${role.key}.${field}`),
		),
	];
}
