import { NodeOperationError } from 'n8n-workflow';
import type { IExecuteFunctions } from 'n8n-workflow';

import { capitalised } from './errors';
import type { UnitOutcome } from './fanOut';
import { countReused, emptyFigures, type ReuseSource, type RunFigures } from './runFigures';

/**
 * What one run of a node has spent and may still spend: the requests it sent, the answers it
 * shares between units that would send the same request, and whether it still sends at all.
 *
 * Credits are money. The first answer that says the plan's credits are used up, or that the key
 * is rejected (401: every later request would be refused too), stops the sending for the whole
 * run (the node has one credential): requests in flight finish, and every unit not yet sent
 * fails with a NotSentError that says it cost nothing.
 */
export class RunLedger {
	/** What the run cost, got for nothing and left unsent (runFigures.ts): the run's figures. */
	readonly figures: RunFigures = emptyFigures();

	stoppedAt?: string;

	/** Why the run stopped sending. */
	stopReason?: StopReason;

	/** The same figures for each input item (a file's summary counts its own). */
	private readonly byItem = new Map<number, RunFigures>();

	/** A shared answer, and how many more units will ask for it (undefined: not known, kept to the end). */
	private readonly answers = new Map<
		string,
		{ outcome: Promise<UnitOutcome>; remaining: number | undefined }
	>();

	/**
	 * How many units of the run send each request, where known before the first request; once
	 * planning is over, only requests that more than one unit sends (a missing one counts 1).
	 */
	private expected = new Map<string, number>();

	private countsComplete = true;

	constructor(
		private readonly ctx: IExecuteFunctions,
		private readonly serviceName: string,
	) {}

	/** Planning: `count` more units of this run send the request `key`. */
	expect(key: string, count = 1): void {
		this.expected.set(key, (this.expected.get(key) ?? 0) + count);
	}

	/**
	 * Planning: the counts of a file's units, taken while the file was checked. The first file's
	 * map is taken over rather than copied: it may hold 50,000 requests.
	 */
	expectCounts(counts: Map<string, number>): void {
		if (this.expected.size === 0) {
			this.expected = counts;
			return;
		}
		for (const [key, count] of counts) this.expect(key, count);
	}

	/**
	 * Planning is over: the count of a request only one unit sends is let go (a list of distinct
	 * values would otherwise hold every value's count for the whole run).
	 */
	planned(): void {
		for (const [key, count] of this.expected) if (count < 2) this.expected.delete(key);
	}

	/** Planning: some units arrive later without counts; their shared answers are kept to the end. */
	countsUnknown(): void {
		this.countsComplete = false;
	}

	/** Whether an earlier unit of the run asks (or asked) the request `key`: a later one shares its answer. */
	has(key: string): boolean {
		return this.answers.has(key);
	}

	/** The outcome of the first unit that asks `key`, for the units after it that ask the same. */
	remember(key: string, outcome: Promise<UnitOutcome>): void {
		const total = this.countsComplete ? (this.expected.get(key) ?? 1) : undefined;
		if (total === undefined || total > 1)
			this.answers.set(key, { outcome, remaining: total === undefined ? undefined : total - 1 });
	}

	/**
	 * A repeat's outcome: the first unit's, copied (no two output items share an object), counted
	 * as shared, whether the first paid for its answer or took a kept one. A request refused for a
	 * reason of its own (400...) fails its repeats too (sending it again would be refused too); a
	 * request not sent, or refused because the plan ran out or the key was rejected, leaves its
	 * repeats not sent: they cost nothing.
	 */
	async share(key: string, itemIndex: number, notSent: () => Error): Promise<UnitOutcome> {
		const entry = this.answers.get(key);
		if (!entry) throw new Error(`No unit of the run asked ${key}`);
		if (entry.remaining !== undefined && --entry.remaining <= 0) this.answers.delete(key);
		const shared = await entry.outcome;
		if ('answered' in shared) {
			this.count('answersShared', itemIndex);
			// structuredClone, not n8n's deepCopy: that one assigns a "__proto__" field as a prototype.
			return { answered: shared.answered.map((item) => structuredClone(item)), repeated: true };
		}
		if (shared.notSent || stopReasonOf(shared.failed)) return { failed: notSent(), notSent: true };
		return shared;
	}

	/** Whether the user stopped the execution (n8n also aborts the requests in flight). */
	get cancelled(): boolean {
		return this.ctx.getExecutionCancelSignal?.()?.aborted === true;
	}

