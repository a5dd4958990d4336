import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { Delivery } from './delivery';
import { addEstimateHint, estimateCredits } from './estimate';
import type { FanOutUnit, UnitOutcome } from './fanOut';
import { asNodeError, keyOf, prepareJobs, serviceKey, type Job } from './jobs';
import { AnswerKeeping } from './keptAnswers';
import { discardedText, namedBy, runHints } from './messages';
import { sumOfFigures } from './runFigures';
import { NotSentError, RunLedger } from './runLedger';
import { connect, type Connection } from './serviceClient';
import type { RunSettingsReader, ServiceDefinition, ServiceRequest } from './types';

/**
 * The one engine every node runs through. n8n's declarative routing sends every item at once and
 * cannot retry one request; these services charge per request and allow one a second on free
 * plans. So: check every item first (jobs.ts), then send with pacing, bounded concurrency and
 * per-request retries (serviceClient.ts), once per distinct request, until the plan's credits run
 * out (runLedger.ts); and return items paired to their inputs (delivery.ts), failed ones shaped for
 * the node's "On Error" setting. When n8n may run the node again on the same input, or a person
 * runs it again while building the workflow, what this run paid for is kept (keptAnswers.ts).
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
	const jobs = await prepareJobs({ ctx, service, settings, ledger, continueOnFail, planned });

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
	const deliveries = jobs.map((job) => new Delivery(job));
	const run = { ctx, service, deliveries, ledger, connection, continueOnFail, keeping };
	const failure = await sendAll(run);
	const abortAll = async () =>
		await Promise.all(jobs.map(async (job) => await job.collector?.abort?.()));
	// Stopped by the user: n8n keeps nothing of this run, and an error would mark it failed, not stopped.
	if (ledger.cancelled) {
		keeping?.finish('threw');
		await abortAll();
		return [[]];
	}
	if (failure !== undefined) {
		const keptForRetry = keeping?.finish('threw') ?? { paid: 0, reused: 0 };
		await abortAll();
		throw withCost(run, failure, keptForRetry);
	}

	const output: INodeExecutionData[] = [];
	try {
		for (const delivery of deliveries) {
			const figures = ledger.figuresOf(delivery.job.itemIndex);
			output.push(...(await delivery.output(ctx, figures, continueOnFail)));
		}
	} catch (error) {
		keeping?.finish('threw');
		throw asNodeError(ctx, error, 0);
	}
	keeping?.finish({ output: [output] });
	addHints(run);
	addEstimateHint(ctx, deliveries);
	return [output];
}

/** A run as its senders share it. */
interface Run<Prepared> {
	ctx: IExecuteFunctions;
	service: ServiceDefinition<Prepared>;
	/** Each job with its output as it arrives, in the order of the input items. */
	deliveries: Array<Delivery<Prepared>>;
	ledger: RunLedger;
	/** The service's connection, or why there is none (every unit that sends fails with it). */
	connection: Connection | Error;
	continueOnFail: boolean;
	keeping: AnswerKeeping | undefined;
}

/**
 * Sends every unit of every job through one bounded queue, in order. Returns the error that
 * stops the run (default On Error: the first failure), or undefined when every unit has an
 * outcome delivered.
 */
async function sendAll<Prepared>(run: Run<Prepared>): Promise<Error | undefined> {
	const { ctx, ledger, connection, continueOnFail } = run;
	let failure: Error | undefined;
	const source = unitsOf(run);
	const sender = async () => {
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
			const { delivery, unitIndex, unit } = next.value;
			const { job } = delivery;
			const outcome = await outcomeOf(run, job, unit);
			ledger.settled(job.itemIndex, outcome);
			// A result file keeps every row's outcome in its status column, whatever On Error says:
			// the file (and its next row to start from) is what the run is for.
			if ('failed' in outcome && !continueOnFail && !job.collector) {
				// Thrown once, so the row is named in the error itself (n8n keeps only its own properties).
				if (failure === undefined && job.rows && !outcome.notSent)
					outcome.failed.message = namedBy(unit.label, outcome.failed.message);
				failure ??= asNodeError(ctx, outcome.failed, job.itemIndex);
				return;
			}
			await delivery.deliver(ctx, unitIndex, unit, outcome);
		}
	};
	const concurrency = connection instanceof Error ? 1 : connection.concurrency;
	await Promise.all(Array.from({ length: concurrency }, sender));
	return failure;
}

interface Sendable<Prepared> {
	delivery: Delivery<Prepared>;
	unitIndex: number;
	unit: FanOutUnit<Prepared>;
}

/**
 * The units of all jobs in order, pulled by the senders one at a time (a file's units may be read
 * lazily). A file that cannot be read to its end breaks its item (Continue) or the run.
 */
async function* unitsOf<Prepared>({
	ctx,
	deliveries,
	continueOnFail,
}: Run<Prepared>): AsyncGenerator<Sendable<Prepared>> {
	for (const delivery of deliveries) {
		const { job } = delivery;
		let unitIndex = 0;
		try {
			for await (const unit of job.units) yield { delivery, unitIndex: unitIndex++, unit };
			delivery.unitsRead = unitIndex;
		} catch (error) {
			const broken = asNodeError(ctx, error, job.itemIndex);
			if (!continueOnFail) throw broken;
			delivery.broken = broken;
		}
	}
}

/** What became of one unit: answered without a request, not sent, shared with a repeat, reused, or sent. */
async function outcomeOf<Prepared>(
	run: Run<Prepared>,
	job: Job<Prepared>,
	unit: FanOutUnit<Prepared>,
): Promise<UnitOutcome> {
	const { service, ledger, connection, keeping } = run;
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
	const sending: UnitSending<Prepared> = { run, job, unit, prepared: unit.prepared, keptKey };
	if (key === undefined) return await send(sending);
	const outcome = await ledger.outcomeFor(
		key,
		job.itemIndex,
		async () => await send(sending),
		() => ledger.notSentError(job.itemIndex, unit.label),
	);
	return 'answered' in outcome && outcome.repeated ? await presented(sending, outcome) : outcome;
}

