import { NodeApiError, NodeOperationError } from 'n8n-workflow';
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { errorItem } from './errorItems';
import { capitalised } from './errors';
import { addEstimateHint, estimateAsked, estimateCredits } from './estimate';
import { FanOut, type FanOutUnit, type UnitCollector, type UnitOutcome } from './fanOut';
import { AnswerKeeping, type ReusePolicy } from './keptAnswers';
import { requestKey } from './requestKey';
import { NotSentError, RunLedger } from './runLedger';
import { reusePolicyOf } from '../parameters/options';
import { connect, type Connection } from './serviceClient';
import type { ServiceDefinition, ServiceRequest } from './types';

/**
 * The one engine every node runs through. n8n's declarative routing sends every item at once and
 * cannot retry one request; these services charge per request and allow one a second on free
 * plans. So: check every item first, then send with pacing, bounded concurrency and per-request
 * retries (serviceClient.ts), once per distinct request, until the plan's credits run out
 * (runLedger.ts); and return items paired to their inputs, failed ones shaped for the node's
 * "On Error" setting (errorItems.ts). When n8n may run the node again on the same input (Retry On
 * Fail, or a Retry of a failed execution), and when a person runs it again while building the
 * workflow (a test run), what this run paid for is kept for that run (keptAnswers.ts), which
 * takes it instead of paying again.
 *
 * With "Continue" (either output) the node never throws: n8n would then pass the input items
 * through to the success output, as if they had been answered.
 */
export async function runService<Prepared>(
	ctx: IExecuteFunctions,
	service: ServiceDefinition<Prepared>,
): Promise<INodeExecutionData[][]> {
	// Options > Estimate Credits Only: everything before sending, counted; nothing sent (estimate.ts).
	if (estimateAsked(ctx)) return await estimateCredits(ctx, service);
	const continueOnFail = ctx.continueOnFail();
	const ledger = new RunLedger(ctx, service.serviceName);
	const jobs = await prepareJobs(ctx, service, ledger, continueOnFail);

	let connection: Connection | Error = new Error('no request to send');
	if (jobs.some((job) => job.sends)) {
		try {
			connection = await connect(ctx, service);
		} catch (error) {
			if (!continueOnFail) throw asNodeError(ctx, error, 0);
			connection = error as Error;
		}
	}
	const keeping =
		connection instanceof Error || service.keepAnswersForRetry === false
			? undefined
			: AnswerKeeping.open(
					ctx,
					connection.identity,
					jobs.map((job) => job.reuse),
				);
	const tally = { items: 0, rows: 0, notSent: 0 };
	const failure = await sendAll(ctx, service, jobs, ledger, connection, continueOnFail, tally, keeping);
	// Stopped by the user: n8n keeps nothing of this run, and an error would mark it failed, not stopped.
	if (ledger.cancelled) {
		keeping?.finish('threw');
		await Promise.all(jobs.map(async (job) => await job.collector?.abort?.()));
		return [[]];
	}
	if (failure !== undefined) {
		const keptForRetry = keeping?.finish('threw') ?? 0;
		await Promise.all(jobs.map(async (job) => await job.collector?.abort?.()));
		throw withCost(failure, jobs, ledger, keptForRetry);
	}

	const output: INodeExecutionData[] = [];
	try {
		for (const job of jobs) output.push(...(await outputOf(ctx, job, ledger, continueOnFail)));
	} catch (error) {
		keeping?.finish('threw');
		throw asNodeError(ctx, error, 0);
	}
	keeping?.finish({ output: [output] });
	addHints(ctx, service, ledger, tally, keeping);
	addEstimateHint(ctx, jobs);
	return [output];
}

