import { sleep } from 'n8n-workflow';

import { KeyShare } from './keyShare';
import { PacingSlots } from './pacingSlots';

/**
 * Pacing per key and rate, shared by every run in this n8n process, and sharing the key with
 * other processes (queue-mode workers, other tools) without knowing them (keyShare.ts). The
 * service counts arrivals: at most N requests in any second. So request k leaves no sooner than
 * one second after request k-N was answered (or ARRIVAL_CAP_MS after it left, if sooner), which
 * no transit jitter can squeeze into N+1 arrivals. Requests leave on slots (pacingSlots.ts): a
 * process alone uses every one.
 */

/**
 * How long after leaving a request is taken to have arrived at the latest (see above). It is
 * what a slow service costs: one that answers in 500 ms is paced to 1/1.1 of a 1/s plan.
 * 50 ms was too short on a loaded 2-core machine (n8n's own work before the socket write
 * delayed arrivals past it: 429s at 5 and 20/s while requests still left in bursts); 100 ms
 * drew none, with other benchmarks running beside it.
 */
export const ARRIVAL_CAP_MS = 100;
/** Taking turns, a probe leaves this part of a slot after the turn before its own. */
const PROBE_AFTER_TURN = 0.25;
/** The share never drops below this part of the configured rate. */
const FLOOR = 0.05;

/** One request's passage through the pacer; the engine settles it with what came back. */
export interface Ticket {
	departedAt: number;
	settledAt?: number;
	/** The share's cut count when the request left: a 429 on an older request does not cut again. */
	epoch: number;
	refused?: boolean;
	/** A probe sent while taking turns: the slot of this process's turn it went before. */
	probeBefore?: number;
}

/** Time and chance as the pacer sees them: the real ones, or a simulation's (tests). */
export interface PacerClock {
	now(): number;
	sleep(ms: number): Promise<void>;
	random(): number;
}

const realClock: PacerClock = { now: () => Date.now(), sleep, random: () => Math.random() };

export class Pacer {
	/** The configured rate (0: pacing off). */
	readonly limit: number;

	private readonly perWindow: number;

	private readonly windowMs: number;

	private readonly slots: PacingSlots;

	private readonly share: KeyShare;

	/** Where the next request is due, in slots (fractional: a share of 3 in 5 slots steps 5/3). */
	private plannedSlot = 0;

	private lastSlot = -Infinity;

	private pausedUntil = 0;

	/** Whether the last request was a turn (below one request per window) that was refused. */
	private turnRefused = false;

	/** The last tickets (two windows' worth at the configured rate), oldest first. */
	private recent: Ticket[] = [];

	/** Departures happen one at a time, in the order callers asked for their turn. */
	private queue: Promise<unknown> = Promise.resolve();

	/**
	 * Resolved by the next answer. A departure that waits for its own window to open waits at
	 * most until then: the window counts from an unanswered request's arrival cap (100 ms after
	 * it left), and an answer that comes sooner opens it sooner. Without it, a worker running two
	 * executions at 1/s (a request always in flight when the next asks) was paced to 1/1.1.
	 */
	private answered?: { promise: Promise<void>; resolve: () => void };

	constructor(
		requestsPerSecond: number,
		private readonly clock: PacerClock = realClock,
	) {
		this.limit = Math.max(0, requestsPerSecond);
		this.perWindow = Math.max(1, Math.floor(this.limit));
		this.windowMs = this.limit > 0 ? (this.perWindow * 1000) / this.limit : 0;
		// Far, one window and the arrival cap (and the rule's millisecond) hold N slots exactly.
		this.slots = new PacingSlots(this.perWindow, this.windowMs, ARRIVAL_CAP_MS + 2);
		this.share = new KeyShare(
			this.perWindow,
			this.windowMs,
			Math.max(1, Math.floor(1 / (FLOOR * this.perWindow))),
		);
	}

	get paced(): boolean {
		return this.limit > 0;
	}

	/** This process's current rate for the key, for messages and benchmarks. */
	get currentRate(): number {
		if (!this.paced) return 0;
		return (this.share.perWindowNow * 1000) / this.windowMs;
	}

	/** Resolves when the caller may send its request; settle the ticket when its answer came. */
	async waitTurn(): Promise<Ticket> {
		if (!this.paced) return { departedAt: this.clock.now(), epoch: 0 };
		const turn = this.queue.then(async () => await this.depart());
		this.queue = turn.catch(() => undefined);
		return await turn;
	}

