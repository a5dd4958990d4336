/**
 * The arithmetic of a key's share (nodes/shared/engine/keyShare.ts, as built into dist/), with
 * the moments given: a 429 measures the others and the share drops to what got through, once
 * per round; probes take one request per window more, a refused one leaves the share, one that
 * held is kept; below one request per window a 429 moves the turn
 * before it halves the share. The timing itself is proven through n8n-core against the sandbox
 * (pacing and multi-process tests) and in simulated time (pacerSharing.test.ts).
 */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { KeyShare } =
	require('../../dist/nodes/shared/engine/keyShare.js') as typeof import('../../nodes/shared/engine/keyShare');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { Pacer } =
	require('../../dist/nodes/shared/engine/pacing.js') as typeof import('../../nodes/shared/engine/pacing');

type KeyShareOf = InstanceType<typeof KeyShare>;

const WINDOW = 1000;
/** 5/s: a probe waits for 60 of the key's requests, 12 s. */
const FIRST_WAIT = 12_000;

/** A share of 5/s and a clock, with the requests it sends answered as asked. */
function fiveAsecond() {
	const share = new KeyShare(5, WINDOW, 4);
	let now = 0;
	return {
		share,
		at: (moment: number) => (now = moment),
		count: () => share.current().count,
		ok: (departedAt = now - 5) => share.succeeded(departedAt, now),
		refused: (mine: number, departedAt = now - 5, epoch = share.epoch) =>
			share.refused(departedAt, epoch, mine, now),
	};
}

/** Starts a probe (a success once the wait is over) and sends its first request at `at`. */
function probe(key: ReturnType<typeof fiveAsecond>, at: number) {
	key.at(at);
	key.ok();
	expect(key.share.probeDue).toBe(true);
	key.share.probeSent(at);
	return at;
}

describe('a key shared with processes this one does not know', () => {
	it('starts with the whole key; a 429 cuts it to what got through in the window before, at least one less', () => {
		const key = fiveAsecond();
		expect(key.count()).toBe(5);
		key.at(1000);
		key.refused(2);
		expect(key.count()).toBe(2);
		const alone = fiveAsecond();
		alone.at(1000);
		alone.refused(5);
		expect(alone.count()).toBe(4);
	});

	it('cuts once per round: a 429 on a request that left before the cut is the same congestion', () => {
		const key = fiveAsecond();
		const before = key.share.epoch;
		key.at(1000);
		key.refused(3);
		key.at(1010);
		key.refused(1, 990, before);
		expect(key.count()).toBe(3);
		key.refused(1, 1005);
		expect(key.count()).toBe(1);
	});

	it('probes for one request per window more once the wait is over, not before', () => {
		const key = fiveAsecond();
		key.at(0);
		key.refused(2);
		key.at(FIRST_WAIT - 1);
		key.ok();
		expect(key.share.probeDue).toBe(false);
		expect(key.count()).toBe(2);
		key.at(FIRST_WAIT);
		key.ok();
		expect(key.share.probeDue).toBe(true);
		expect(key.count()).toBe(3);
	});

	it('a refused probe leaves the share as it was, and the next one waits as long again', () => {
		const key = fiveAsecond();
		key.at(0);
		key.refused(2);
		const sent = probe(key, FIRST_WAIT);
		key.at(sent + 20);
		key.refused(2, sent);
		expect(key.count()).toBe(2);
		key.at(sent + 20 + FIRST_WAIT - 1);
		key.ok();
		expect(key.share.probeDue).toBe(false);
		key.at(sent + 20 + FIRST_WAIT);
		key.ok();
		expect(key.share.probeDue).toBe(true);
	});

	it('a probe that holds for a window is kept, and the next one follows two windows later', () => {
		const key = fiveAsecond();
		key.at(0);
		key.refused(2);
		const sent = probe(key, FIRST_WAIT);
		key.at(sent + WINDOW + 10);
		key.ok(sent + WINDOW + 5);
		expect(key.share.probeDue).toBe(false);
		expect(key.count()).toBe(3);
		key.at(sent + 3 * WINDOW + 10);
		key.ok();
		expect(key.share.probeDue).toBe(true);
		expect(key.count()).toBe(4);
	});

	it('below one request per window: one every 2, 4... windows; a 429 first moves the turn, five in a row (counting the cut) halve it', () => {
		const share: KeyShareOf = new KeyShare(1, WINDOW, 20);
		share.refused(0, share.epoch, 0, 10);
		expect(share.current()).toEqual({ count: 1, windows: 2 });
		for (let refusal = 1; refusal < 4; refusal++) share.refused(0, share.epoch, 0, 10 + refusal);
		expect(share.current()).toEqual({ count: 1, windows: 2 });
		share.refused(0, share.epoch, 0, 20);
		expect(share.current()).toEqual({ count: 1, windows: 4 });
		// A success in between starts the count again.
		share.succeeded(30, 40);
		for (let refusal = 0; refusal < 4; refusal++) share.refused(0, share.epoch, 0, 50 + refusal);
		expect(share.current()).toEqual({ count: 1, windows: 4 });
	});

	it('never below 5% of the configured rate (one request in 16 windows at 1/s)', () => {
		const share: KeyShareOf = new KeyShare(1, WINDOW, 20);
		for (let refusal = 0; refusal < 200; refusal++) share.refused(0, share.epoch, 0, refusal);
		expect(share.current()).toEqual({ count: 1, windows: 16 });
	});

	it('pacing off: a turn at once, and a 429 changes nothing (the engine backs off instead)', async () => {
		const pacer = new Pacer(0);
		expect(pacer.paced).toBe(false);
		const turn = await pacer.waitTurn();
		pacer.refused(turn, 5000);
		expect(pacer.currentRate).toBe(0);
	});
});