/** One job's output items: its units' items, or its collector's (a result file), paired to its item. */
async function outputOf<Prepared>(
	ctx: IExecuteFunctions,
	job: Job<Prepared>,
	ledger: RunLedger,
	continueOnFail: boolean,
): Promise<INodeExecutionData[]> {
	if (job.collector && !job.broken) {
		await job.delivered;
		try {
			if (!job.broken) {
				const items = await job.collector.finish(ledger.tallyOf(job.itemIndex));
				return items.map((item) => ({ ...item, pairedItem: { item: job.itemIndex } }));
			}
		} catch (error) {
			job.broken = error as Error;
		}
	}
	if (!job.broken) return job.produced.flat();
	// The file could not be read to its end, or its result file could not be written.
	await job.collector?.abort?.();
	const broken = asNodeError(ctx, job.broken, job.itemIndex);
	if (!continueOnFail) throw broken;
	// Rows answered before the file broke are kept, followed by the file's error.
	return [...job.produced.flat(), errorItem(ctx, broken, job.itemIndex)];
}

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
	ledger: RunLedger,
	continueOnFail: boolean,
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
			sendRepeatsOnce: ctx.getNodeParameter('options.sendRepeatsOnce', itemIndex, true) !== false,
			reuse: NO_REUSE,
			produced: [],
			waiting: new Map(),
			nextToDeliver: 0,
			delivered: Promise.resolve(),
		};
		try {
			if (service.keepAnswersForRetry !== false) job.reuse = reusePolicyOf(ctx, itemIndex);
			const prepared = await service.prepare.call(ctx, itemIndex);
			if (prepared instanceof FanOut) {
				const fanOut = prepared as FanOut<Prepared>;
				Object.assign(job, { rows: true, units: fanOut.units, collector: fanOut.options.collector, sends: true });
				if (Array.isArray(fanOut.units)) {
					for (const unit of fanOut.units as Array<FanOutUnit<Prepared>>) {
						if ('failed' in unit && !continueOnFail) throw unit.failed;
						if ('prepared' in unit) expectKey(service, ledger, job, unit.prepared);
					}
				} else if (fanOut.options.keyCounts && job.sendRepeatsOnce) {
					ledger.expectCounts(fanOut.options.keyCounts);
				} else {
					ledger.countsUnknown();
				}
			} else {
				Object.assign(job, { units: [{ prepared, label }], sends: true });
				expectKey(service, ledger, job, prepared as Prepared);
			}
		} catch (error) {
			if (!continueOnFail) throw asNodeError(ctx, error, itemIndex);
			Object.assign(job, { rows: false, units: [{ failed: error as Error, label }], sends: false, collector: undefined });
		}
		jobs.push(job);
	}
	ledger.planned();
	return jobs;
}

/** The key by which repeated requests of a job share one answer; undefined when each is sent. */
export function keyOf<Prepared>(service: ServiceDefinition<Prepared>, job: Job<Prepared>, prepared: Prepared): string | undefined {
	if (!job.sendRepeatsOnce) return undefined;
	return serviceKey(service, prepared);
}

/** The identity of a prepared request (undefined: it carries a file, and is always sent). */
export function serviceKey<Prepared>(service: ServiceDefinition<Prepared>, prepared: Prepared): string | undefined {
	return service.requestKey ? service.requestKey(prepared) : requestKey(prepared);
}

function expectKey<Prepared>(service: ServiceDefinition<Prepared>, ledger: RunLedger, job: Job<Prepared>, prepared: Prepared): void {
	const key = keyOf(service, job, prepared);
	if (key !== undefined) ledger.expect(key);
}

interface Tally {
	items: number;
	rows: number;
	notSent: number;
}

/**
 * Sends every unit of every job through one bounded queue, in order. Returns the error that
 * stops the run (default On Error: the first failure), or undefined when every unit has an
 * outcome delivered.
 */