	private async depart(): Promise<Ticket> {
		// Never a slot that has passed: after an idle spell the next one comes.
		const asked = this.clock.now();
		let slot: number;
		let due: number;
		let step: number;
		let between = 0;
		// Re-checked after every sleep: an answer or a 429 may change the earliest moment.
		for (;;) {
			const now = this.clock.now();
			// The turns' slots follow the share held: a probe's request is sent on them too.
			const held = this.share.held();
			this.rescale(this.slots.takeTurns(this.wideTurns(held.windows)));
			// The nearest slot to the plan: rounding up at every step would lose a slot each time
			// the plan starts again (19 of 20 slots stepping 20/19 would take one in two).
			due = Math.round(this.plannedSlot);
			slot = Math.max(
				due,
				this.lastSlot + 1,
				this.slots.slotAt(this.pausedUntil),
				this.slots.slotAt(asked),
			);
			between = this.share.probeDue ? this.probeOffset(slot, held.windows) : 0;
			// A probe that does not fit before this turn waits for the next: this one is a turn.
			const { count, windows } = this.share.probeDue && !between ? held : this.share.current();
			step = (this.perWindow * windows) / count;
			const start = Math.max((slot + between) * this.slots.ms, this.windowOpensAt(count));
			if (start <= now) break;
			await Promise.race([this.clock.sleep(start - now), this.nextAnswer()]);
		}
		const ticket: Ticket = { departedAt: this.clock.now(), epoch: this.share.epoch };
		if (between) this.share.probeSent(ticket.departedAt);
		this.recent.push(ticket);
		if (this.recent.length > 2 * this.perWindow) this.recent.shift();
		if (between < 0) {
			// Taking turns, the probe went before this process's own turn, which still comes next.
			ticket.probeBefore = slot;
			this.lastSlot = Math.floor(ticket.departedAt / this.slots.ms);
			this.plannedSlot = slot;
			return ticket;
		}
		// The next slot follows the planned one, not the one taken: a share of 3 in 5 slots keeps
		// its rate although each request waits for a whole slot. After an idle spell, a pause or
		// a wait for an answer, the plan starts again from the slot taken.
		this.lastSlot = Math.max(slot, Math.floor(ticket.departedAt / this.slots.ms));
		const onPlan = slot === due && this.lastSlot === slot;
		this.plannedSlot = (onPlan ? this.plannedSlot : this.lastSlot) + step;
		return ticket;
	}

	/**
	 * Where a probe's first request leaves, in slots from `slot`, or 0 for not before this one.
	 * Sending on every slot, half a slot after it: after every process's request on that slot,
	 * so that on a full key the probe is the one refused. Taking turns, a quarter of a slot after
	 * the turn before its own (another process's, if any): late enough that the other's request
	 * arrived first, and within the same window counted from the clock's zero, so that a service
	 * counting fixed seconds refuses it too (seconds of this process's clock: a service whose own
	 * are offset from it sees the probe cross into the next one now and then, and take the key
	 * for a while: more 429s, within the targets in simulated time). When that window ends
	 * sooner, the probe waits for a later turn (the slots drift across the seconds: about three
	 * turns in four fit).
	 * (Half a slot after its own turn, the window before the probe held no one's request: the
	 * probe went through, and the other's next turn was refused instead.)
	 */
	private probeOffset(slot: number, windows: number): number {
		if (windows === 1) return 0.5;
		const other = (slot - 1) * this.slots.ms;
		const probe = other + PROBE_AFTER_TURN * this.slots.ms;
		const sameWindow = Math.floor(other / this.windowMs) === Math.floor(probe / this.windowMs);
		return sameWindow ? PROBE_AFTER_TURN - 1 : 0;
	}

	private async nextAnswer(): Promise<void> {
		if (!this.answered) {
			let resolve = () => {};
			const promise = new Promise<void>((done) => (resolve = done));
			this.answered = { promise, resolve };
		}
		return await this.answered.promise;
	}

	/**
	 * One window after the arrival of the request `count` places back: what keeps this process's
	 * own arrivals within its count, whatever the slots (below one per window, the slots alone
	 * space the requests further).
	 */
	private windowOpensAt(count: number): number {
		// Refused requests do not count: the service did not take them (and one that waited for
		// its own refusal would come late to every slot it shares, and never win it).
		const counted = this.recent.filter((ticket) => !ticket.refused);
		if (counted.length < count) return 0;
		const oldest = counted[counted.length - count];
		const arrivedBy = Math.min(oldest.settledAt ?? Infinity, oldest.departedAt + ARRIVAL_CAP_MS);
		// One millisecond more: the service's clock counts whole milliseconds too.
		return arrivedBy + this.windowMs + 1;
	}

