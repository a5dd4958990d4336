import { readFileSync } from 'fs';

import { Reader, type Response } from 'mmdb-lib';

import { writeTestMmdb } from '../test/ipLookup/mmdbTestWriter';
import { asWritten } from './ipLookupMemory';

/**
 * The MMDB twin of a lookup run: a small file holding, for the given addresses, exactly the
 * networks and records the real file gives them (read with mmdb-lib), and nothing else. A
 * workflow on it outputs the same items as on the real file, so the difference of the two runs'
 * peaks is what holding and reading the real file costs, not what its answers cost.
 */
export function mmdbTwin(realFile: string, addresses: string[], databaseType: string): Buffer {
	const real = new Reader<Response>(readFileSync(realFile));
	const networks = new Map<string, unknown>();
	for (const ip of addresses) {
		const [record, prefix] = real.getWithPrefixLength(ip);
		if (record) networks.set(networkOf(ip, prefix), record);
	}
	return Buffer.from(
		writeTestMmdb(
			[...networks].map(([network, record]) => ({ network, record: asWritten(record) })),
			{ recordSize: 28, ipVersion: 6, aliasIpv4: true, metadata: { database_type: databaseType } },
		).file,
	);
}

/** The IPv4 network of `prefix` bits around an address (the twin covers IPv4 addresses only). */
function networkOf(ip: string, prefix: number): string {
	if (ip.includes(':')) throw new Error(`the MMDB twin takes IPv4 addresses only, not ${ip}`);
	const value = ip.split('.').reduce((sum, part) => sum * 256 + Number(part), 0);
	const masked = prefix === 0 ? 0 : value - (value % 2 ** (32 - prefix));
	return `${[24, 16, 8, 0].map((shift) => Math.floor(masked / 2 ** shift) % 256).join('.')}/${prefix}`;
}