async function sendAll<Prepared>(
	ctx: IExecuteFunctions,
	service: ServiceDefinition<Prepared>,
	jobs: Array<Job<Prepared>>,
	ledger: RunLedger,
	connection: Connection | Error,
	continueOnFail: boolean,
	tally: Tally,
	keeping: AnswerKeeping | undefined,
): Promise<Error | undefined> {
	let failure: Error | undefined;
	const source = unitsOf(ctx, jobs, continueOnFail);
	const outcomeOf = async (job: Job<Prepared>, unit: FanOutUnit<Prepared>): Promise<UnitOutcome> => {
		if ('failed' in unit) return { failed: unit.failed, notSent: false };
		const withoutRequest = service.answerWithoutRequest?.(unit.prepared);
		if (withoutRequest) return { answered: withoutRequest, repeated: false, withoutRequest: true };
		if (connection instanceof Error) return { failed: connection, notSent: false };
		const key = keyOf(service, job, unit.prepared);
		const keptKey = keeping?.keyFor(job.sendRepeatsOnce ? key : serviceKey(service, unit.prepared), job.sendRepeatsOnce);
		// An answer an earlier try paid for costs nothing, even after this run stopped sending.
		if (ledger.stoppedAt !== undefined && !keeping?.has(keptKey, job.reuse)) {
			return { failed: ledger.notSentError(job.itemIndex, unit.label), notSent: true };
		}
		const send = async (): Promise<UnitOutcome> => {
			const kept = await keeping?.take(ctx, keptKey, job.reuse);
			if (kept) {
				ledger.reused(job.itemIndex, kept.fromTry);
				return { answered: kept.answered, repeated: false };
			}
			try {
				const client = connection.clientFor(job.itemIndex, ledger.gate(job.itemIndex, unit.label));
				const answered = service.run
					? await service.run.call(ctx, job.itemIndex, unit.prepared, client)
					: recordItems((await client.request(unit.prepared as ServiceRequest)).body);
				ledger.paid(job.itemIndex);
				// A result file's rows never fail the node, so only Retry On Fail (a first item that
				// failed) runs them again: without it, its answers would hold memory for nothing
				// (unless the Options keep them for the node's next runs).
				keeping?.keep(keptKey, answered, unit.beside, !job.collector || keeping.retryOnFail, job.reuse);
				return { answered, repeated: false };
			} catch (error) {
				return { failed: error as Error, notSent: error instanceof NotSentError };
			}
		};
		if (key === undefined) return await send();
		return await ledger.outcomeFor(key, job.itemIndex, send, () => ledger.notSentError(job.itemIndex, unit.label));
	};

	const lane = async () => {
		// A stopped execution sends nothing more; n8n discards the node's output.
		while (failure === undefined && !ledger.cancelled) {
			let next: IteratorResult<Sendable<Prepared>>;
			try {
				next = await source.next();
			} catch (error) {
				failure ??= error as Error;
				return;
			}
			if (next.done) return;
			const { job, unitIndex, unit } = next.value;
			const outcome = await outcomeOf(job, unit);
			if ('answered' in outcome) {
				if (!outcome.withoutRequest) tally[job.rows ? 'rows' : 'items']++;
			}
			else if (outcome.notSent) tally.notSent++;
			// A result file keeps every row's outcome in its status column, whatever On Error says:
			// the file (and its next row to start from) is what the run is for.
			if ('failed' in outcome && !continueOnFail && !job.collector) {
				// Thrown once, so the row is named in the error itself (n8n keeps only its own properties).
				if (failure === undefined && job.rows && !outcome.notSent) outcome.failed.message = `${capitalised(unit.label)}: ${outcome.failed.message}`;
				failure ??= asNodeError(ctx, outcome.failed, job.itemIndex);
				return;
			}
			await deliver(ctx, job, unitIndex, unit, outcome);
		}
	};
	const concurrency = connection instanceof Error ? 1 : connection.concurrency;
	await Promise.all(Array.from({ length: concurrency }, lane));
	return failure;
}

interface Sendable<Prepared> {
	job: Job<Prepared>;
	unitIndex: number;
	unit: FanOutUnit<Prepared>;
}

/**
 * The units of all jobs in order, pulled by the lanes one at a time (a file's units may be read
 * lazily). A file that cannot be read to its end breaks its item (Continue) or the run.
 */
async function* unitsOf<Prepared>(
	ctx: IExecuteFunctions,
	jobs: Array<Job<Prepared>>,
	continueOnFail: boolean,
): AsyncGenerator<Sendable<Prepared>> {
	for (const job of jobs) {
		let unitIndex = 0;
		try {
			for await (const unit of job.units) yield { job, unitIndex: unitIndex++, unit };
			job.unitsRead = unitIndex;
		} catch (error) {
			const broken = asNodeError(ctx, error, job.itemIndex);
			if (!continueOnFail) throw broken;
			job.broken = broken;
		}
	}
}

/** A unit's outcome to its job's output: an item per unit, or the collector, in unit order. */
async function deliver<Prepared>(
	ctx: IExecuteFunctions,
	job: Job<Prepared>,
	unitIndex: number,
	unit: FanOutUnit<Prepared>,
	outcome: UnitOutcome,
): Promise<void> {
	const { collector } = job;
	if (!collector) {
		job.produced[unitIndex] = outputItems(ctx, job, unit, outcome);
		return;
	}
	job.waiting.set(unitIndex, outcome);
	// One delivery at a time per job, so that the collector sees units in order; the lane waits
	// for it, so a slow writer slows the queue instead of piling outcomes up.
	job.delivered = job.delivered.then(async () => {
		while (!job.broken && job.waiting.has(job.nextToDeliver)) {
			const next = job.waiting.get(job.nextToDeliver) as UnitOutcome;
			job.waiting.delete(job.nextToDeliver);
			try {
				await collector.add(next, job.nextToDeliver++);
			} catch (error) {
				job.broken = error as Error;
			}
		}
	});
	await job.delivered;
}

