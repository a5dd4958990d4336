/** Host addresses after the first in an IPv4 block of each prefix 0..32 (a table, not a power per step). */
export const V4_HOSTS = Float64Array.from({ length: 33 }, (_, prefix) => 2 ** (32 - prefix) - 1);

/**
 * The CSV index's sweep (see `sweep` in networkSegments.ts) written out for IPv4 on plain numbers and
 * typed arrays: the geolocation CSV has millions of IPv4 rows, and the generic sweep's calls
 * through a space of closures were most of the index's finishing time. Same order, same output:
 * rows by start (wider first on a tie, then file order), the innermost open row answers, a
 * network listed twice keeps its last row.
 */
export function sweepV4(
	starts: Uint32Array,
	prefixes: Uint8Array,
	emit: (from: number, to: number, row: number) => void,
): void {
	const rows = prefixes.length;
	const compare = (a: number, b: number) =>
		starts[a] - starts[b] || prefixes[a] - prefixes[b] || a - b;
	let sorted = true;
	for (let row = 1; row < rows && sorted; row++) sorted = compare(row - 1, row) < 0;
	const order = sorted
		? undefined
		: Uint32Array.from({ length: rows }, (_, row) => row).sort(compare);

	const stack: number[] = [];
	let cursor = 0;
	const close = (until: number) => {
		// Closes every open row that ends before `until`: each answers from the cursor to its end.
		while (stack.length > 0) {
			const top = stack[stack.length - 1];
			const end = starts[top] + V4_HOSTS[prefixes[top]];
			if (end >= until) return;
			stack.pop();
			if (cursor <= end) emit(cursor, end, top);
			cursor = end + 1;
		}
	};
	for (let k = 0; k < rows; k++) {
		const row = order === undefined ? k : order[k];
		const start = starts[row];
		close(start);
		if (stack.length > 0) {
			const top = stack[stack.length - 1];
			if (cursor <= start - 1) emit(cursor, start - 1, top);
			if (starts[top] === start && prefixes[top] === prefixes[row]) stack.pop();
		}
		cursor = start;
		stack.push(row);
	}
	close(Infinity);
}
