import { NodeApiError, NodeOperationError } from 'n8n-workflow';
import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { FanOut, type FanOutUnit, type UnitCollector, type UnitOutcome } from './fanOut';
import { requestKey } from './requestKey';
import type { RunLedger } from './runLedger';
import type { ReusePolicy, RunSettingsReader, ServiceDefinition } from './types';

/*
 * A run's items read and checked into jobs, before anything is sent: what the engine then sends
 * (engine.ts) and what Estimate Credits Only counts (estimate.ts) start from the same jobs, so an
 * estimate is the run's own figure.
 */

/** One input item's work: its one request, or the units of its file. */
export interface Job<Prepared> {
	itemIndex: number;
	/** A file's rows (messages name rows, and error items carry the row beside). */
	rows: boolean;
	units: Iterable<FanOutUnit<Prepared>> | AsyncIterable<FanOutUnit<Prepared>>;
	/** Whether any unit may send a request. */
	sends: boolean;
	/** Repeated requests of this item are answered once (the Send Repeated Values Once option). */
	sendRepeatsOnce: boolean;
	/** Whether this item's requests take and keep answers of earlier runs (the node's Options). */
	reuse: ReusePolicy;
	collector?: UnitCollector;
	/** Output items by unit, for jobs without a collector. */
	produced: INodeExecutionData[][];
	/** Outcomes that arrived before an earlier unit's, waiting for the collector. */
	waiting: Map<number, UnitOutcome>;
	nextToDeliver: number;
	delivered: Promise<void>;
	/** The file could not be read to the end, or its collector failed: the item fails whole. */
	broken?: Error;
	/** How many units the run read (a file's rows): for the hint on large files. */
	unitsRead?: number;
}

/** An item whose Options could not be read (its error is the item's), or a node without the options. */
const NO_REUSE: ReusePolicy = { testRuns: false, hours: 0 };

/** Every item is read and checked before the first request: a bad row must cost no credit. */
export async function prepareJobs<Prepared>(
	ctx: IExecuteFunctions,
	service: ServiceDefinition<Prepared>,
	settings: RunSettingsReader,
	ledger: RunLedger,
	continueOnFail: boolean,
	/** Collects the request keys the run will ask for (the kept answers it may take are not dropped for room). */
	planned: Set<string>,
): Promise<Array<Job<Prepared>>> {
	const jobs: Array<Job<Prepared>> = [];
	const items = ctx.getInputData();
	for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
		const label = `item ${itemIndex + 1}`;
		const job: Job<Prepared> = {
			itemIndex,
			rows: false,
			units: [],
			sends: false,
			sendRepeatsOnce: true,
			reuse: NO_REUSE,
			produced: [],
			waiting: new Map(),
			nextToDeliver: 0,
			delivered: Promise.resolve(),
		};
		try {
			job.sendRepeatsOnce = settings.sendRepeatsOnce(ctx, itemIndex);
			if (service.keepAnswersForRetry !== false) job.reuse = settings.reusePolicy(ctx, itemIndex);
			const prepared = await service.prepare.call(ctx, itemIndex);
			if (prepared instanceof FanOut) {
				const fanOut = prepared as FanOut<Prepared>;
				Object.assign(job, {
					rows: true,
					units: fanOut.units,
					collector: fanOut.options.collector,
					sends: true,
				});
				if (Array.isArray(fanOut.units)) {
					for (const unit of fanOut.units as Array<FanOutUnit<Prepared>>) {
						if ('failed' in unit && !continueOnFail) throw unit.failed;
						if ('prepared' in unit) expectKey(service, ledger, job, unit.prepared, planned);
					}
				} else if (fanOut.options.keyCounts && job.sendRepeatsOnce) {
					for (const key of fanOut.options.keyCounts.keys()) planned.add(key);
					ledger.expectCounts(fanOut.options.keyCounts);
				} else {
					ledger.countsUnknown();
				}
			} else {
				Object.assign(job, { units: [{ prepared, label }], sends: true });
				expectKey(service, ledger, job, prepared as Prepared, planned);
			}
		} catch (error) {
			if (!continueOnFail) throw asNodeError(ctx, error, itemIndex);
			Object.assign(job, {
				rows: false,
				units: [{ failed: error as Error, label }],
				sends: false,
				collector: undefined,
			});
		}
		jobs.push(job);
	}
	ledger.planned();
	return jobs;
}

/** The key by which repeated requests of a job share one answer; undefined when each is sent. */
export function keyOf<Prepared>(
	service: ServiceDefinition<Prepared>,
	job: Job<Prepared>,
	prepared: Prepared,
): string | undefined {
	if (!job.sendRepeatsOnce) return undefined;
	return serviceKey(service, prepared);
}

/** The identity of a prepared request (undefined: it carries a file, and is always sent). */
export function serviceKey<Prepared>(
	service: ServiceDefinition<Prepared>,
	prepared: Prepared,
): string | undefined {
	return service.requestKey ? service.requestKey(prepared) : requestKey(prepared);
}

function expectKey<Prepared>(
	service: ServiceDefinition<Prepared>,
	ledger: RunLedger,
	job: Job<Prepared>,
	prepared: Prepared,
	planned: Set<string>,
): void {
	const key = keyOf(service, job, prepared);
	if (key === undefined) return;
	ledger.expect(key);
	planned.add(key);
}

/** n8n errors pass as they are; anything else is wrapped so n8n shows it with its item. */
export function asNodeError(
	ctx: IExecuteFunctions,
	error: unknown,
	itemIndex: number,
): NodeApiError | NodeOperationError {
	if (error instanceof NodeApiError || error instanceof NodeOperationError) return error;
	return new NodeOperationError(ctx.getNode(), error as Error, { itemIndex });
}
