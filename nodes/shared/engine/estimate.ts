import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import type { Delivery } from './delivery';
import { asNodeError, prepareJobs, type Job } from './jobs';
import { KeptAnswersOfRun } from './keptAnswersOfRun';
import {
	ESTIMATE_SAID,
	estimateHint,
	largeFileHint,
	namedBy,
	stopsBeforeSendingText,
} from './messages';
import {
	countReused,
	emptyFigures,
	REUSE_SOURCES,
	type ReuseSource,
	type RunFigures,
} from './runFigures';
import { RunLedger } from './runLedger';
import { credentialIdentity } from './serviceClient';
import type { RunSettingsReader, ServiceDefinition } from './types';
import { decideUnit, type RunSoFar } from './unitOutcome';
import { itemParameter } from './itemParameter';

/**
 * Options > Estimate Credits Only: what a run would cost, before it pays. It plans the jobs
 * through the same code as a run (jobs.ts: the node's own `prepare`, every input rule) and
 * decides for each unit as the engine's sending does, asking the kept answers only whether and
 * from where (never taking one): so the figure is the one a real run pays when nothing changes in
 * between (the service refusing or retrying a request, the plan running out, kept answers
 * expiring). It sends, keeps and spends nothing, and outputs one item with the counts.
 */

/** Refused values whose reasons the summary gives (a file with thousands of them would be unreadable). */
export const REASONS_SHOWN = 5;

/** A file longer than this gets a hint on a real run that points to the option. */
export const LARGE_FILE_ROWS = 1000;

/** The counts of a run, or of its files' every row. */
interface Counts {
	/**
	 * What the run would do, as a run's figures: `answersPaid` the requests it would send,
	 * `answersShared` the repeats of a value it already asks, `answersReused` the kept answers.
	 */
	would: RunFigures;
	rows: number;
	distinctValues: number;
	/** Units answered without a request (Company Enrichment's webmail). */
	skipped: number;
	refused: number;
	reasons: string[];
}

/** The run's one output item: the counts, nothing sent. */
export async function estimateCredits<Prepared>(
	ctx: IExecuteFunctions,
	service: ServiceDefinition<Prepared>,
	settings: RunSettingsReader,
): Promise<INodeExecutionData[][]> {
	const items = ctx.getInputData();
	const run = await countRun(ctx, service, settings, false);
	const json: IDataObject = {
		estimate: ESTIMATE_SAID,
		items: items.length,
		...(run.files ? { rows: run.counts.rows } : {}),
		...figures(run.counts),
	};
	const stops = !ctx.continueOnFail() && run.counts.refused > 0;
	if (stops) {
		// Default On Error: the real run checks everything first and stops at the first refused value.
		json.requestsToSend = 0;
		json.requestsWithoutRefused = run.counts.would.answersPaid;
		json.stopsBeforeSending = stopsBeforeSendingText(
			run.counts.refused,
			run.counts.would.answersPaid,
		);
	}
	if (run.sliced) {
		const whole = await countRun(ctx, service, settings, true);
		if (whole.counts.rows !== run.counts.rows)
			json.wholeFile = { rows: whole.counts.rows, ...figures(whole.counts) };
	}
	if (typeof ctx.addExecutionHints === 'function') {
		const requests = stops ? 0 : run.counts.would.answersPaid;
		ctx.addExecutionHints(estimateHint(requests, run.counts.distinctValues));
	}
	const pairedItem = items.map((_, item) => ({ item }));
	return [[{ json, ...(pairedItem.length > 0 ? { pairedItem } : {}) }]];
}

/** The counts as the summary shows them: what would be sent, and what would not and why. */
function figures(counts: Counts): IDataObject {
	const { would } = counts;
	const reused = would.answersReused;
	const reusedFrom: IDataObject = {};
	const names: Record<ReuseSource, string> = {
		try: 'earlierTry',
		retry: 'failedExecution',
		testRuns: 'testRuns',
		earlierRuns: 'earlierRuns',
	};
	for (const source of REUSE_SOURCES)
		if (would.reusedFrom[source] > 0) reusedFrom[names[source]] = would.reusedFrom[source];
	return {
		distinctValues: counts.distinctValues,
		requestsToSend: would.answersPaid,
		notSent: {
			repeats: would.answersShared,
			reused,
			skipped: counts.skipped,
			refused: counts.refused,
		},
		...(reused > 0 ? { reusedFrom } : {}),
		...(counts.refused > 0 ? { refusedReasons: counts.reasons } : {}),
	};
}

/**
 * Prepares every item as the run would (jobs.ts), its refusals planned as under a Continue
 * setting whatever On Error says (so that the summary counts them all; a file's check then reads
 * on past its first refused value), and decides for each unit what the run would do with it.
 * `wholeFiles`: every row of each file, whatever Start at Row, At Most Rows and Skip Rows choose.
 */
