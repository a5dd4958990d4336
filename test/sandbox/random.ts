/**
 * Deterministic random numbers (mulberry32) for the sandbox, the tests and the benchmarks: the
 * same seed gives the same sequence on every run, so a failing case or a measured run can be
 * repeated exactly.
 */
export function random32(seed: number): () => number {
	let state = seed >>> 0;
	return () => {
		state = (state + 0x6d2b79f5) >>> 0;
		let mixed = state;
		mixed = Math.imul(mixed ^ (mixed >>> 15), mixed | 1);
		mixed ^= mixed + Math.imul(mixed ^ (mixed >>> 7), mixed | 61);
		return (mixed ^ (mixed >>> 14)) >>> 0;
	};
}

/** The same sequence as fractions in [0, 1), like Math.random. */
export function randomFraction(seed: number): () => number {
	const next = random32(seed);
	return () => next() / 4294967296;
}