	/** The gate the requests of one unit (named as messages name it: "CSV row 301") pass through. */
	gate(itemIndex: number, label: string): SendingGate {
		return {
			stillSending: () => this.stoppedAt === undefined && !this.cancelled,
			checkStillSending: () => {
				if (this.cancelled) {
					throw new NodeOperationError(this.ctx.getNode(), 'The execution was stopped', {
						itemIndex,
					});
				}
				if (this.stoppedAt !== undefined) throw this.notSentError(itemIndex, label);
			},
			departing: () => this.count('requestsSent', itemIndex),
			stopSending: (reason) => {
				if (this.stoppedAt !== undefined) return;
				this.stoppedAt = label;
				this.stopReason = reason;
			},
		};
	}

	/** The error of a unit the run did not send because it stopped sending at `stoppedAt`. */
	notSentError(itemIndex: number, label: string): NotSentError {
		const what = capitalised(label);
		const at = this.stoppedAt ?? 'an earlier request';
		const [why, fix] =
			this.stopReason === 'keyRejected'
				? [
						`the ${this.serviceName} key was rejected (401) at ${at}`,
						'Check the credential: keys are per service',
					]
				: [
						`the plan's API credits for ${this.serviceName} ran out at ${at}`,
						'Add credits or upgrade the plan',
					];
		const error = new NotSentError(this.ctx.getNode(), `${what} was not sent: ${why}`, {
			itemIndex,
			description: `${what} was not sent, so it cost nothing. ${fix}, then run again for what was not sent.`,
		});
		return withStopReason(error, this.stopReason ?? 'planRanOut');
	}

	/** A unit of item `itemIndex` was answered by a request of its own (the service charged it). */
	paid(itemIndex: number): void {
		this.count('answersPaid', itemIndex);
	}

	/** A unit of item `itemIndex` was answered by a kept answer (keptAnswers.ts), from `source`. */
	reused(itemIndex: number, source: ReuseSource): void {
		for (const figures of [this.figures, this.figuresFor(itemIndex)]) countReused(figures, source);
	}

	/** A unit of item `itemIndex` came out: answered (with or without a request), or not sent. */
	settled(itemIndex: number, outcome: UnitOutcome): void {
		if ('answered' in outcome) {
			if (!outcome.withoutRequest) this.count('unitsAnswered', itemIndex);
		} else if (outcome.notSent) this.count('unitsNotSent', itemIndex);
	}

	/** The figures of one input item (a file's rows). */
	figuresOf(itemIndex: number): RunFigures {
		const figures = this.byItem.get(itemIndex) ?? emptyFigures();
		return { ...figures, reusedFrom: { ...figures.reusedFrom } };
	}

	private count(
		figure: Exclude<keyof RunFigures, 'answersReused' | 'reusedFrom'>,
		itemIndex: number,
	): void {
		this.figures[figure]++;
		this.figuresFor(itemIndex)[figure]++;
	}

	private figuresFor(itemIndex: number): RunFigures {
		let figures = this.byItem.get(itemIndex);
		if (!figures) {
			figures = emptyFigures();
			this.byItem.set(itemIndex, figures);
		}
		return figures;
	}
}

/** What a unit's requests ask of the run. */
export interface SendingGate {
	stillSending(): boolean;
	/** Throws the unit's NotSentError once the run has stopped sending. */
	checkStillSending(): void;
	/** A request leaves now (a retry counts again). */
	departing(): void;
	/** The service said the plan's credits are used up, or rejected the key: send nothing more. */
	stopSending(reason: StopReason): void;
}

export type StopReason = 'planRanOut' | 'keyRejected';

/** A unit the run did not send (the plan ran out, or the key was rejected, first): it cost nothing. */
export class NotSentError extends NodeOperationError {}

/**
 * Why a unit's failure is the run's stop: the answer that stopped the sending (and any other
 * such answer in flight), or a unit not sent after it. Set where the statuses are classified
 * (serviceClient.ts, with the service's own quota statuses), read by whoever reports the unit.
 */
export function withStopReason<E extends Error>(error: E, reason: StopReason): E {
	(error as E & { stopReason?: StopReason }).stopReason = reason;
	return error;
}

export function stopReasonOf(error: Error): StopReason | undefined {
	return (error as Error & { stopReason?: StopReason }).stopReason;
}
