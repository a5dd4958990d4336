/**
 * Typed arrays that grow while a CSV streams in: a row costs its few bytes, never a JS object.
 * Capacity doubles, so appends are amortised O(1); `trimmed()` returns an exact-size copy.
 */
type TypedArray = Uint8Array | Uint32Array | BigUint64Array;

export class Growable<T extends TypedArray> {
	private data: T;

	length = 0;

	constructor(private readonly make: (size: number) => T, initial = 1024) {
		this.data = make(initial);
	}

	push(value: T[number]): void {
		if (this.length === this.data.length) {
			const bigger = this.make(this.data.length * 2);
			bigger.set(this.data as never);
			this.data = bigger;
		}
		(this.data as { [index: number]: T[number] })[this.length++] = value;
	}

	get(index: number): T[number] {
		return this.data[index];
	}

	trimmed(): T {
		return this.data.slice(0, this.length) as T;
	}
}

export const uint8s = () => new Growable((size) => new Uint8Array(size));
export const uint32s = () => new Growable((size) => new Uint32Array(size));
export const uint64s = () => new Growable((size) => new BigUint64Array(size));
