import { parseIpAddress } from '../shared/values/ipAddress';

/**
 * The answers of the addresses a file's rows looked up last, by the address as written. A log
 * repeats its addresses on most of its lines; each is parsed, looked up and its answer made once
 * while it stays in the memo. Bounded: when full, the memo starts over (a plain Map, no per-hit
 * bookkeeping on the hot path), so what it holds is `capacity` answers whatever the file, and,
 * where an answer's size is known (`size`), `capacity.size` of them in all: a database file may
 * hold records of up to the reader's bound each, and a count alone let thousands of them fill
 * any heap.
 */
export class AddressMemo<Answer> {
	private readonly answers = new Map<string, Answer>();
	/** What the answers held take, in `capacity.sizeOf`'s unit. */
	private held = 0;
	/** Lookups made (rows answered from the memo made none). */
	lookups = 0;

	constructor(
		private readonly lookUp: (address: Uint8Array, ipAddress: string) => Answer,
		private readonly capacity: {
			answers: number;
			size?: number;
			sizeOf?: (answer: Answer) => number;
		},
	) {}

	/**
	 * The answer for `ipAddress` (trimmed), or undefined when it is not an address. Rows of the
	 * same address share it: read it, never change it.
	 */
	answer(ipAddress: string): Answer | undefined {
		let found = this.answers.get(ipAddress);
		if (found !== undefined) return found;
		const address = parseIpAddress(ipAddress);
		if (!address) return undefined;
		found = this.lookUp(address, ipAddress);
		this.lookups++;
		const { answers, size, sizeOf } = this.capacity;
		const bytes = sizeOf?.(found) ?? 0;
		if (this.answers.size >= answers || (size !== undefined && this.held + bytes > size)) {
			this.answers.clear();
			this.held = 0;
		}
		this.answers.set(ipAddress, found);
		this.held += bytes;
		return found;
	}
}
