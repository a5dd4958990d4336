import { sleep } from 'n8n-workflow';

/**
 * Pacing per key and rate, shared by every run in this n8n process, and adapting to other
 * processes on the same key (queue-mode workers, other tools) without knowing them. The service
 * counts arrivals: at most N requests in any second. So request k leaves no sooner than one
 * second after request k-N was answered (or ARRIVAL_CAP_MS after it left, if sooner), which no
 * transit jitter can squeeze into N+1 arrivals, and requests between are spread 1/rate apart.
 * A 429 lowers this process's share and pauses it; successes win the rate back (see share()).
 */

/**
 * How long after leaving a request is taken to have arrived at the latest (see above). It is
 * what a slow service costs: one that answers in 500 ms is paced to 1/1.1 of a 1/s plan.
 * 50 ms was too short on a loaded 2-core machine (n8n's own work before the socket write
 * delayed arrivals past it: 429s at 5 and 20/s while requests still left in bursts); 100 ms
 * drew none, with other benchmarks running beside it.
 */
export const ARRIVAL_CAP_MS = 100;
/** Multiplicative decrease on a 429. */
const DECREASE = 0.75;
/**
 * Increase: one more request per window is won back PROBE_SECONDS after a 429, and faster and
 * faster after that (the rate grows with the square of the time since the cut). With several
 * processes on a full key, each step up is a probe that costs a 429, so probes are seconds
 * apart; a process left alone on the key wins the whole rate back within a few probe times.
 */
const PROBE_SECONDS = 8;
/** The rate never drops below this share of the configured rate. */
const FLOOR = 0.05;

/** One request's passage through the pacer; the engine settles it with what came back. */
export interface Ticket {
	departedAt: number;
	settledAt?: number;
	/** The decrease count when the request left: a 429 on an older request does not cut again. */
	epoch: number;
}

export class Pacer {
	/** The configured rate (0: pacing off). */
	readonly limit: number;

	/** This process's current rate for the key, between FLOOR*limit and limit. */
	private rate: number;

	private readonly perWindow: number;

	private readonly windowMs: number;

	private nextStart = 0;

	private pausedUntil = 0;

	private epoch = 0;

	private lastIncrease = 0;

	private lastDecrease = 0;

	/** The last tickets (at most one window's worth at the configured rate), oldest first. */
	private recent: Ticket[] = [];

	/** Departures happen one at a time, in the order callers asked for their turn. */
	private queue: Promise<unknown> = Promise.resolve();

	constructor(requestsPerSecond: number) {
		this.limit = Math.max(0, requestsPerSecond);
		this.rate = this.limit;
		this.perWindow = Math.max(1, Math.floor(this.limit));
		this.windowMs = this.limit > 0 ? (this.perWindow * 1000) / this.limit : 0;
	}

	get paced(): boolean {
		return this.limit > 0;
	}

	/** The current rate, for messages and benchmarks. */
	get currentRate(): number {
		return this.rate;
	}

	/** Resolves when the caller may send its request; settle the ticket when its answer came. */
	async waitTurn(): Promise<Ticket> {
		if (!this.paced) return { departedAt: Date.now(), epoch: 0 };
		const turn = this.queue.then(async () => await this.depart());
		this.queue = turn.catch(() => undefined);
		return await turn;
	}

	/**
	 * This process's share of the key as whole requests per window: `count` requests in any
	 * `windowMs`. Whole counts are what make sharing work without coordination: if every
	 * process sharing a key keeps to its own count per window, arrivals from all of them stay
	 * under the limit whatever their phases, as soon as the counts add up to the limit.
	 * Below one per window, the window stretches instead (one request every 1/rate). A 429 lowers
	 * it (one request per window less at least, x0.75 when higher, once per round of requests) and
	 * pauses the process for Retry-After plus a random part of an interval, so that processes fall
	 * out of step; while requests succeed it comes back, faster with the time since the last 429.
	 */
	private share(): { count: number; windowMs: number } {
		const perWindow = (this.rate * this.windowMs) / 1000;
		if (perWindow < 1) return { count: 1, windowMs: 1000 / this.rate };
		return { count: Math.floor(perWindow + 1e-9), windowMs: this.windowMs };
	}

