import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { errorItem } from './errorItems';
import { capitalised } from './errors';
import { addEstimateHint, estimateCredits } from './estimate';
import type { FanOutUnit, UnitOutcome } from './fanOut';
import { asNodeError, keyOf, prepareJobs, serviceKey, type Job } from './jobs';
import { AnswerKeeping } from './keptAnswers';
import { NotSentError, RunLedger } from './runLedger';
import { connect, type Connection } from './serviceClient';
import type { RunSettingsReader, ServiceDefinition, ServiceRequest } from './types';

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
	/** The run settings of the node's Options (parameters/options.ts: runSettingsFromOptions). */
	settings: RunSettingsReader,
): Promise<INodeExecutionData[][]> {
	// Options > Estimate Credits Only: everything before sending, counted; nothing sent (estimate.ts).
	if (settings.estimateOnly(ctx)) return await estimateCredits(ctx, service, settings);
	const continueOnFail = ctx.continueOnFail();
	const ledger = new RunLedger(ctx, service.serviceName);
	const planned = new Set<string>();
	const jobs = await prepareJobs(ctx, service, settings, ledger, continueOnFail, planned);

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
	keeping?.willAsk(planned);
	const tally = { items: 0, rows: 0, notSent: 0 };
	const failure = await sendAll(
		ctx,
		service,
		jobs,
		ledger,
		connection,
		continueOnFail,
		tally,
		keeping,
	);
	// Stopped by the user: n8n keeps nothing of this run, and an error would mark it failed, not stopped.
	if (ledger.cancelled) {
		keeping?.finish('threw');
		await Promise.all(jobs.map(async (job) => await job.collector?.abort?.()));
		return [[]];
	}
	if (failure !== undefined) {
		const keptForRetry = keeping?.finish('threw') ?? { paid: 0, reused: 0 };
		await Promise.all(jobs.map(async (job) => await job.collector?.abort?.()));
		throw withCost(failure, jobs, ledger, keptForRetry, keeping?.testRun === true);
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
	const outcomeOf = async (
		job: Job<Prepared>,
		unit: FanOutUnit<Prepared>,
	): Promise<UnitOutcome> => {
		if ('failed' in unit) return { failed: unit.failed, notSent: false };
		const withoutRequest = service.answerWithoutRequest?.(unit.prepared);
		if (withoutRequest) return { answered: withoutRequest, repeated: false, withoutRequest: true };
		if (connection instanceof Error) return { failed: connection, notSent: false };
		const key = keyOf(service, job, unit.prepared);
		const keptKey = keeping?.keyFor(
			job.sendRepeatsOnce ? key : serviceKey(service, unit.prepared),
			job.sendRepeatsOnce,
		);
		// An answer an earlier try paid for costs nothing, even after this run stopped sending.
		if (ledger.stoppedAt !== undefined && !keeping?.has(keptKey, job.reuse)) {
			return { failed: ledger.notSentError(job.itemIndex, unit.label), notSent: true };
		}
		const client = () =>
			connection.clientFor(job.itemIndex, ledger.gate(job.itemIndex, unit.label));
		// What the unit's output makes of its answer (service.present): for every unit, whether its
		// answer was paid, shared by a repeat or reused; a failure here fails the unit, not the payment.
		const presented = async (outcome: UnitOutcome): Promise<UnitOutcome> => {
			if (!service.present || !('answered' in outcome)) return outcome;
			try {
				return {
					...outcome,
					answered: await service.present.call(
						ctx,
						job.itemIndex,
						unit.prepared,
						outcome.answered,
						client(),
					),
				};
			} catch (error) {
				return { failed: error as Error, notSent: false };
			}
		};
		const send = async (): Promise<UnitOutcome> => {
			const kept = await keeping?.take(ctx, keptKey, job.reuse);
			if (kept) {
				ledger.reused(job.itemIndex, kept.source);
				return await presented({
					answered: kept.answered,
					repeated: false,
					reusedFrom: kept.source,
				});
			}
			let answered: INodeExecutionData[];
			try {
				answered = service.run
					? await service.run.call(ctx, job.itemIndex, unit.prepared, client())
					: recordItems((await client().request(unit.prepared as ServiceRequest)).body);
			} catch (error) {
				return { failed: error as Error, notSent: error instanceof NotSentError };
			}
			// Paid the moment the service answered: counted and kept before what the unit does with
			// it (a download), so that the Discarded figure and n8n's next try see it. A result
			// file's rows never fail the node, so only Retry On Fail (a first item that failed) runs
			// them again: without it, its answers would hold memory for nothing (unless the Options
			// keep them for the node's next runs).
			ledger.paid(job.itemIndex);
			const forTries = !job.collector || keeping?.retryOnFail === true;
			keeping?.keep(keptKey, answered, unit.beside, forTries, job.reuse);
			if (!service.present) return { answered, repeated: false };
			const outcome = await presented({ answered, repeated: false });
			// Kept again with a file the unit fetched for it (a download): a next run need not fetch it.
			if (
				'answered' in outcome &&
				outcome.answered.some((item, index) => item.binary && !answered[index]?.binary)
			) {
				keeping?.keep(keptKey, outcome.answered, unit.beside, forTries, job.reuse);
			}
			return outcome;
		};
		if (key === undefined) return await send();
		const outcome = await ledger.outcomeFor(key, job.itemIndex, send, () =>
			ledger.notSentError(job.itemIndex, unit.label),
		);
		return 'answered' in outcome && outcome.repeated ? await presented(outcome) : outcome;
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
			} else if (outcome.notSent) tally.notSent++;
			// A result file keeps every row's outcome in its status column, whatever On Error says:
			// the file (and its next row to start from) is what the run is for.
			if ('failed' in outcome && !continueOnFail && !job.collector) {
				// Thrown once, so the row is named in the error itself (n8n keeps only its own properties).
				if (failure === undefined && job.rows && !outcome.notSent)
					outcome.failed.message = `${capitalised(unit.label)}: ${outcome.failed.message}`;
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
		return [
			errorItem(
				ctx,
				named ? outcome.failed : labelled(outcome.failed, unit.label),
				itemIndex,
				unit.beside,
			),
		];
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
	Object.defineProperty(copy, 'message', {
		value: `${capitalised(label)}: ${error.message}`,
		enumerable: true,
		writable: true,
	});
	return copy;
}

/**
 * The error that stops a run (default On Error), saying what the run had already been answered,
 * and what of it was charged, for: n8n keeps no output of a node that stops on an error. Each
 * figure by its cause: charged in this execution (this try, or an earlier try or run of the node
 * in it), shared by a repeat, reused from elsewhere; and what stays kept for a Retry.
 */
function withCost<Prepared>(
	failure: Error,
	jobs: Array<Job<Prepared>>,
	ledger: RunLedger,
	kept: { paid: number; reused: number },
	testRun: boolean,
): Error {
	const paid = { item: 0, row: 0 };
	const free = { item: 0, row: 0 };
	for (const job of jobs) {
		const figures = ledger.figuresOf(job.itemIndex);
		paid[job.rows ? 'row' : 'item'] += figures.answersPaid + figures.reusedFromTries;
		free[job.rows ? 'row' : 'item'] +=
			figures.answersShared + figures.answersReused - figures.reusedFromTries;
	}
	const paidText = [counted(paid.item, 'item'), counted(paid.row, 'row')]
		.filter(Boolean)
		.join(' and ');
	const freeText = [counted(free.item, 'item'), counted(free.row, 'row')]
		.filter(Boolean)
		.join(' and ');
	if (!paidText && !freeText) return failure;
	const { retry, testRuns, earlierRuns } = ledger.reusedFrom;
	const freeWhy = [
		ledger.figures.answersShared
			? `${number(ledger.figures.answersShared)} shared the answer of a repeated value`
			: '',
		retry ? `${number(retry)} reused an answer a failed execution of this node paid for` : '',
		testRuns ? `${number(testRuns)} reused an answer an earlier test run paid for` : '',
		earlierRuns ? `${number(earlierRuns)} reused an answer an earlier run paid for` : '',
	]
		.filter(Boolean)
		.join(', ');
	const discarded = paidText
		? `${paidText} already answered (and charged) in this run${freeText ? `, and ${freeText} more answered at no charge (${freeWhy})` : ''}`
		: `${freeText} answered at no charge in this run (${freeWhy})`;
	const error = failure as Error & { description?: string | null };
	const cost = `Discarded: ${discarded}, as n8n keeps no output of a node that stops on an error.${keptText(kept, testRun)} To keep every answer, set the node's Settings > On Error to "Continue (using error output)": answers then go to the success output and failures, each with its reason, to the error output.`;
	error.description = error.description ? `${error.description} ${cost}` : cost;
	return error;
}

/** What stays kept for a Retry of the failed execution, and where (the process's memory). */
function keptText(kept: { paid: number; reused: number }, testRun: boolean): string {
	if (kept.paid + kept.reused === 0) return '';
	const what = [
		kept.paid ? `the ${plural(kept.paid, 'answer')} this execution paid for` : '',
		kept.reused ? `the ${plural(kept.reused, 'answer')} it reused from failed executions` : '',
	]
		.filter(Boolean)
		.join(' and ');
	// In queue mode a Retry always runs on a worker; a test run runs on main unless manual
	// executions are offloaded to workers.
	const queue = testRun
		? 'In queue mode a Retry runs on a worker, and a test run on main unless OFFLOAD_MANUAL_EXECUTIONS_TO_WORKERS=true: the Retry of a test run on main will pay again.'
		: 'In queue mode a Retry runs on whichever worker takes it: on another worker than the one that ran this execution, it will pay again.';
	return ` This n8n process keeps ${what}, each for an hour from its payment: a Retry of this execution (in the executions list) within that hour reuses them instead of paying again. ${queue}`;
}

/** "1 item", "3 rows", or '' for none. */
function counted(count: number, noun: 'item' | 'row'): string {
	return count ? plural(count, noun) : '';
}

/** "1 request", "2 requests", "1,000 answers". */
function plural(count: number, noun: string): string {
	return `${number(count)} ${noun}${count === 1 ? '' : 's'}`;
}

function number(count: number): string {
	return count.toLocaleString('en-US');
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
	const noun = tally.rows ? 'row' : 'item';
	const hints: Array<{ message: string; type: 'info' | 'warning'; location: 'outputPane' }> = [];
	const info = (message: string) => hints.push({ message, type: 'info', location: 'outputPane' });
	if (answersShared > 0) {
		// The units a request answered: its own, and its repeats'. Requests sent count retries and
		// refusals too: said apart when they differ from the paid answers.
		const requests =
			requestsSent === answersPaid
				? plural(requestsSent, 'request')
				: `${plural(answersPaid, 'paid request')} (${number(requestsSent)} sent)`;
		info(
			`${plural(answersPaid + answersShared, noun)} answered with ${requests}: repeated values were sent once (turn Send Repeated Values Once off in Options for a fresh answer each)`,
		);
	}
	const {
		try: fromTry,
		retry: fromRetry,
		testRuns: fromTestRuns,
		earlierRuns: fromEarlierRuns,
	} = ledger.reusedFrom;
	const reusedFrom = (count: number, where: string) =>
		info(`${plural(count, 'answer')} reused from ${where}, not paid for again`);
	if (fromTry > 0)
		reusedFrom(
			fromTry,
			keeping?.retryOnFail
				? "this node's earlier try (Settings > Retry On Fail)"
				: "this node's earlier run in this execution",
		);
	if (fromRetry > 0) {
		const failed = keeping?.retrySources() ?? { executions: 1, testRuns: 0 };
		const runs =
			failed.executions === 1
				? `a failed ${failed.testRuns ? 'test run' : 'execution'}`
				: `${failed.executions} failed executions${failed.testRuns ? ` (${failed.testRuns} of them test runs)` : ''}`;
		reusedFrom(fromRetry, `${runs} of this node (a Retry takes them for an hour)`);
	}
	const ages = keeping?.reuseAges();
	if (ages && fromTestRuns + fromEarlierRuns > 0) {
		const count = fromTestRuns + fromEarlierRuns;
		const runs =
			fromTestRuns > 0 ? ['a test run', 'test runs'] : ['an earlier run', 'earlier runs'];
		const from =
			ages.executions === 1
				? `${runs[0]} ${ago(ages.newestAgo, ages.oldestAgo)}`
				: `${ages.executions} ${runs[1]} ${ago(ages.newestAgo, ages.oldestAgo)}`;
		const how =
			fromTestRuns > 0
				? 'turn Reuse Answers of Test Runs off in Options to ask afresh'
				: 'Options > Reuse Answers For (Hours)';
		const answered = answersPaid + answersShared + answersReused;
		info(
			`${number(count)} of ${plural(answered, 'answer')} reused from ${from}: no credit (${how})`,
		);
	}
	if (ledger.stoppedAt !== undefined) {
		hints.push({
			message: `${ledger.stopReason === 'keyRejected' ? `The ${service.serviceName} key was rejected (401)` : `The plan's API credits for ${service.serviceName} ran out`} at ${ledger.stoppedAt}: ${plural(tally.notSent, noun)} after it ${tally.notSent === 1 ? 'was' : 'were'} not sent and cost nothing`,
			type: 'warning',
			location: 'outputPane',
		});
	}
	// n8n 1.x before execution hints has no addExecutionHints.
	if (hints.length > 0 && typeof ctx.addExecutionHints === 'function')
		ctx.addExecutionHints(...hints);
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
