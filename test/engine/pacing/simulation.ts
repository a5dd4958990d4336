import { concurrencyFor, Pacer, type PacerClock } from '../../../nodes/shared/engine/pacing';
import { randomFraction } from '../../sandbox/random';

/**
 * Pacers of several processes sharing one key, in simulated time: each process sends its items
 * as the engine does (bounded lanes, each waiting for its pacer's turn, a 429 retried at the
 * next turn), over a simulated network to a simulated limiter. Deterministic for a seed, and a
 * simulated minute takes milliseconds, so the rules of sharing can be held against many
 * limiters and timings, not only the sandbox's.
 */

/** Simulated time: timers fire in order of their moment, after every pending promise settled. */
class SimulatedTime {
	now = 1_700_000_000_000;

	private timers: Array<{ at: number; order: number; fire: () => void }> = [];

	private order = 0;

	at(moment: number, fire: () => void): void {
		this.timers.push({ at: Math.max(moment, this.now), order: this.order++, fire });
	}

	/** Runs until no timer is left, or until `until`. */
	async run(until: number): Promise<void> {
		for (;;) {
			await new Promise((resolve) => setImmediate(resolve));
			if (this.timers.length === 0) return;
			let next = 0;
			for (let index = 1; index < this.timers.length; index++) {
				const timer = this.timers[index];
				const best = this.timers[next];
				if (timer.at < best.at || (timer.at === best.at && timer.order < best.order)) next = index;
			}
			const [timer] = this.timers.splice(next, 1);
			if (timer.at > until) return;
			this.now = timer.at;
			timer.fire();
		}
	}
}

/** How a service counts its rate: decides at a request's arrival whether it is accepted. */
export type Limiter = (arrivedAt: number) => boolean;

export type LimiterKind = 'sliding' | 'fixed' | 'bucket' | 'slidingCountingRefusals';

/**
 * - sliding: at most N accepted in any second before the arrival (the sandbox's: the strictest)
 * - fixed: at most N accepted per calendar second of the service's clock
 * - bucket: a token bucket holding N, refilled at N per second
 * - slidingCountingRefusals: a sliding window in which every request counts, refused or not
 */
export function limiter(kind: LimiterKind, perSecond: number, offsetMs = 0): Limiter {
	const allowed = Math.max(1, Math.floor(perSecond));
	const windowMs = (allowed * 1000) / perSecond;
	if (kind === 'sliding' || kind === 'slidingCountingRefusals') {
		let counted: number[] = [];
		return (at) => {
			counted = counted.filter((time) => at - time < windowMs);
			const verdict = counted.length < allowed;
			if (verdict || kind === 'slidingCountingRefusals') counted.push(at);
			return verdict;
		};
	}
	if (kind === 'bucket') {
		let tokens = allowed;
		let last = -Infinity;
		return (at) => {
			tokens = Math.min(allowed, tokens + ((at - last) * perSecond) / 1000);
			last = at;
			if (tokens < 1) return false;
			tokens--;
			return true;
		};
	}
	let window = -1;
	let count = 0;
	return (at) => {
		const current = Math.floor((at + offsetMs) / windowMs);
		if (current !== window) {
			window = current;
			count = 0;
		}
		if (count >= allowed) return false;
		count++;
		return true;
	};
}

export interface Timing {
	/** From the turn to the arrival at the service (n8n's work, the way there), ms. */
	toService: (random: () => number) => number;
	/** From the arrival to the answer back at the process, ms. */
	answer: (random: () => number) => number;
	/** How late a timer fires, ms. */
	timerLate: (random: () => number) => number;
}

/** The sandbox on loopback with a busy machine: a few ms each way, timers a little late. */
export const NEAR: Timing = {
	toService: (random) => 1 + 4 * random() ** 3,
	answer: (random) => 1 + 4 * random() ** 3,
	timerLate: (random) => 3 * random() ** 2,
};

/** The sandbox on a 2-core machine with a dozen jobs beside it: everything late by up to 30 ms. */
export const LOADED: Timing = {
	toService: (random) => 1 + 25 * random() ** 3,
	answer: (random) => 1 + 25 * random() ** 3,
	timerLate: (random) => 30 * random() ** 3,
};

/**
 * A queue-mode worker of a real n8n on a busy machine (measured against the sandbox at 1/s):
 * requests arrive 3-15 ms after their turn, n8n takes 10-40 ms more to hand the answer back.
 */
export const N8N: Timing = {
	toService: (random) => 3 + 12 * random() ** 2,
	answer: (random) => 8 + 30 * random() ** 2,
	timerLate: (random) => 5 * random() ** 2,
};

/**
 * A service a few tens of ms away (the same region, a fast network): answers in 35-55 ms, a
 * third of it on the way there, where a median hovers about the far allowance's threshold.
 */
