/**
 * A table from byte strings to numbers, keyed by the bytes themselves: the CSV index looks every
 * row's record key up here (millions of rows) straight from the chunk, so a row makes no key
 * string. Hashing and comparing read four bytes at a time through DataViews: the key lookup
 * costs about half of a latin1 key string with a Map (bench/ipLookup.ts).
 * Open addressing over typed arrays; each distinct key's bytes are kept once and compared in
 * full on a hash match, so two keys are the same only if their bytes are.
 */
export class ByteKeys {
	/** per slot: the entry's index + 1; 0 is an empty slot */
	private slots = new Int32Array(1024);

	private hashes = new Int32Array(256);

	private starts = new Int32Array(256);

	private lengths = new Int32Array(256);

	private values = new Int32Array(256);

	/** the distinct keys' bytes, one after another */
	private pool = new Uint8Array(16 * 1024);

	private poolView = new DataView(this.pool.buffer);

	private poolLength = 0;

	private count = 0;

	/** the bytes of the last lookup and a DataView over them (one per chunk, not per row) */
	private viewed: Uint8Array | undefined;

	private view: DataView<ArrayBufferLike> = new DataView(new ArrayBuffer(0));

	/** The value stored for bytes[from, to), or -1. */
	get(bytes: Uint8Array, from: number, to: number): number {
		const view = this.viewOf(bytes);
		const hash = hashOf(view, bytes, from, to);
		const length = to - from;
		const { slots, hashes, lengths, starts, pool, poolView } = this;
		const mask = slots.length - 1;
		for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
			const entry = slots[slot];
			if (entry === 0) return -1;
			const index = entry - 1;
			if (hashes[index] !== hash || lengths[index] !== length) continue;
			const start = starts[index];
			let k = 0;
			while (
				k + 4 <= length &&
				poolView.getInt32(start + k, true) === view.getInt32(from + k, true)
			)
				k += 4;
			while (k < length && pool[start + k] === bytes[from + k]) k++;
			if (k === length) return this.values[index];
		}
	}

	/** Stores `value` for bytes[from, to), which `get` has just not found; returns the key's entry number (0, 1, ...). */
	set(bytes: Uint8Array, from: number, to: number, value: number): number {
		const length = to - from;
		if (this.count === this.hashes.length) this.growEntries();
		if ((this.count + 1) * 2 > this.slots.length) this.growSlots();
		if (this.poolLength + length > this.pool.length) {
			const pool = new Uint8Array(Math.max(this.pool.length * 2, this.poolLength + length));
			pool.set(this.pool.subarray(0, this.poolLength));
			this.pool = pool;
			this.poolView = new DataView(pool.buffer);
		}
		const index = this.count++;
		this.pool.set(bytes.subarray(from, to), this.poolLength);
		this.starts[index] = this.poolLength;
		this.poolLength += length;
		this.lengths[index] = length;
		this.values[index] = value;
		this.hashes[index] = hashOf(this.viewOf(bytes), bytes, from, to);
		this.place(index);
		return index;
	}

	/**
	 * The distinct keys' bytes (entry k is pool[starts[k], starts[k] + lengths[k])), as arrays of
	 * their size, for a caller that keeps the keys after the table is let go.
	 */
	keys(): { pool: Uint8Array; starts: Int32Array; lengths: Int32Array } {
		return {
			pool: this.pool.slice(0, this.poolLength),
			starts: this.starts.slice(0, this.count),
			lengths: this.lengths.slice(0, this.count),
		};
	}

	private viewOf(bytes: Uint8Array): DataView {
		if (bytes !== this.viewed) {
			this.viewed = bytes;
			this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
		}
		return this.view;
	}

	private place(index: number): void {
		const mask = this.slots.length - 1;
		let slot = this.hashes[index] & mask;
		while (this.slots[slot] !== 0) slot = (slot + 1) & mask;
		this.slots[slot] = index + 1;
	}

	private growEntries(): void {
		const grow = (array: Int32Array) => {
			const grown = new Int32Array(array.length * 2);
			grown.set(array);
			return grown;
		};
		this.hashes = grow(this.hashes);
		this.starts = grow(this.starts);
		this.lengths = grow(this.lengths);
		this.values = grow(this.values);
	}

	private growSlots(): void {
		this.slots = new Int32Array(this.slots.length * 2);
		for (let index = 0; index < this.count; index++) this.place(index);
	}
}

/** A 32-bit hash of bytes[from, to): FNV-style over four bytes at a time, then the last few. */
function hashOf(view: DataView, bytes: Uint8Array, from: number, to: number): number {
	let hash = 0x811c9dc5 ^ (to - from);
	let k = from;
	for (; k + 4 <= to; k += 4)
		hash = Math.imul(hash ^ view.getInt32(k, true), 0x01000193) ^ (hash >>> 15);
	for (; k < to; k++) hash = Math.imul(hash ^ bytes[k], 0x01000193);
	return hash;
}
