import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { Delivery } from './delivery';
import { addEstimateHint, estimateCredits } from './estimate';
import type { FanOutUnit } from './fanOut';
import { asNodeError, prepareJobs } from './jobs';
import { KeptAnswersOfRun } from './keptAnswersOfRun';
import { now } from './keptAnswers';
import { discardedText, namedBy, retrySourcesOf, reuseAgesOf, runHints } from './messages';
import { sumOfFigures } from './runFigures';
import { RunLedger } from './runLedger';
import { connect, type Connection } from './serviceClient';
import type { RunSettingsReader, ServiceDefinition } from './types';
import { outcomeOf, type Run } from './unitOutcome';

/** The JSON answer of a node's own `run` as items (nodes call it as the engine's). */
export { recordItems } from './unitOutcome';

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

	const deliveries = jobs.map((job) => new Delivery(job));
	// The units of all jobs, read as the senders ask (a file's rows stream from its file).
	const source = unitsOf({ ctx, deliveries, continueOnFail });
	// Whatever ends the run (an error, a stop, a failed output), the file being read is closed
	// where the run left it (in filesystem mode its read stream would stay open mid-file), and
	// unless every item's output was made, every result file is aborted: those of the items after
	// a failed one would otherwise wait for rows forever.
	let delivered = false;
	try {
		let connection: Connection | Error = new Error('no request to send');
		if (jobs.some((job) => job.sends)) {
			try {
				connection = await connect(ctx, service);
			} catch (error) {
				if (!continueOnFail) throw asNodeError(ctx, error, 0);
				connection = error as Error;
			}
		}
		const keptAnswers =
			connection instanceof Error || service.keepAnswersForRetry === false
				? undefined
				: KeptAnswersOfRun.open(
						ctx,
						connection.identity,
						jobs.map((job) => job.reuse),
						{ planned },
					);
		const run = { ctx, service, deliveries, ledger, connection, continueOnFail, keptAnswers };
		// A run that ends on an unexpected throw still ends in the store (what it spares is let go).
		const failure = await sendAll(run, source).catch((error: Error) => {
			keptAnswers?.finish(true);
			throw error;
		});
		// Stopped by the user: n8n keeps nothing of this run, and an error would mark it failed, not stopped.
		if (ledger.cancelled) {
			keptAnswers?.finish(true);
			return [[]];
		}
		if (failure !== undefined) {
			const keptForRetry = keptAnswers?.finish(true) ?? { paid: 0, reused: 0 };
			throw withCost(run, failure, keptForRetry);
		}

		const output: INodeExecutionData[] = [];
		try {
			for (const delivery of deliveries) {
				const figures = ledger.figuresOf(delivery.job.itemIndex);
				output.push(...(await delivery.output(ctx, figures, continueOnFail)));
			}
		} catch (error) {
			keptAnswers?.finish(true);
			throw asNodeError(ctx, error, 0);
		}
		// n8n-core's WorkflowExecute runs a node with Retry On Fail again while the first item of its
		// first output has `json.error` (an error item, under either Continue setting).
		keptAnswers?.finish(false, output[0]?.json?.error !== undefined);
		addHints(run);
		addEstimateHint(ctx, deliveries);
		delivered = true;
		return [output];
	} finally {
		await source.return(undefined);
		if (!delivered) await Promise.all(jobs.map(async (job) => await job.collector?.abort?.()));
	}
}

/**
 * Sends every unit of every job through one bounded queue, in order. Returns the error that
 * stops the run (default On Error: the first failure), or undefined when every unit has an
 * outcome delivered.
 */
async function sendAll<Prepared>(
	run: Run<Prepared>,
	source: AsyncGenerator<Sendable<Prepared>>,
): Promise<Error | undefined> {
	const { ctx, ledger, connection, continueOnFail } = run;
	let failure: Error | undefined;
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
}: Pick<Run<Prepared>, 'ctx' | 'deliveries' | 'continueOnFail'>): AsyncGenerator<
	Sendable<Prepared>
> {
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

/**
 * The error that stops a run (default On Error), its description extended with what the run had
 * already been answered and what of that was charged (messages.ts's discardedText): n8n keeps no
 * output of a node that stops on an error, so those answers reach no output (what was paid stays
 * kept for a Retry of the execution, which the description also says).
 */
function withCost<Prepared>(
	{ deliveries, ledger, keptAnswers }: Run<Prepared>,
	failure: Error,
	kept: { paid: number; reused: number },
): Error {
	const figuresOf = (rows: boolean) =>
		sumOfFigures(
			deliveries
				.filter(({ job }) => job.rows === rows)
				.map(({ job }) => ledger.figuresOf(job.itemIndex)),
		);
	const testRun = keptAnswers?.run.testRun === true;
	const cost = discardedText(figuresOf(false), figuresOf(true), ledger.figures, kept, testRun);
	if (cost === undefined) return failure;
	const error = failure as Error & { description?: string | null };
	error.description = error.description ? `${error.description} ${cost}` : cost;
	return error;
}

/** What the run saved and where it stopped, above the node's output in the editor. */
function addHints<Prepared>({
	ctx,
	service,
	deliveries,
	ledger,
	keptAnswers,
}: Run<Prepared>): void {
	const hints = runHints({
		serviceName: service.serviceName,
		figures: ledger.figures,
		rows: deliveries.some(({ job }) => {
			const { unitsAnswered, unitsNotSent } = ledger.figuresOf(job.itemIndex);
			return job.rows && unitsAnswered + unitsNotSent > 0;
		}),
		retryOnFail: keptAnswers?.retryOnFail === true,
		retrySources: keptAnswers ? retrySourcesOf(keptAnswers.taken) : { executions: 1, testRuns: 0 },
		reuseAges: keptAnswers ? reuseAgesOf(keptAnswers.taken, now()) : undefined,
		stoppedAt: ledger.stoppedAt,
		stopReason: ledger.stopReason,
	});
	// n8n 1.x before execution hints has no addExecutionHints.
	if (hints.length > 0 && typeof ctx.addExecutionHints === 'function')
		ctx.addExecutionHints(...hints);
}
