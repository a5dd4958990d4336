import type { IDataObject } from 'n8n-workflow';

import { parseIpAddress } from '../shared/values/ipAddress';

/**
 * The answers of the addresses a file's rows looked up last, by the address as written. A log
 * repeats a few addresses on most of its lines; each is parsed, looked up and its answer built
 * once while it stays in the memo. Bounded: when full, the memo starts over (a plain Map, no
 * per-hit bookkeeping on the hot path), so it holds a few MB whatever the file.
 */
export const MEMO_ADDRESSES = 16_384;

export class AddressMemo {
	private readonly answers = new Map<string, IDataObject>();
	/** Lookups made (rows answered from the memo made none). */
	lookups = 0;

	constructor(private readonly lookUp: (address: Uint8Array, ipAddress: string) => IDataObject) {}

	/**
	 * The answer for `ipAddress` (trimmed), or undefined when it is not an address. Rows of the
	 * same address share it: read it, never change it.
	 */
	answer(ipAddress: string): IDataObject | undefined {
		let found = this.answers.get(ipAddress);
		if (found !== undefined) return found;
		const address = parseIpAddress(ipAddress);
		if (!address) return undefined;
		found = this.lookUp(address, ipAddress);
		this.lookups++;
		if (this.answers.size >= MEMO_ADDRESSES) this.answers.clear();
		this.answers.set(ipAddress, found);
		return found;
	}
}