function outputItems<Prepared>(
	ctx: IExecuteFunctions,
	job: Job<Prepared>,
	unit: FanOutUnit<Prepared>,
	outcome: UnitOutcome,
): INodeExecutionData[] {
	const { itemIndex } = job;
	if ('failed' in outcome) {
		// A row's own input error names its row already (the field's label does); a service error does not.
		const named = !job.rows || outcome.notSent || 'failed' in unit;
		return [errorItem(ctx, named ? outcome.failed : labelled(outcome.failed, unit.label), itemIndex, unit.beside)];
	}
	// The row's columns go into the answer's own JSON rather than a copy of it: an answer kept for
	// a next try (keptAnswers.ts) is then not held twice. Every unit of a run puts the same keys
	// beside (csvRow), so a unit that shares or reuses the answer overwrites them with its own.
	return outcome.answered.map((item) => ({
		...item,
		json: unit.beside ? Object.assign(item.json, unit.beside) : item.json,
		pairedItem: { item: itemIndex },
	}));
}

/**
 * A row's error for its error item, its message prefixed with the row ("CSV row 7: ..."); the
 * original stays untouched, as a repeated value's rows share it.
 */
function labelled(error: Error, label: string): Error {
	const copy = Object.create(error) as Error;
	Object.defineProperty(copy, 'message', { value: `${capitalised(label)}: ${error.message}`, enumerable: true, writable: true });
	return copy;
}


/** n8n errors pass as they are; anything else is wrapped so n8n shows it with its item. */
export function asNodeError(ctx: IExecuteFunctions, error: unknown, itemIndex: number): NodeApiError | NodeOperationError {
	if (error instanceof NodeApiError || error instanceof NodeOperationError) return error;
	return new NodeOperationError(ctx.getNode(), error as Error, { itemIndex });
}

/**
 * The error that stops a run (default On Error), saying what the run had already been answered,
 * and what of it was charged, for: n8n keeps no output of a node that stops on an error. Paid
 * answers are the charged ones; repeats that shared an answer, and answers reused from an
 * earlier try or run, cost nothing and are said apart.
 */
function withCost<Prepared>(failure: Error, jobs: Array<Job<Prepared>>, ledger: RunLedger, keptForRetry: number): Error {
	const paid = { item: 0, row: 0 };
	const free = { item: 0, row: 0 };
	for (const job of jobs) {
		const figures = ledger.figuresOf(job.itemIndex);
		// An earlier try of this execution (Retry On Fail) paid for what this try reused.
		paid[job.rows ? 'row' : 'item'] += figures.answersPaid + figures.reusedFromTries;
		free[job.rows ? 'row' : 'item'] += figures.answersShared + figures.answersReused - figures.reusedFromTries;
	}
	const paidText = [counted(paid.item, 'item'), counted(paid.row, 'row')].filter(Boolean).join(' and ');
	const freeText = [counted(free.item, 'item'), counted(free.row, 'row')].filter(Boolean).join(' and ');
	if (!paidText && !freeText) return failure;
	const { answersShared, answersReused, reusedFromTries } = ledger.figures;
	const reusedFree = answersReused - reusedFromTries;
	const freeWhy = [
		answersShared ? `${answersShared.toLocaleString('en-US')} shared the answer of a repeated value` : '',
		reusedFree ? `${reusedFree.toLocaleString('en-US')} reused an answer an earlier run paid for` : '',
	]
		.filter(Boolean)
		.join(', ');
	const discarded = paidText
		? `${paidText} already answered (and charged) in this run${freeText ? `, and ${freeText} more answered at no charge (${freeWhy})` : ''}`
		: `${freeText} answered at no charge in this run (${freeWhy})`;
	const error = failure as Error & { description?: string | null };
	// What is kept is the process's: n8n in queue mode may run the retry on another worker.
	const kept = keptForRetry
		? ` This n8n keeps the ${keptForRetry.toLocaleString('en-US')} paid ${keptForRetry === 1 ? 'answer' : 'answers'} for an hour: a Retry of this execution (in the executions list) within the hour reuses them instead of paying again. In queue mode the retry may run on another worker, which keeps none.`
		: '';
	const cost = `Discarded: ${discarded}, as n8n keeps no output of a node that stops on an error.${kept} To keep every answer, set the node's Settings > On Error to "Continue (using error output)": answers then go to the success output and failures, each with its reason, to the error output.`;
	error.description = error.description ? `${error.description} ${cost}` : cost;
	return error;
}

/** "1 item", "3 rows", or '' for none. */
function counted(count: number, noun: 'item' | 'row'): string {
	return count ? `${count.toLocaleString('en-US')} ${noun}${count === 1 ? '' : 's'}` : '';
}