export const REGION: Timing = {
	toService: (random) => (35 + 20 * random()) / 3,
	answer: (random) => (2 * (35 + 20 * random())) / 3,
	timerLate: (random) => 3 * random() ** 2,
};

/** A service on the internet: 30-60 ms away, 150-450 ms to answer (email checks take long). */
export const FAR: Timing = {
	toService: (random) => 30 + 30 * random(),
	answer: (random) => 150 + 300 * random(),
	timerLate: (random) => 3 * random() ** 2,
};

export interface ProcessPlan {
	/** Items of each execution. */
	items: number;
	/** Executions the process runs at once through its one pacer (a queue-mode worker takes 2). */
	executions?: number;
	/** When it starts, ms after the simulation's start. */
	startsAfterMs?: number;
}

export interface Simulated {
	requests: number;
	refused: number;
	/**
	 * Accepted requests per second from the first request (refused or not) to the last: the rate
	 * over the whole run, as the queue-mode check counts it.
	 */
	wholeRate: number;
	/** Accepted per second from the first request to the moment the first process finished. */
	sharedRate: number;
	finishedAt: number[];
	log: Array<{ at: number; process: number; accepted: boolean }>;
	/** Each process's rate after each answer. */
	shares: Array<{ at: number; process: number; rate: number }>;
	/** Accepted per process. */
	accepted: number[];
	/** Items that never got through within the simulated time. */
	unfinished: number;
}

export async function simulate(options: {
	rate: number;
	processes: ProcessPlan[];
	limiter: LimiterKind;
	timing?: Timing;
	seed?: number;
	maxMs?: number;
	/** Each process's own clock is this many ms off the service's (fixed windows). */
	offsetMs?: number;
}): Promise<Simulated> {
	const time = new SimulatedTime();
	const start = time.now;
	const timing = options.timing ?? NEAR;
	const network = randomFraction((options.seed ?? 1) * 7919);
	const accept = limiter(options.limiter, options.rate, options.offsetMs ?? 0);
	const log: Array<{ at: number; process: number; accepted: boolean }> = [];
	const finishedAt: number[] = options.processes.map(() => NaN);
	const shares: Array<{ at: number; process: number; rate: number }> = [];
	let unfinished = 0;

	const runs = options.processes.map(async (plan, process) => {
		const random = randomFraction((options.seed ?? 1) * 104729 + process);
		const clock: PacerClock = {
			now: () => time.now,
			sleep: async (ms) =>
				await new Promise<void>((resolve) =>
					time.at(time.now + ms + timing.timerLate(random), resolve),
				),
			random,
		};
		await clock.sleep(plan.startsAfterMs ?? 0);
		const pacer = new Pacer(options.rate, clock);
		const lane = async (execution: { next: number }) => {
			while (execution.next < plan.items) {
				execution.next++;
				for (;;) {
					const ticket = await pacer.waitTurn();
					const arrival = time.now + timing.toService(network);
					const accepted = await new Promise<boolean>((resolve) =>
						time.at(arrival, () => {
							const verdict = accept(time.now);
							log.push({ at: time.now, process, accepted: verdict });
							time.at(time.now + timing.answer(network), () => resolve(verdict));
						}),
					);
					if (accepted) pacer.succeeded(ticket);
					else pacer.refused(ticket, undefined);
					shares.push({ at: time.now - start, process, rate: pacer.currentRate });
					if (accepted) break;
				}
			}
		};
		const executions = Array.from({ length: plan.executions ?? 1 }, () => ({ next: 0 }));
		await Promise.all(
			executions.flatMap((execution) =>
				Array.from({ length: concurrencyFor(options.rate) }, async () => await lane(execution)),
			),
		);
		finishedAt[process] = time.now - start;
	});
	const all = Promise.all(runs);
	await time.run(start + (options.maxMs ?? 600_000));
	if (finishedAt.some(Number.isNaN)) {
		unfinished = options.processes.length;
	} else {
		await all;
	}
	const accepted = log.filter((entry) => entry.accepted);
	const perSecond = (entries: typeof log, from: number, to: number) =>
		entries.length < 2 ? 0 : ((entries.length - 1) * 1000) / (to - from);
	const firstDone = start + Math.min(...finishedAt.filter((at) => !Number.isNaN(at)));
	const shared = accepted.filter((entry) => entry.at <= firstDone);
	return {
		requests: log.length,
		refused: log.length - accepted.length,
		wholeRate: perSecond(accepted, log[0]?.at ?? 0, log[log.length - 1]?.at ?? 0),
		sharedRate: perSecond(shared, log[0]?.at ?? 0, shared[shared.length - 1]?.at ?? 0),
		finishedAt,
		log: log.map((entry) => ({ ...entry, at: entry.at - start })),
		shares,
		accepted: options.processes.map(
			(_, process) => accepted.filter((entry) => entry.process === process).length,
		),
		unfinished,
	};
}
