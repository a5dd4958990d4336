import type { IDataObject } from 'n8n-workflow';

import { SECURITY_FLAGS, type DatabaseKind } from '../shared/ipDatabases/databaseKinds';

/**
 * An address the database does not cover: an item that says so, never an error (contract 2.11:
 * private, reserved and multicast ranges are filtered out of every build, and a lookup against
 * one returns nothing). In the security database no network means no flag; in the API's shape
 * that is every flag false.
 */
export function missItem(kind: DatabaseKind, ipAddress: string, shape: 'asStored' | 'likeTheApi'): IDataObject {
	const reason =
		kind === 'ip-security'
			? `No network of the ip-security database covers ${ipAddress}: it carries none of the seven flags`
			: `No network of the ${kind} database covers ${ipAddress}: private, reserved and multicast ranges are left out of every build, and a public address may be missing from one`;
	const item: IDataObject = { ip_address: ipAddress, found: false, reason };
	if (kind === 'ip-security' && shape === 'likeTheApi') {
		item.security = Object.fromEntries(SECURITY_FLAGS.map((flag) => [flag, false]));
	}
	return item;
}