	private async depart(): Promise<Ticket> {
		// Re-checked after every sleep: an answer or a 429 may change the earliest moment.
		let start: number;
		let share = this.share();
		for (;;) {
			const now = Date.now();
			share = this.share();
			start = Math.max(this.nextStart, this.pausedUntil, this.windowOpensAt(share));
			if (start <= now) break;
			await sleep(start - now);
		}
		const ticket: Ticket = { departedAt: Date.now(), epoch: this.epoch };
		// The next slot follows the planned moment, not the actual one: a timer that fires a
		// millisecond late must not cost a millisecond per request (5% at 20/s). The window
		// rule above, not this spacing, is what keeps arrivals under the limit.
		// After an idle spell the planned moment is long past: then spacing starts from now.
		const interval = share.windowMs / share.count;
		const late = ticket.departedAt - start;
		this.nextStart = (late < interval / 2 ? start : ticket.departedAt) + interval;
		this.recent.push(ticket);
		if (this.recent.length > this.perWindow) this.recent.shift();
		return ticket;
	}

	/** One window after the arrival of the request `count` places back, when there are that many. */
	private windowOpensAt({ count, windowMs }: { count: number; windowMs: number }): number {
		if (this.recent.length < count) return 0;
		const oldest = this.recent[this.recent.length - count];
		const arrivedBy = Math.min(oldest.settledAt ?? Infinity, oldest.departedAt + ARRIVAL_CAP_MS);
		// One millisecond more: the service's clock counts whole milliseconds too.
		return arrivedBy + windowMs + 1;
	}

	/** The request was answered (or failed) without a 429: rate is won back with time. */
	succeeded(ticket: Ticket): void {
		ticket.settledAt ??= Date.now();
		if (!this.paced) return;
		const now = ticket.settledAt;
		if (this.rate >= this.limit) return;
		// rate(t) = rate at the cut + oneCount * (t / PROBE)^2, t seconds after the last 429:
		// one request per window more at t = PROBE, whatever the spacing of the successes.
		const before = Math.max(0, this.lastIncrease - this.lastDecrease) / 1000;
		const after = Math.max(0, now - this.lastDecrease) / 1000;
		this.lastIncrease = now;
		const oneCount = 1000 / this.windowMs;
		this.rate = Math.min(
			this.limit,
			this.rate + (oneCount * (after ** 2 - before ** 2)) / PROBE_SECONDS ** 2,
		);
	}

	/** The answer was not a rate refusal, but not a success either (5xx, network). */
	failed(ticket: Ticket): void {
		ticket.settledAt ??= Date.now();
	}

	/**
	 * The key was refused (429): lower this process's rate (once per round: 429s on requests
	 * that left before the last decrease are the same congestion) and pause, for Retry-After
	 * when the service sent one, plus a random part of an interval.
	 */
	refused(ticket: Ticket, retryAfterMs: number | undefined, random = Math.random): void {
		ticket.settledAt ??= Date.now();
		if (!this.paced) return;
		if (ticket.epoch === this.epoch) {
			this.epoch++;
			// At least one request per window less (whole counts, see share()), more when the
			// rate is high: the process's share falls fast when several start at once.
			const oneCountLess = ((this.share().count - 1) * 1000) / this.windowMs;
			this.rate = Math.max(
				this.limit * FLOOR,
				Math.min(this.rate * DECREASE, oneCountLess || this.rate * DECREASE),
			);
			this.lastIncrease = ticket.settledAt;
			this.lastDecrease = ticket.settledAt;
		}
		// A random part of an interval on top, so that processes fall out of step; the lower
		// count per window (share()) does the rest of the waiting.
		const { count, windowMs } = this.share();
		const pause = (retryAfterMs ?? 0) + random() * (windowMs / count);
		this.pausedUntil = Math.max(this.pausedUntil, ticket.settledAt + pause);
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
