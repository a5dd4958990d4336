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
 * network agree; between the two, the allowance stays as it was. While a process takes turns
 * with others, its allowance is wider (TURN_ALLOWANCE_MS): turns are a window apart, and only the
 * allowance keeps them so when one process's timers run late.
 */
const NEAR_ALLOWANCE_MS = 5;
const NEAR_TURNS_ALLOWANCE_MS = 10;
/** Far from this median answer time up, near again below half of it (at 1/s: slow below it). */
const FAR_ANSWER_MS = 50;
/**
 * At one request per window, the turns' allowance from this median answer time up (near again
 * below half of it). The window rule holds a request until one window after the previous one's
 * answer: answers slower than the allowance push every request past its slot, where another
 * process's turn on the slot itself comes a little early and is refused, while this one never
 * is. In a real queue-mode n8n at 1/s, the worker that had the key reached the service 30-48 ms
 * after the near slots, the other's turns, on them, were refused for 17 s. With this allowance
 * a process alone at 1/s loses 1/1.06 of the key instead of its answer time per request.
 */
const SLOW_ANSWER_MS = 20;
const ANSWER_TIMES_KEPT = 16;
/**
 * The slow answers' allowance waits for this many answers: one slow first answer is no median,
 * and a process that took it alone would take its turns on other slots than the rest.
 */
const ANSWERS_FOR_SLOW = 5;
/**
 * While processes take turns, a turn's allowance is all that keeps one's request a window after
 * the other's, against timers and sockets late on a busy machine. 10 ms broke the turns at 1/s:
 * in a real queue-mode n8n at a load average of 11, one worker's request left 27 to 57 ms late
 * six times in a minute and the other's next turn was refused each time. Only processes taking
 * turns pay it (they share the key: 1/1.06 of it), never a process alone.
 */
const TURN_ALLOWANCE_MS = 60;

export class PacingSlots {
	/** How long one slot lasts. */
	ms: number;

	private allowanceMs: number;

	private readonly nearMs: number;

	private answerTimes: number[] = [];

	private turns = false;

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
		this.allowanceMs = this.allowanceFor(median);
		return this.resize();
	}

	/**
	 * Each allowance holds over a band of median answer times, so that processes on the same
	 * network agree on it: it changes only once the median left the band. But between slow and
	 * far (one request per window), where a band kept processes on slots of two lengths.
	 */
	private allowanceFor(median: number): number {
		const was = this.allowanceMs;
		// At one request per window slow and far are both wide: far is left below 50 ms, where it
		// is taken. A band (far left below 40 ms) kept a process far that another, with the same
		// answers about 45 ms, never went to: their slots, 60 and 102 ms more than the window,
		// drifted through each other's turns (in simulated time, answers in 35-55 ms: 13.6% of
		// requests refused, 0.60 of the key over a queue-mode round; 8.4% and 0.93 without it).
		const slowBand = this.perWindow === 1;
		const farDown = slowBand ? FAR_ANSWER_MS : FAR_ANSWER_MS / 2;
		if (median >= FAR_ANSWER_MS || (was === this.farAllowanceMs && median >= farDown)) {
			return this.farAllowanceMs;
		}
		const slow =
			this.answerTimes.length >= ANSWERS_FOR_SLOW &&
			(median >= SLOW_ANSWER_MS || (was !== this.nearMs && median >= SLOW_ANSWER_MS / 2));
		return slowBand && slow ? TURN_ALLOWANCE_MS : this.nearMs;
	}

	/**
	 * Whether this process takes turns with others (below one request per window): while it does,
	 * the allowance is at least TURN_ALLOWANCE_MS. Returns the rescale as observe() does.
	 */
	takeTurns(turns: boolean): number | undefined {
		this.turns = turns;
		return this.resize();
	}

	private resize(): number | undefined {
		const allowance = this.turns ? Math.max(this.allowanceMs, TURN_ALLOWANCE_MS) : this.allowanceMs;
		const ms = (this.windowMs + allowance) / this.perWindow;
		if (ms === this.ms) return undefined;
		const scale = this.ms / ms;
		this.ms = ms;
		return scale;
	}
}
