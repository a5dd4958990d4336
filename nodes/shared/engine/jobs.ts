import { NodeApiError, NodeOperationError } from 'n8n-workflow';
import type { IExecuteFunctions } from 'n8n-workflow';

import { FanOut, type FanOutUnit, type UnitCollector } from './fanOut';
import { requestKey } from './requestKey';
import type { RunLedger } from './runLedger';
import type { ReusePolicy, RunSettingsReader, ServiceDefinition } from './types';

/*
 * A run's items read and checked into jobs, before anything is sent: what the engine then sends
 * (engine.ts) and what Estimate Credits Only counts (estimate.ts) start from the same jobs, so an
 * estimate is the run's own figure.
 */

/** One input item's work, planned once before anything is sent: its one request, or the units of its file. */
export interface Job<Prepared> {
	readonly itemIndex: number;
	/** A file's rows (messages name rows, and error items carry the row beside). */
	readonly rows: boolean;
	readonly units: Iterable<FanOutUnit<Prepared>> | AsyncIterable<FanOutUnit<Prepared>>;
	/** Whether any unit may send a request. */
	readonly sends: boolean;
	/** Repeated requests of this item are answered once (the Send Repeated Values Once option). */
	readonly sendRepeatsOnce: boolean;
	/** Whether this item's requests take and keep answers of earlier runs (the node's Options). */
	readonly reuse: ReusePolicy;
	/** Takes the units' outcomes instead of one output item per unit (a result file). */
	readonly collector?: UnitCollector;
}

/** An item whose Options could not be read (its error is the item's), or a node without the options. */
const NO_REUSE: ReusePolicy = { testRuns: false, hours: 0 };

/** What planning a run's jobs takes besides the node's context. */
interface Planning<Prepared> {
	ctx: IExecuteFunctions;
	service: ServiceDefinition<Prepared>;
	settings: RunSettingsReader;
	ledger: RunLedger;
	continueOnFail: boolean;
	/** Collects the identities the run will ask for (the kept answers it may take are not dropped for room). */
	planned: Set<string>;
	/** Every row of each file, whatever its Options choose (the estimate's figures for the whole file). */
	wholeFiles?: boolean;
}

/** Every item is read and checked before the first request: a bad row must cost no credit. */
export async function prepareJobs<Prepared>(
	planning: Planning<Prepared>,
): Promise<Array<Job<Prepared>>> {
	const jobs: Array<Job<Prepared>> = [];
	const items = planning.ctx.getInputData();
	for (let itemIndex = 0; itemIndex < items.length; itemIndex++)
		jobs.push(await prepareJob(planning, itemIndex));
	planning.ledger.planned();
	return jobs;
}

async function prepareJob<Prepared>(
	{ ctx, service, settings, ledger, continueOnFail, planned, wholeFiles }: Planning<Prepared>,
	itemIndex: number,
): Promise<Job<Prepared>> {
	const label = `item ${itemIndex + 1}`;
	let sendRepeatsOnce = true;
	let reuse = NO_REUSE;
	try {
		sendRepeatsOnce = settings.sendRepeatsOnce(ctx, itemIndex);
		if (service.keepAnswersForRetry !== false) reuse = settings.reusePolicy(ctx, itemIndex);
		const prepared = await service.prepare.call(ctx, itemIndex, {
			identityOf: (unit: Prepared) => identityOf(service, unit),
			wholeFile: wholeFiles === true,
			stopAtRefusal: !continueOnFail,
		});
		const planOf = (rest: Pick<Job<Prepared>, 'rows' | 'units' | 'collector'>): Job<Prepared> => ({
			itemIndex,
			sends: true,
			sendRepeatsOnce,
			reuse,
			...rest,
		});
		if (!(prepared instanceof FanOut)) {
			const job = planOf({ rows: false, units: [{ prepared, label }] });
			expectKey(service, ledger, job, prepared as Prepared, planned);
			return job;
		}
		const fanOut = prepared as FanOut<Prepared>;
		const job = planOf({ rows: true, units: fanOut.units, collector: fanOut.options.collector });
		if (Array.isArray(fanOut.units)) {
			for (const unit of fanOut.units as Array<FanOutUnit<Prepared>>) {
				if ('failed' in unit && !continueOnFail) throw unit.failed;
				if ('prepared' in unit) expectKey(service, ledger, job, unit.prepared, planned);
			}
		} else if (fanOut.options.keyCounts) {
			for (const key of fanOut.options.keyCounts.keys()) planned.add(key);
			if (sendRepeatsOnce) ledger.expectCounts(fanOut.options.keyCounts);
		} else if (sendRepeatsOnce) {
			ledger.countsUnknown();
		}
		return job;
	} catch (error) {
		if (!continueOnFail) throw asNodeError(ctx, error, itemIndex);
		const units = [{ failed: error as Error, label }];
		return { itemIndex, rows: false, units, sends: false, sendRepeatsOnce, reuse };
	}
}

/**
 * The identity of a prepared request (requestKey.ts): what the service is asked, as the node's
 * `requestOf` gives it, nothing of presentation; undefined for a request that carries a file (it
 * is always sent). The engine's one definition: the run, its estimate and a file's first pass
 * (which counts the rows of each request) all key units by it.
 */
export function identityOf<Prepared>(
	service: Pick<ServiceDefinition<Prepared>, 'requestOf'>,
	prepared: Prepared,
): string | undefined {
	return requestKey(service.requestOf ? service.requestOf(prepared) : prepared);
}

/** Planning: the unit's request, which the run will ask for (and, repeats sent once, count). */
function expectKey<Prepared>(
	service: ServiceDefinition<Prepared>,
	ledger: RunLedger,
	job: Job<Prepared>,
	prepared: Prepared,
	planned: Set<string>,
): void {
	const identity = identityOf(service, prepared);
	if (identity === undefined) return;
	planned.add(identity);
	if (job.sendRepeatsOnce) ledger.expect(identity);
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
