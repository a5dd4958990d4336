/**
 * This process's share of a key that other processes may be using too (queue-mode workers,
 * other instances, other tools), learnt from the service's answers alone: no process knows the
 * others, and a refused request tells only the process that sent it.
 *
 * A share is a whole number of requests per window (the service's second): if every process
 * keeps to its own count, their arrivals together stay within the limit whatever their phases
 * as soon as the counts add up to the limit, so a key shared that way draws no 429 at all.
 * Below one request per window (more processes than the limit has requests in a window) a share
 * is one request every 2, 4, 8... windows, and the pacer's slots make the turns (pacing.ts).
 *
 * - A 429 measures the others: the window before the refused request was full, and this process
 *   knows how many of its own requests were in it; the others took the rest. The share drops to
 *   what this process got through in that window (at least one request less), so processes
 *   that start together settle on counts that add up to the limit after a 429 or two each.
 * - Nothing says when another process stops: a share grows only by probing, one request per
 *   window more at a time. A probe's first request leaves between two slots, so that on a full
 *   key it is the one refused, not another process's request on the next slot (a probe takes
 *   nothing from anyone). A refused probe leaves the share as it was until the next one; a probe
 *   that holds is kept, and the next one follows two windows later: a process left alone wins
 *   the whole rate back in seconds.
 */

/**
 * How long after a 429 a share probes for more, in the key's own requests: 60 of them (12 s at
 * 5/s, a minute at 1/s). A refused probe costs one 429, so a process on a full key draws one 429
 * in 60 of the key's requests that way; longer waits (doubling them after each refused probe was
 * tried) left a process alone at a third of the key for up to twice as long after the others
 * stopped, for a third fewer 429s.
 */
const PROBE_AFTER_KEY_REQUESTS = 60;
/**
 * After a probe that held, the next one follows this many windows later: sooner, its first
 * request would find room while the last increase is still filling the window.
 */
const PROBE_AGAIN_WINDOWS = 2;
/** Below one request per window, this many 429s in a row halve the share (fewer move the turn). */
const REFUSALS_TO_HALVE = 5;

/** A share: `count` requests in any `windows` consecutive windows. */
export interface Share {
	count: number;
	windows: number;
}

function shareAt(level: number): Share {
	return level >= 1 ? { count: level, windows: 1 } : { count: 1, windows: 2 ** (1 - level) };
}

export class KeyShare {
	/** count per window from 1 up; 0 and below: one request every 2^(1 - level) windows. */
	private level: number;

	private readonly top: number;

	private readonly bottom: number;

	private readonly waitMs: number;

	private probeAt = 0;

	/** A probe for one request per window more: counted from its first request, kept once it held. */
	private probe?: { sentAt?: number };

	private refusalsInARow = 0;

	/** Raised by every cut: a 429 on a request sent before it is the same congestion. */
	epoch = 0;

	/**
	 * `perWindow` requests per `windowMs` is the whole key; the share never falls below one
	 * request in `mostWindows` windows.
	 */
	constructor(
		perWindow: number,
		private readonly windowMs: number,
		mostWindows: number,
	) {
		this.top = perWindow;
		this.level = perWindow;
		this.bottom = 1 - Math.floor(Math.log2(Math.max(1, mostWindows)));
		this.waitMs = (PROBE_AFTER_KEY_REQUESTS * windowMs) / perWindow;
	}

	/** The share for a request leaving now: one more than held when it is a probe's first. */
	current(): Share {
		return shareAt(this.probe ? this.level + 1 : this.level);
	}

	/** The share held, without a probe's request. */
	held(): Share {
		return shareAt(this.level);
	}

	/** Requests per window held, for messages and benchmarks. */
	get perWindowNow(): number {
		return this.level >= 1 ? this.level : 1 / 2 ** (1 - this.level);
	}

	/** Whether the next request is a probe's first: the pacer sends it between two slots. */
	get probeDue(): boolean {
		return this.probe !== undefined && this.probe.sentAt === undefined;
	}

	/** The probe's first request left at `at`. */
	probeSent(at: number): void {
		if (this.probe) this.probe.sentAt = at;
	}

	/** A request that left at `departedAt` was answered without a 429 at `now`. */
	succeeded(departedAt: number, now: number): void {
		this.refusalsInARow = 0;
		const { probe } = this;
		if (probe) {
			// Held: for a whole window after its first request (counts), or once its own request
			// went through (below one per window, where that request was all the probe added).
			const held =
				probe.sentAt !== undefined &&
				departedAt >= (this.level >= 1 ? probe.sentAt + this.windowMs : probe.sentAt);
			if (held) {
				this.probe = undefined;
				this.level++;
				this.probeAt = this.level >= 1 ? now + PROBE_AGAIN_WINDOWS * this.windowMs : now;
			}
			return;
		}
		if (this.level < this.top && now >= this.probeAt) this.probe = {};
	}

	/**
	 * A request that left at `departedAt` in `epoch` was refused (429) at `now`; `mineInWindow` of
	 * this process's requests left in the window before it and were not refused.
	 */
	refused(departedAt: number, epoch: number, mineInWindow: number, now: number): void {
		this.refusalsInARow++;
		if (epoch !== this.epoch) return;
		const { probe } = this;
		if (probe?.sentAt !== undefined && departedAt >= probe.sentAt) {
			// A refused probe: the share stays as it was.
		} else if (this.level >= 1) {
			this.level = Math.max(this.bottom, Math.min(this.level - 1, mineInWindow));
		} else if (this.refusalsInARow >= REFUSALS_TO_HALVE) {
			this.level = Math.max(this.bottom, this.level - 1);
			this.refusalsInARow = 0;
		} else {
			// Below one request per window a 429 is first taken for a turn that another process
			// holds: the pacer moves this one's turn (pacing.ts) and the share stays.
			return;
		}
		this.epoch++;
		this.probe = undefined;
		this.probeAt = now + this.waitMs;
	}
}
