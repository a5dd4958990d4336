/**
 * The pacer's arithmetic (nodes/shared/engine/pacing.ts, as built into dist/), with the moments given
 * on the tickets: a 429 lowers the share by whole requests per window, once per round; the
 * rate comes back one request per window 8 s after the cut; it never falls below its floor.
 * The timing itself is proven through n8n-core against the sandbox (pacing and
 * multi-process tests).
 */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { Pacer } =
	require('../../dist/nodes/shared/engine/pacing.js') as typeof import('../../nodes/shared/engine/pacing');

const ticket = (departedAt: number, epoch: number, settledAt: number) => ({
	departedAt,
	epoch,
	settledAt,
});
const noJitter = () => 0;

describe('pacer', () => {
	it('a 429 drops at least one request per window (5/s -> 3.75/s, 3 per window), once per round', () => {
		const pacer = new Pacer(5);
		pacer.refused(ticket(900, 0, 1000), undefined, noJitter);
		expect(pacer.currentRate).toBeCloseTo(3.75);
		// Another 429 on a request that left before the cut is the same congestion.
		pacer.refused(ticket(950, 0, 1010), undefined, noJitter);
		expect(pacer.currentRate).toBeCloseTo(3.75);
		// One that left after it is a new one: 3 per window -> 2.
		pacer.refused(ticket(1500, 1, 1600), undefined, noJitter);
		expect(pacer.currentRate).toBeCloseTo(2);
	});

	it('successes win back one request per window 8 s after the cut, however they are spaced', () => {
		const once = new Pacer(5);
		once.refused(ticket(0, 0, 1000), undefined, noJitter);
		once.succeeded(ticket(8900, 1, 9000));
		const often = new Pacer(5);
		often.refused(ticket(0, 0, 1000), undefined, noJitter);
		for (let at = 1100; at <= 9000; at += 100) often.succeeded(ticket(at - 50, 1, at));
		expect(once.currentRate).toBeCloseTo(4.75);
		expect(often.currentRate).toBeCloseTo(4.75);
		once.succeeded(ticket(60_000, 1, 60_000));
		expect(once.currentRate).toBe(5);
	});

	it('never below 5% of the configured rate, and a 1/s key stretches its window instead', () => {
		const pacer = new Pacer(1);
		for (let round = 0; round < 30; round++)
			pacer.refused(ticket(round * 10, round, round * 10 + 5), undefined, noJitter);
		expect(pacer.currentRate).toBeCloseTo(0.05);
	});

	it('pacing off: a turn at once, and a 429 changes nothing (the engine backs off instead)', async () => {
		const pacer = new Pacer(0);
		expect(pacer.paced).toBe(false);
		const turn = await pacer.waitTurn();
		pacer.refused(turn, 5000);
		expect(pacer.currentRate).toBe(0);
	});
});
