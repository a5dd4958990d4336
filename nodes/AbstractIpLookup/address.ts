import type { IExecuteFunctions } from 'n8n-workflow';

import { quoted } from '../shared/values/quoted';
import { parseIpAddress } from '../shared/values/ipAddress';
import { inputError, text } from './databaseChoice';

/** An address to look up: as written (trimmed), and as bytes. */
export interface CheckedAddress {
	ipAddress: string;
	address: Uint8Array;
}

/** The rule an address (trimmed) breaks, or undefined for an IPv4 or IPv6 address: items and file rows alike. */
export function addressRule(ipAddress: string): string | undefined {
	if (ipAddress === '') return 'is required: the IPv4 or IPv6 address to look up';
	if (parseIpAddress(ipAddress)) return undefined;
	return `${quoted(ipAddress)} is not an IPv4 address (such as 8.8.8.8) or an IPv6 address (such as 2001:4860::8888)`;
}

/** The address of an item, or an input error naming `field` and the rule. */
export function checkedAddress(
	ctx: IExecuteFunctions,
	itemIndex: number,
	field: string,
	value: unknown,
): CheckedAddress {
	const ipAddress = text(value);
	const address = parseIpAddress(ipAddress);
	if (!address) throw inputError(ctx, itemIndex, field, addressRule(ipAddress)!);
	return { ipAddress, address };
}