/** A unit on its way to the service. */
interface UnitSending<Prepared> {
	run: Run<Prepared>;
	job: Job<Prepared>;
	unit: FanOutUnit<Prepared>;
	prepared: Prepared;
	/** The key its answer is kept under (keptAnswers.ts). */
	keptKey: string | undefined;
}

/** A unit's answer: kept from an earlier try or run, or asked of the service (and then kept). */
async function send<Prepared>(sending: UnitSending<Prepared>): Promise<UnitOutcome> {
	const { run, job, unit, prepared, keptKey } = sending;
	const { ctx, service, ledger, keeping } = run;
	const taken = await keeping?.take(ctx, keptKey, job.reuse);
	if (taken) {
		ledger.reused(job.itemIndex, taken.source);
		const outcome = { answered: taken.answered, repeated: false, reusedFrom: taken.source };
		return await presented(sending, outcome);
	}
	let answered: INodeExecutionData[];
	try {
		answered = service.run
			? await service.run.call(ctx, job.itemIndex, prepared, clientOf(sending))
			: recordItems((await clientOf(sending).request(prepared as ServiceRequest)).body);
	} catch (error) {
		return { failed: error as Error, notSent: error instanceof NotSentError };
	}
	// Paid the moment the service answered: counted and kept before what the unit does with it (a
	// download), so that the Discarded figure and n8n's next try see it. A result file's rows never
	// fail the node, so only Retry On Fail (a first item that failed) runs them again: without it,
	// its answers would hold memory for nothing (unless the Options keep them for the node's next runs).
	ledger.paid(job.itemIndex);
	const forTries = !job.collector || keeping?.retryOnFail === true;
	keeping?.keep(keptKey, answered, unit.beside, forTries, job.reuse);
	if (!service.present) return { answered, repeated: false };
	const outcome = await presented(sending, { answered, repeated: false });
	// Kept again with a file the unit fetched for it (a download): a next run need not fetch it.
	if (
		'answered' in outcome &&
		outcome.answered.some((item, index) => item.binary && !answered[index]?.binary)
	) {
		keeping?.keep(keptKey, outcome.answered, unit.beside, forTries, job.reuse);
	}
	return outcome;
}

/**
 * What the unit's output makes of its answer (service.present): for every unit, whether its answer
 * was paid, shared by a repeat or reused; a failure here fails the unit, not the payment.
 */
async function presented<Prepared>(
	sending: UnitSending<Prepared>,
	outcome: UnitOutcome,
): Promise<UnitOutcome> {
	const { ctx, service } = sending.run;
	if (!service.present || !('answered' in outcome)) return outcome;
	try {
		const { itemIndex } = sending.job;
		const answered = outcome.answered;
		return {
			...outcome,
			answered: await service.present.call(
				ctx,
				itemIndex,
				sending.prepared,
				answered,
				clientOf(sending),
			),
		};
	} catch (error) {
		return { failed: error as Error, notSent: false };
	}
}

/** The unit's client: its requests pass the run's gate (paced, stopped once the run stops sending). */
function clientOf<Prepared>({ run, job, unit }: UnitSending<Prepared>) {
	const connection = run.connection as Connection;
	return connection.clientFor(job.itemIndex, run.ledger.gate(job.itemIndex, unit.label));
}

/**
 * The error that stops a run (default On Error), its description saying what the run had already
 * been answered, and what of it was charged, for (messages.ts: n8n keeps no output of a node that
 * stops on an error).
 */
function withCost<Prepared>(
	{ deliveries, ledger, keeping }: Run<Prepared>,
	failure: Error,
	kept: { paid: number; reused: number },
): Error {
	const figuresOf = (rows: boolean) =>
		sumOfFigures(
			deliveries
				.filter(({ job }) => job.rows === rows)
				.map(({ job }) => ledger.figuresOf(job.itemIndex)),
		);
	const testRun = keeping?.testRun === true;
	const cost = discardedText(figuresOf(false), figuresOf(true), ledger.figures, kept, testRun);
	if (cost === undefined) return failure;
	const error = failure as Error & { description?: string | null };
	error.description = error.description ? `${error.description} ${cost}` : cost;
	return error;
}

/** What the run saved and where it stopped, above the node's output in the editor. */
function addHints<Prepared>({ ctx, service, deliveries, ledger, keeping }: Run<Prepared>): void {
	const hints = runHints({
		serviceName: service.serviceName,
		figures: ledger.figures,
		rowsAnswered: deliveries.some(
			({ job }) => job.rows && ledger.figuresOf(job.itemIndex).unitsAnswered > 0,
		),
		retryOnFail: keeping?.retryOnFail === true,
		retrySources: keeping?.retrySources() ?? { executions: 1, testRuns: 0 },
		reuseAges: keeping?.reuseAges(),
		stoppedAt: ledger.stoppedAt,
		stopReason: ledger.stopReason,
	});
	// n8n 1.x before execution hints has no addExecutionHints.
	if (hints.length > 0 && typeof ctx.addExecutionHints === 'function')
		ctx.addExecutionHints(...hints);
}

/** A JSON answer as items: the record as it came, or one item per element of an array. */
export function recordItems(body: unknown): INodeExecutionData[] {
	if (Array.isArray(body)) return body.map((element) => ({ json: element as IDataObject }));
	return [{ json: (body ?? {}) as IDataObject }];
}