	/** Every answer: the ticket's time, and the slots follow the answers' times. */
	private settle(ticket: Ticket): number {
		ticket.settledAt ??= this.clock.now();
		if (!this.paced) return ticket.settledAt;
		const { answered } = this;
		this.answered = undefined;
		answered?.resolve();
		this.rescale(this.slots.observe(ticket.settledAt - ticket.departedAt));
		return ticket.settledAt;
	}

	/**
	 * Turns on the wider slots (pacingSlots.ts) while they hold; after a refused turn, the next
	 * one leaves on the slots of a process that has the key to itself: that process, which no
	 * 429 has told of anyone else, sends on every one of them, and only a request on the same
	 * moment can take one from it (then which of the two the service refuses is chance). Once it
	 * did, that process is refused too and takes turns as well.
	 */
	private wideTurns(windows: number): boolean {
		return windows > 1 && !this.turnRefused;
	}

	/** The slots changed length: a plan counted in slots follows (`scale` new slots to an old). */
	private rescale(scale: number | undefined): void {
		if (scale === undefined) return;
		this.plannedSlot *= scale;
		this.lastSlot = Math.floor(this.lastSlot * scale);
	}

	/** The request was answered (or failed) without a 429. */
	succeeded(ticket: Ticket): void {
		const settledAt = this.settle(ticket);
		this.turnRefused = false;
		if (this.paced) this.share.succeeded(ticket.departedAt, settledAt);
	}

	/** The answer was not a rate refusal, but not a success either (5xx, network). */
	failed(ticket: Ticket): void {
		this.settle(ticket);
	}

	/**
	 * The key was refused (429): the share drops to what this process got through in the window
	 * before (keyShare.ts), and the process pauses for Retry-After when the service sent one,
	 * plus a random part of an interval, so that processes fall out of step.
	 */
	refused(ticket: Ticket, retryAfterMs: number | undefined, random = this.clock.random): void {
		const settledAt = this.settle(ticket);
		ticket.refused = true;
		if (!this.paced) return;
		const mine = this.recent.filter(
			(other) =>
				!other.refused &&
				other.departedAt < ticket.departedAt &&
				other.departedAt > ticket.departedAt - this.windowMs,
		).length;
		this.share.refused(ticket.departedAt, ticket.epoch, mine, settledAt);
		const { count, windows } = this.share.current();
		if (ticket.probeBefore !== undefined) {
			// Another process still takes the turns between this one's: they stand as they were.
			const turn = ticket.probeBefore;
			this.plannedSlot = this.lastSlot < turn ? turn : turn + this.perWindow * windows;
			return;
		}
		this.turnRefused = windows > 1;
		this.rescale(this.slots.takeTurns(this.wideTurns(windows)));
		if (retryAfterMs) this.pausedUntil = Math.max(this.pausedUntil, settledAt + retryAfterMs);
		if (windows > 1) {
			// Below one request per window the slot was another process's turn: take another slot
			// of the cycle, never the same one again. Counted from the refused slot, not held
			// to the plan: the plan was already a whole cycle on, so no turn ever moved.
			const cycle = this.perWindow * windows;
			const slot = Math.floor(ticket.departedAt / this.slots.ms);
			this.plannedSlot = Math.max(this.lastSlot + 1, slot + 1 + Math.floor(random() * (cycle - 1)));
		} else {
			const pause = (random() * this.windowMs) / count;
			this.pausedUntil = Math.max(this.pausedUntil, settledAt + pause);
		}
	}
}

const pacers = new Map<string, Pacer>();

/** The pacer of a key at a rate in this process (an unpaced one, holding only state, at 0). */
export function pacerFor(keyIdentity: string, requestsPerSecond: number): Pacer {
	const id = `${keyIdentity}@${requestsPerSecond}`;
	let pacer = pacers.get(id);
	if (!pacer) {
		pacer = new Pacer(requestsPerSecond);
		pacers.set(id, pacer);
	}
	return pacer;
}

/**
 * How many items may be in flight: one at a time on a one-a-second plan, more as the rate
 * allows. Pacing off (a plan without a per-second limit) allows 32: against a service 50 ms
 * away, 8 in flight capped a run at 160 items a second, below n8n's HTTP Request node, which
 * sends every item at once.
 */
export function concurrencyFor(requestsPerSecond: number): number {
	if (requestsPerSecond <= 0) return 32;
	return Math.min(8, Math.max(1, Math.floor(requestsPerSecond)));
}
