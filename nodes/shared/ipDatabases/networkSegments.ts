/**
 * A CSV's networks as disjoint segments: asn keeps the longest prefix, security the most specific
 * row, geolocation is disjoint, so all three answer with the most specific network that covers
 * the address, and nested networks are flattened into segments, each answered by its innermost
 * row. Rows in order and none nested (a geolocation CSV) are their own segments, not copied.
 */

import { ALL_64, hostMask } from './addressNumbers';
import { uint32s, uint64s, uint8s, type Growable } from './growable';
import { sweepV4, V4_HOSTS } from './sweepV4';

/**
 * Disjoint segments, sorted, each answered by one row: its first and last address, the row's
 * prefix and record. IPv4 as numbers; IPv6 as two 64-bit halves each.
 */
export interface Segments {
	/** IPv4: one uint32 per segment; IPv6: high and low 64-bit halves per segment. */
	starts: Uint32Array | BigUint64Array;
	/** Absent when each segment is its row's whole network (IPv4 rows in order, none nested): its end follows from the prefix. */
	ends?: Uint32Array | BigUint64Array;
	prefixes: Uint8Array;
	recordIds: Uint32Array;
	count: number;
}

/**
 * Rows sorted by start (wider first on a tie), then swept with a stack of open networks: CIDR
 * blocks nest or are disjoint, so the innermost open row answers until it closes. A network
 * listed twice keeps its last row. IPv6 works on BigInts here; IPv4 has its own copy on plain
 * numbers (sweepV4.ts: no BigInt and no closure per row, the geolocation CSV has millions).
 */
interface Space<T extends number | bigint> {
	rows: number;
	startOf(row: number): T;
	endOf(row: number): T;
	/** value + 1 and value - 1 */
	step(value: T, by: 1 | -1): T;
	zero: T;
}

function sweep<T extends number | bigint>(
	space: Space<T>,
	prefixes: Uint8Array,
	emit: (from: T, to: T, row: number) => void,
): void {
	const { rows, startOf, endOf } = space;
	let order = Array.from({ length: rows }, (_, row) => row);
	const compare = (a: number, b: number) => {
		const startA = startOf(a);
		const startB = startOf(b);
		return startA < startB ? -1 : startA > startB ? 1 : prefixes[a] - prefixes[b] || a - b;
	};
	let sorted = true;
	for (let index = 1; index < rows && sorted; index++)
		sorted = compare(order[index - 1], order[index]) < 0;
	if (!sorted) order = order.sort(compare);

	const put = (from: T, to: T, row: number) => {
		if (from <= to) emit(from, to, row);
	};
	const stack: number[] = [];
	let cursor = space.zero;
	for (const row of order) {
		const start = startOf(row);
		while (stack.length > 0 && endOf(stack[stack.length - 1]) < start) {
			const closing = stack.pop()!;
			put(cursor, endOf(closing), closing);
			cursor = space.step(endOf(closing), 1);
		}
		const top = stack[stack.length - 1];
		if (top !== undefined) {
			put(cursor, space.step(start, -1), top);
			if (startOf(top) === start && prefixes[top] === prefixes[row]) stack.pop();
		}
		cursor = start;
		stack.push(row);
	}
	while (stack.length > 0) {
		const closing = stack.pop()!;
		put(cursor, endOf(closing), closing);
		cursor = space.step(endOf(closing), 1);
	}
}

export function flattenV4(
	startsIn: Growable<Uint32Array>,
	prefixesIn: Growable<Uint8Array>,
	recordIdsIn: Growable<Uint32Array>,
): Segments {
	const starts = startsIn.trimmed();
	const prefixes = prefixesIn.trimmed();
	const recordIds = recordIdsIn.trimmed();
	// Rows in order and none inside another (a geolocation CSV): the rows are the segments, kept as they are.
	if (sortedAndDisjoint(starts, prefixes))
		return { starts, prefixes, recordIds, count: prefixes.length };
	const out = { starts: uint32s(), ends: uint32s(), prefixes: uint8s(), recordIds: uint32s() };
	sweepV4(starts, prefixes, (from, to, row) => {
		out.starts.push(from);
		out.ends.push(to);
		out.prefixes.push(prefixes[row]);
		out.recordIds.push(recordIds[row]);
	});
	return trimmedSegments(out);
}

/** The swept segments as the index keeps them: each array at its length. */
function trimmedSegments<Start extends Uint32Array | BigUint64Array>(out: {
	starts: Growable<Start>;
	ends: Growable<Start>;
	prefixes: Growable<Uint8Array>;
	recordIds: Growable<Uint32Array>;
}): Segments {
	return {
		starts: out.starts.trimmed(),
		ends: out.ends.trimmed(),
		prefixes: out.prefixes.trimmed(),
		recordIds: out.recordIds.trimmed(),
		count: out.prefixes.length,
	};
}

/** Whether each row starts after the one before it ends: then no sweep is needed. */
function sortedAndDisjoint(starts: Uint32Array, prefixes: Uint8Array): boolean {
	for (let row = 1; row < prefixes.length; row++) {
		if (starts[row] <= starts[row - 1] + V4_HOSTS[prefixes[row - 1]]) return false;
	}
	return true;
}

/** sortedAndDisjoint for IPv6 rows (as 64-bit halves): each row starts after the one before it ends. */
function sortedAndDisjointV6(halves: BigUint64Array, prefixes: Uint8Array): boolean {
	let end = -1n;
	for (let row = 0; row < prefixes.length; row++) {
		const start = (halves[row * 2] << 64n) | halves[row * 2 + 1];
		if (start <= end) return false;
		end = start | hostMask(prefixes[row], 128);
	}
	return true;
}

export function flattenV6(
	startsIn: Growable<BigUint64Array>,
	prefixesIn: Growable<Uint8Array>,
	recordIdsIn: Growable<Uint32Array>,
): Segments {
	const halves = startsIn.trimmed();
	const prefixes = prefixesIn.trimmed();
	const recordIds = recordIdsIn.trimmed();
	if (sortedAndDisjointV6(halves, prefixes))
		return { starts: halves, prefixes, recordIds, count: prefixes.length };
	const starts = Array.from(
		{ length: prefixes.length },
		(_, row) => (halves[row * 2] << 64n) | halves[row * 2 + 1],
	);
	const out = { starts: uint64s(), ends: uint64s(), prefixes: uint8s(), recordIds: uint32s() };
	sweep<bigint>(
		{
			rows: prefixes.length,
			startOf: (row) => starts[row],
			endOf: (row) => starts[row] | hostMask(prefixes[row], 128),
			step: (value, by) => value + BigInt(by),
			zero: 0n,
		},
		prefixes,
		(from, to, row) => {
			out.starts.push(from >> 64n);
			out.starts.push(from & ALL_64);
			out.ends.push(to >> 64n);
			out.ends.push(to & ALL_64);
			out.prefixes.push(prefixes[row]);
			out.recordIds.push(recordIds[row]);
		},
	);
	return trimmedSegments(out);
}
