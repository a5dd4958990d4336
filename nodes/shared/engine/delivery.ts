import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { errorItem } from './errorItems';
import type { FanOutUnit, UnitOutcome } from './fanOut';
import { asNodeError, type Job } from './jobs';
import { namedBy } from './messages';
import type { RunFigures } from './runFigures';

/*
 * One item's output while its units' outcomes arrive from several senders, out of order: an
 * output item per unit, or its collector (a result file) fed in unit order. The job's plan
 * (jobs.ts) stays as it was planned; what changes while the run sends is here.
 */

export class Delivery<Prepared> {
	/** Output items by unit, for jobs without a collector. */
	private readonly produced: INodeExecutionData[][] = [];

	/** Outcomes that arrived before an earlier unit's, waiting for the collector. */
	private readonly waiting = new Map<number, UnitOutcome>();

	private nextToDeliver = 0;

	private delivered: Promise<void> = Promise.resolve();

	/** The file could not be read to the end, or its collector failed: the item fails whole. */
	broken?: Error;

	/** How many units the run read (a file's rows): for the hint on large files. */
	unitsRead?: number;

	constructor(readonly job: Job<Prepared>) {}

	/** A unit's outcome to the job's output: an item per unit, or the collector, in unit order. */
	async deliver(
		ctx: IExecuteFunctions,
		unitIndex: number,
		unit: FanOutUnit<Prepared>,
		outcome: UnitOutcome,
	): Promise<void> {
		const { collector } = this.job;
		if (!collector) {
			this.produced[unitIndex] = this.outputItems(ctx, unit, outcome);
			return;
		}
		this.waiting.set(unitIndex, outcome);
		// One delivery at a time per job, so that the collector sees units in order; the sender waits
		// for it, so a slow writer slows the queue instead of piling outcomes up.
		this.delivered = this.delivered.then(async () => {
			while (!this.broken && this.waiting.has(this.nextToDeliver)) {
				const next = this.waiting.get(this.nextToDeliver) as UnitOutcome;
				this.waiting.delete(this.nextToDeliver);
				try {
					await collector.add(next, this.nextToDeliver++);
				} catch (error) {
					this.broken = error as Error;
				}
			}
		});
		await this.delivered;
	}

	/**
	 * The job's output items once every unit is delivered: its units' items, or its collector's
	 * (a result file, given the item's figures), paired to its item. A broken item throws (default
	 * On Error) or ends with its error item.
	 */
	async output(
		ctx: IExecuteFunctions,
		figures: RunFigures,
		continueOnFail: boolean,
	): Promise<INodeExecutionData[]> {
		const { collector, itemIndex } = this.job;
		if (collector && !this.broken) {
			await this.delivered;
			try {
				if (!this.broken) {
					const items = await collector.finish(figures);
					return items.map((item) => ({ ...item, pairedItem: { item: itemIndex } }));
				}
			} catch (error) {
				this.broken = error as Error;
			}
		}
		if (!this.broken) return this.produced.flat();
		// The file could not be read to its end, or its result file could not be written.
		await collector?.abort?.();
		const broken = asNodeError(ctx, this.broken, itemIndex);
		if (!continueOnFail) throw broken;
		// Rows answered before the file broke are kept, followed by the file's error.
		return [...this.produced.flat(), errorItem(ctx, broken, itemIndex)];
	}

	private outputItems(
		ctx: IExecuteFunctions,
		unit: FanOutUnit<Prepared>,
		outcome: UnitOutcome,
	): INodeExecutionData[] {
		const { itemIndex, rows } = this.job;
		if ('failed' in outcome) {
			// A row's own input error names its row already (the field's label does); a service error does not.
			const named = !rows || outcome.notSent || 'failed' in unit;
			return [
				errorItem(
					ctx,
					named ? outcome.failed : labelled(outcome.failed, unit.label),
					itemIndex,
					unit.rowJson,
				),
			];
		}
		// The row's columns go into the answer's own JSON rather than a copy of it: each unit's answer
		// is its own (a kept one is read from its text, keptAnswers.ts; a repeat's is a copy). Every unit
		// of a run puts the same keys beside (csvRow), so a copy's are overwritten with its own.
		return outcome.answered.map((item) => ({
			...item,
			json: unit.rowJson ? Object.assign(item.json, unit.rowJson) : item.json,
			pairedItem: { item: itemIndex },
		}));
	}
}

/**
 * A row's error for its error item, its message prefixed with the row ("CSV row 7: ..."); the
 * original stays untouched, as a repeated value's rows share it.
 */
function labelled(error: Error, label: string): Error {
	const copy = Object.create(error) as Error;
	Object.defineProperty(copy, 'message', {
		value: namedBy(label, error.message),
		enumerable: true,
		writable: true,
	});
	return copy;
}
