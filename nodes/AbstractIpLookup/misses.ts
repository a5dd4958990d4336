import type { IDataObject } from 'n8n-workflow';

import { SECURITY_FLAGS } from '../shared/ipDatabases/databaseKinds';
import { nameOf, type DatabaseRole } from './databaseRoles';

/**
 * An address the database does not cover: an item that says so, never an error (the builds:
 * private, reserved and multicast ranges are filtered out of every build, and a lookup against
 * one returns nothing). In the security database no network means no flag; in the API's shape
 * that is every flag false.
 */
export function missItem(
	role: DatabaseRole,
	ipAddress: string,
	shape: 'asStored' | 'likeTheApi',
): IDataObject {
	const item: IDataObject = {
		ip_address: ipAddress,
		found: false,
		reason: missReason(role, ipAddress),
	};
	if (role.role === 'security' && shape === 'likeTheApi') item.security = noFlags();
	return item;
}

/** Why a database gave nothing for an address. */
export function missReason(role: DatabaseRole, ipAddress: string): string {
	const name = nameOf(role);
	if (role.layout !== 'contract') return `No network of the ${name} database covers ${ipAddress}`;
	return role.role === 'security'
		? `No network of the ip-security database covers ${ipAddress}: it carries none of the seven flags`
		: `No network of the ${name} database covers ${ipAddress}: private, reserved and multicast ranges are left out of every build, and a public address may be missing from one`;
}

/** The security part of the API's answer for an address the security database does not list. */
export const noFlags = (): IDataObject =>
	Object.fromEntries(SECURITY_FLAGS.map((flag) => [flag, false]));