/** What the run saved and where it stopped, above the node's output in the editor. */
function addHints<Prepared>(
	ctx: IExecuteFunctions,
	service: ServiceDefinition<Prepared>,
	ledger: RunLedger,
	tally: Tally,
	keeping: AnswerKeeping | undefined,
): void {
	const { requestsSent, answersPaid, answersShared, answersReused } = ledger.figures;
	const answered = answersPaid + answersShared + answersReused;
	const noun = tally.rows ? 'rows' : 'items';
	const hints: Array<{ message: string; type: 'info' | 'warning'; location: 'outputPane' }> = [];
	const info = (message: string) => hints.push({ message, type: 'info', location: 'outputPane' });
	if (answersShared > 0) {
		// Requests sent count retries and refusals too: said apart when they differ from the paid answers.
		const requests = requestsSent === answersPaid ? `${requestsSent.toLocaleString('en-US')} requests` : `${answersPaid.toLocaleString('en-US')} paid requests (${requestsSent.toLocaleString('en-US')} sent)`;
		info(`${answered.toLocaleString('en-US')} ${noun} answered with ${requests}: repeated values were sent once (turn Send Repeated Values Once off in Options for a fresh answer each)`);
	}
	const { fromTry, fromRetry, fromTestRuns, fromEarlierRuns } = keeping?.reused ?? { fromTry: 0, fromRetry: 0, fromTestRuns: 0, fromEarlierRuns: 0 };
	const reusedFrom = (count: number, where: string) =>
		info(`${count.toLocaleString('en-US')} ${count === 1 ? 'answer' : 'answers'} reused from ${where}, not paid for again`);
	if (fromTry > 0) reusedFrom(fromTry, "this node's earlier try (Settings > Retry On Fail)");
	if (fromRetry > 0) reusedFrom(fromRetry, 'the failed execution this one retries');
	const ages = keeping?.reuseAges();
	if (ages && fromTestRuns + fromEarlierRuns > 0) {
		const count = fromTestRuns + fromEarlierRuns;
		const runs = fromTestRuns > 0 ? ['a test run', 'test runs'] : ['an earlier run', 'earlier runs'];
		const from = ages.executions === 1 ? `${runs[0]} ${ago(ages.newestAgo, ages.oldestAgo)}` : `${ages.executions} ${runs[1]} ${ago(ages.newestAgo, ages.oldestAgo)}`;
		const how = fromTestRuns > 0 ? 'turn Reuse Answers of Test Runs off in Options to ask afresh' : 'Options > Reuse Answers For (Hours)';
		info(`${count.toLocaleString('en-US')} of ${answered.toLocaleString('en-US')} ${count === 1 && answered === 1 ? 'answer' : 'answers'} reused from ${from}: no credit (${how})`);
	}
	if (ledger.stoppedAt !== undefined) {
		hints.push({
			message: `${ledger.stopReason === 'keyRejected' ? `The ${service.serviceName} key was rejected (401)` : `The plan's API credits for ${service.serviceName} ran out`} at ${ledger.stoppedAt}: ${tally.notSent.toLocaleString('en-US')} ${noun} after it were not sent and cost nothing`,
			type: 'warning',
			location: 'outputPane',
		});
	}
	// n8n 1.x before execution hints has no addExecutionHints.
	if (hints.length > 0 && typeof ctx.addExecutionHints === 'function') ctx.addExecutionHints(...hints);
}

/** "4 minutes ago", or "4 to 12 minutes ago" for answers of several runs. */
function ago(newestMs: number, oldestMs: number): string {
	const [newest, newestUnit] = duration(newestMs);
	const [oldest, oldestUnit] = duration(oldestMs);
	if (newest === oldest && newestUnit === oldestUnit) return `${newest} ${newestUnit} ago`;
	if (newestUnit === oldestUnit) return `${newest} to ${oldest} ${oldestUnit} ago`;
	return `${newest} ${newestUnit} to ${oldest} ${oldestUnit} ago`;
}

/** A time as a person says it: [4, 'minutes'], ['less than a', 'minute'], [3, 'hours']. */
function duration(ms: number): [string, string] {
	const minutes = Math.floor(ms / 60_000);
	if (minutes < 1) return ['less than a', 'minute'];
	if (minutes < 120) return [String(minutes), minutes === 1 ? 'minute' : 'minutes'];
	return [String(Math.floor(minutes / 60)), 'hours'];
}

/** A JSON answer as items: the record as it came, or one item per element of an array. */
export function recordItems(body: unknown): INodeExecutionData[] {
	if (Array.isArray(body)) return body.map((element) => ({ json: element as IDataObject }));
	return [{ json: (body ?? {}) as IDataObject }];
}
