import { createHash } from 'crypto';

/**
 * Deterministic "random" choices derived from a request's input: the same input always gets the
 * same record, different inputs get varied but realistic ones, and a test can rebuild the record
 * it expects by calling the module's record function with the same input.
 */
export interface Seeded {
	/** A whole number from 0 to below `bound`. */
	int(bound: number): number;
	/** A whole number from `min` to `max`, both included. */
	between(min: number, max: number): number;
	pick<T>(items: readonly T[]): T;
	/** True with the given probability (0 to 1). */
	chance(probability: number): boolean;
	/** Some distinct items, in their original order. */
	some<T>(items: readonly T[], count: number): T[];
}

export function seeded(input: string): Seeded {
	let counter = 0;
	const next = () => createHash('sha256').update(`${input}\n${counter++}`).digest().readUInt32BE(0);
	const int = (bound: number) => next() % bound;
	return {
		int,
		between: (min, max) => min + int(max - min + 1),
		pick: (items) => items[int(items.length)],
		chance: (probability) => next() / 0x1_0000_0000 < probability,
		some: (items, count) => {
			const chosen = new Set<number>();
			while (chosen.size < Math.min(count, items.length)) chosen.add(int(items.length));
			return [...chosen].sort((a, b) => a - b).map((index) => items[index]);
		},
	};
}

/** The sandbox's fixed "today", so dates and ages do not drift between a test and its expectation. */
export const SANDBOX_TODAY = Date.UTC(2026, 10, 21, 12, 0, 0);

const DAY_MS = 86_400_000;

/** A date `daysAgo` days before the sandbox's today, as YYYY-MM-DD. */
export function dateDaysAgo(daysAgo: number): string {
	return new Date(SANDBOX_TODAY - daysAgo * DAY_MS).toISOString().slice(0, 10);
}

/** A timestamp `daysAgo` days (plus `seconds`) before the sandbox's today, as YYYY-MM-DDThh:mm:ssZ. */
export function timestampDaysAgo(daysAgo: number, seconds = 0): string {
	return new Date(SANDBOX_TODAY - daysAgo * DAY_MS - seconds * 1000)
		.toISOString()
		.replace(/\.\d{3}Z$/, 'Z');
}