async function countRun<Prepared>(
	ctx: IExecuteFunctions,
	service: ServiceDefinition<Prepared>,
	settings: RunSettingsReader,
	wholeFiles: boolean,
): Promise<{ counts: Counts; files: boolean; sliced: boolean }> {
	const jobs = await prepareJobs({
		ctx,
		service,
		settings,
		ledger: new RunLedger(ctx, service.serviceName),
		continueOnFail: true,
		planned: new Set<string>(),
		wholeFiles,
	});
	let keptAnswers: KeptAnswersOfRun | undefined;
	if (service.keepAnswersForRetry !== false && jobs.some((job) => job.sends)) {
		let identity: string;
		try {
			identity = await credentialIdentity(ctx, service);
		} catch (error) {
			throw asNodeError(ctx, error, 0);
		}
		keptAnswers = KeptAnswersOfRun.open(
			ctx,
			identity,
			jobs.map((job) => job.reuse),
			{ estimate: true },
		);
	}
	const counts = await countUnits(ctx, service, jobs, keptAnswers);
	return {
		counts,
		files: jobs.some((job) => job.rows),
		sliced: !wholeFiles && jobs.some((job) => job.rows && sliced(ctx, job.itemIndex)),
	};
}

/** Whether an item's Options choose a slice of its file (Start at Row, At Most Rows). */
function sliced(ctx: IExecuteFunctions, itemIndex: number): boolean {
	const options = itemParameter(ctx, 'options', itemIndex, {}) as IDataObject;
	return (
		(options.startAtRow !== undefined && Number(options.startAtRow) !== 1) ||
		options.maxRows !== undefined ||
		(options.skipRows !== undefined && String(options.skipRows).trim() !== '')
	);
}

/** Each unit as the engine would treat it (unitOutcome.ts, outcomeOf), in the same order, with nothing sent. */
async function countUnits<Prepared>(
	ctx: IExecuteFunctions,
	service: ServiceDefinition<Prepared>,
	jobs: Array<Job<Prepared>>,
	keptAnswers: KeptAnswersOfRun | undefined,
): Promise<Counts> {
	const counts: Counts = {
		would: emptyFigures(),
		rows: 0,
		distinctValues: 0,
		skipped: 0,
		refused: 0,
		reasons: [],
	};
	const refuse = (job: Job<Prepared>, label: string, error: Error) => {
		counts.refused++;
		// A row's own error names its row; an item's does not.
		if (counts.reasons.length < REASONS_SHOWN)
			counts.reasons.push(job.rows ? error.message : namedBy(label, error.message));
	};
	/** Requests the run asks (first unit sent or reused, the others share its answer). */
	const asked = new Set<string>();
	/** Every value that costs a credit somewhere: sent, reused or repeated. */
	const distinct = new Set<string>();
	const soFar: RunSoFar = { asks: (identity) => asked.has(identity), stopped: false, keptAnswers };
	for (const job of jobs) {
		try {
			for await (const unit of job.units) {
				if (job.rows) counts.rows++;
				// The run's own decision (unitOutcome.ts), with nothing sent.
				const decision = decideUnit(service, job, unit, soFar);
				if (decision.kind === 'refused') {
					refuse(job, unit.label, decision.error);
					continue;
				}
				if (decision.kind === 'withoutRequest') {
					counts.skipped++;
					continue;
				}
				const { identity } = decision;
				if (identity === undefined) counts.distinctValues++;
				else distinct.add(identity);
				if (job.sendRepeatsOnce && identity !== undefined) asked.add(identity);
				if (decision.kind === 'repeat') counts.would.answersShared++;
				else if (decision.kind === 'kept' && (await keptAnswers?.take(ctx, decision.found)))
					countReused(counts.would, decision.found.source);
				else counts.would.answersPaid++;
			}
		} catch (error) {
			// The file could not be read to its end: the real run fails the item there.
			refuse(job, `item ${job.itemIndex + 1}`, error as Error);
		} finally {
			// A result file's collector was made but never written: let go of it.
			await job.collector?.abort?.();
		}
	}
	counts.distinctValues += distinct.size;
	return counts;
}

/**
 * On a real run, a file of more than LARGE_FILE_ROWS rows: a hint that its cost can be known
 * before it is paid.
 */
export function addEstimateHint<Prepared>(
	ctx: IExecuteFunctions,
	deliveries: Array<Delivery<Prepared>>,
): void {
	const rows = Math.max(
		0,
		...deliveries.map(({ job, unitsRead }) => (job.rows ? (unitsRead ?? 0) : 0)),
	);
	if (rows <= LARGE_FILE_ROWS || typeof ctx.addExecutionHints !== 'function') return;
	ctx.addExecutionHints(largeFileHint(rows));
}
