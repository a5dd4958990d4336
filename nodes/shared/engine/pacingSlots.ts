/**
 * The slots the pacer sends on: moments counted from the clock's zero, N of them spanning the
 * service's window and an allowance more, the same for every process paced to the same rate
 * against the same service. Processes that share a key meet on the same slots, so that on a
 * full key which of two requests the service refuses is chance, not which process happens to
 * know when the window reopens, and below one request per window processes take turns by slot.
 *
 * The allowance is one of two. Near a service (answers in a few ms) 5 ms, 10 ms at one request per
 * window (where processes take turns and a turn's margin is all that keeps two requests apart): a
 * process alone loses half a percent, one percent at 1/s. Far from it (answers slower than the pacer's arrival cap, whose
 * arrival the window rule therefore puts at the cap) the cap and a little more: a process alone
 * loses nothing it did not lose already, and processes taking turns stay a slot apart whatever
 * the transit times. The median of the last answers decides, so that processes on the same
 * network agree; between the two, the allowance stays as it was.
 */
const NEAR_ALLOWANCE_MS = 5;
const NEAR_TURNS_ALLOWANCE_MS = 10;
/** Far from this median answer time up, near again below half of it. */
const FAR_ANSWER_MS = 50;
const ANSWER_TIMES_KEPT = 16;

export class PacingSlots {
	/** How long one slot lasts. */
	ms: number;

	private allowanceMs: number;

	private readonly nearMs: number;

	private answerTimes: number[] = [];

	/** `perWindow` slots span `windowMs` and the allowance; far, the allowance is `farAllowanceMs`. */
	constructor(
		private readonly perWindow: number,
		private readonly windowMs: number,
		private readonly farAllowanceMs: number,
	) {
		this.nearMs = perWindow === 1 ? NEAR_TURNS_ALLOWANCE_MS : NEAR_ALLOWANCE_MS;
		this.allowanceMs = this.nearMs;
		this.ms = (windowMs + this.allowanceMs) / perWindow;
	}

	/** The first slot at or after `at`. */
	slotAt(at: number): number {
		return Math.ceil(at / this.ms - 1e-9);
	}

	/**
	 * An answer came back `answerMs` after its request left. Returns how many new slots one old
	 * slot is when the slots changed (a plan counted in slots is rescaled by it), else undefined.
	 */
	observe(answerMs: number): number | undefined {
		this.answerTimes.push(answerMs);
		if (this.answerTimes.length > ANSWER_TIMES_KEPT) this.answerTimes.shift();
		const sorted = [...this.answerTimes].sort((a, b) => a - b);
		const median = sorted[Math.floor(sorted.length / 2)];
		let allowance = this.allowanceMs;
		if (median >= FAR_ANSWER_MS) allowance = this.farAllowanceMs;
		else if (median < FAR_ANSWER_MS / 2) allowance = this.nearMs;
		if (allowance === this.allowanceMs) return undefined;
		const ms = (this.windowMs + allowance) / this.perWindow;
		const scale = this.ms / ms;
		this.allowanceMs = allowance;
		this.ms = ms;
		return scale;
	}
}
