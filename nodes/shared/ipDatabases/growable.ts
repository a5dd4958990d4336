/**
 * Typed arrays that grow while a CSV streams in: a row costs its few bytes, never a JS object.
 * Capacity doubles, so appends are amortised O(1); a builder that can estimate its row count
 * (from the file's size) reserves it once instead, so no doubling leaves half an array unused
 * and no copy doubles the peak. `trimmed()` copies only when much of the capacity is unused.
 */
type TypedArray = Uint8Array | Uint32Array | Int32Array | BigUint64Array;

/** Unused capacity `trimmed()` keeps rather than copy the array (a copy briefly holds both). */
const KEEP_SLACK = 1 / 16;

export class Growable<T extends TypedArray> {
	private data: T;

	length = 0;

	constructor(
		private readonly make: (size: number) => T,
		initial = 1024,
	) {
		this.data = make(initial);
	}

	push(value: T[number]): void {
		if (this.length === this.data.length) this.resize(this.data.length * 2);
		(this.data as { [index: number]: T[number] })[this.length++] = value;
	}

	/** Room for `capacity` values in all, allocated now (an estimate; push still grows past it). */
	reserve(capacity: number): void {
		if (capacity > this.data.length) this.resize(Math.ceil(capacity));
	}

	private resize(capacity: number): void {
		const bigger = this.make(capacity);
		bigger.set(this.data.subarray(0, this.length) as never);
		this.data = bigger;
	}

	get(index: number): T[number] {
		return this.data[index];
	}

	/** The values as an array of their length: a view when little capacity is unused, else a copy. */
	trimmed(): T {
		if (this.data.length - this.length <= this.data.length * KEEP_SLACK)
			return this.data.subarray(0, this.length) as T;
		return this.data.slice(0, this.length) as T;
	}
}

export const uint8s = () => new Growable((size) => new Uint8Array(size));
export const uint32s = () => new Growable((size) => new Uint32Array(size));
export const uint64s = () => new Growable((size) => new BigUint64Array(size));
export const int32s = () => new Growable((size) => new Int32Array(size));
