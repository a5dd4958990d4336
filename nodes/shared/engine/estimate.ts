import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { capitalised } from './errors';
import { asNodeError, keyOf, prepareJobs, serviceKey, type Job } from './jobs';
import { AnswerKeeping, type ReuseSource } from './keptAnswers';
import { RunLedger } from './runLedger';
import { credentialIdentity } from './serviceClient';
import type { RunSettingsReader, ServiceDefinition } from './types';

/**
 * Options > Estimate Credits Only: what a run would cost, before it pays.
 *
 * The run does everything it does before its first request, through the same code: it reads
 * each item and each file (the node's own `prepare`, so every input rule, Start at Row and At
 * Most Rows), and decides for each value as the engine's sending does (engine.ts): refused, skipped
 * without a request (Company Enrichment's webmail), a repeat of a value the run already asks
 * (Send Repeated Values Once), an answer the run would take from the kept answers (keptAnswers.ts,
 * asked only whether and from where, never taken), or a request. It sends nothing, keeps nothing
 * and spends nothing, and outputs one item with the counts.
 *
 * The figure is the one a real run pays when nothing changes in between, because both take the
 * same decisions from the same state. What can change it: the service refusing or failing a
 * request (a refused request is not shared with its repeats, a retried one counts again), the
 * plan running out, kept answers expiring or being dropped for memory (another workflow's
 * answers fill the same budget), a kept file that n8n no longer has.
 */

/** Refused values whose reasons the summary gives (a file with thousands of them would be unreadable). */
export const REASONS_SHOWN = 5;

/** A file longer than this gets a hint on a real run that points to the option. */
export const LARGE_FILE_ROWS = 1000;

/** The counts of a run, or of its files' every row. */
interface Counts {
	rows: number;
	distinctValues: number;
	requestsToSend: number;
	repeats: number;
	reused: Record<ReuseSource, number>;
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
		estimate:
			'Nothing was sent, kept or spent: these are the requests a run of this node would send now, on this input',
		items: items.length,
		...(run.files ? { rows: run.counts.rows } : {}),
		...figures(run.counts),
	};
	const stops = !ctx.continueOnFail() && run.counts.refused > 0;
	if (stops) {
		// Default On Error: the real run checks everything first and stops at the first refused value.
		json.requestsToSend = 0;
		json.requestsWithoutRefused = run.counts.requestsToSend;
		json.stopsBeforeSending = `On Error is Stop Workflow: the run would stop on its first refused value (refusedReasons) and send nothing. Remove the ${count(run.counts.refused, 'refused value')}, or set On Error to Continue, and it would send ${count(run.counts.requestsToSend, 'request')}.`;
	}
	if (run.sliced) {
		const whole = await countRun(ctx, service, settings, true);
		if (whole.counts.rows !== run.counts.rows)
			json.wholeFile = { rows: whole.counts.rows, ...figures(whole.counts) };
	}
	if (typeof ctx.addExecutionHints === 'function') {
		const requests = stops ? 0 : run.counts.requestsToSend;
		ctx.addExecutionHints({
			message: `Estimate only, nothing was sent: a run would send ${count(requests, 'request')} (${count(run.counts.distinctValues, 'distinct value')}). Turn Estimate Credits Only off in Options to run it.`,
			type: 'info',
			location: 'outputPane',
		});
	}
	const pairedItem = items.map((_, item) => ({ item }));
	return [[{ json, ...(pairedItem.length > 0 ? { pairedItem } : {}) }]];
}

/** The counts as the summary shows them: what would be sent, and what would not and why. */
function figures(counts: Counts): IDataObject {
	const reused =
		counts.reused.try + counts.reused.retry + counts.reused.testRuns + counts.reused.earlierRuns;
	const reusedFrom: IDataObject = {};
	const names: Record<ReuseSource, string> = {
		try: 'earlierTry',
		retry: 'failedExecution',
		testRuns: 'testRuns',
		earlierRuns: 'earlierRuns',
	};
	for (const source of Object.keys(names) as ReuseSource[])
		if (counts.reused[source] > 0) reusedFrom[names[source]] = counts.reused[source];
	return {
		distinctValues: counts.distinctValues,
		requestsToSend: counts.requestsToSend,
		notSent: { repeats: counts.repeats, reused, skipped: counts.skipped, refused: counts.refused },
		...(reused > 0 ? { reusedFrom } : {}),
		...(counts.refused > 0 ? { refusedReasons: counts.reasons } : {}),
	};
}

/**
 * Prepares every item as the run would, refusals included whatever On Error says (so that the
 * summary counts them all; a file's check then reads on past its first refused value), and
 * decides for each unit what the run would do with it. `wholeFiles`: without Start at Row and At
 * Most Rows, for the figures of the files' every row.
 */
async function countRun<Prepared>(
	ctx: IExecuteFunctions,
	service: ServiceDefinition<Prepared>,
	settings: RunSettingsReader,
	wholeFiles: boolean,
): Promise<{ counts: Counts; files: boolean; sliced: boolean }> {
	const looking = lookingOnly(ctx, wholeFiles);
	const jobs = await prepareJobs(
		looking,
		service,
		settings,
		new RunLedger(looking, service.serviceName),
		true,
		new Set<string>(),
	);
	let keeping: AnswerKeeping | undefined;
	if (service.keepAnswersForRetry !== false && jobs.some((job) => job.sends)) {
		let identity: string;
		try {
			identity = await credentialIdentity(ctx, service);
		} catch (error) {
			throw asNodeError(ctx, error, 0);
		}
		keeping = AnswerKeeping.open(
			ctx,
			identity,
			jobs.map((job) => job.reuse),
			{ estimate: true },
		);
	}
	const counts = await countUnits(ctx, service, jobs, keeping);
	return {
		counts,
		files: jobs.some((job) => job.rows),
		sliced: !wholeFiles && jobs.some((job) => job.rows && sliced(ctx, job.itemIndex)),
	};
}

/** Whether an item's Options choose a slice of its file (Start at Row, At Most Rows). */
function sliced(ctx: IExecuteFunctions, itemIndex: number): boolean {
	const options = ctx.getNodeParameter('options', itemIndex, {}) as IDataObject;
	return (
		(options.startAtRow !== undefined && Number(options.startAtRow) !== 1) ||
		options.maxRows !== undefined
	);
}

/** Each unit as the engine's sending would treat it (engine.ts, sendAll), in the same order, with nothing sent. */
async function countUnits<Prepared>(
	ctx: IExecuteFunctions,
	service: ServiceDefinition<Prepared>,
	jobs: Array<Job<Prepared>>,
	keeping: AnswerKeeping | undefined,
): Promise<Counts> {
	const counts: Counts = {
		rows: 0,
		distinctValues: 0,
		requestsToSend: 0,
		repeats: 0,
		reused: { try: 0, retry: 0, testRuns: 0, earlierRuns: 0 },
		skipped: 0,
		refused: 0,
		reasons: [],
	};
	const refuse = (job: Job<Prepared>, label: string, error: Error) => {
		counts.refused++;
		// A row's own error names its row; an item's does not.
		if (counts.reasons.length < REASONS_SHOWN)
			counts.reasons.push(job.rows ? error.message : `${capitalised(label)}: ${error.message}`);
	};
	/** Requests the run asks (first unit sent or reused, the others share its answer). */
	const asked = new Set<string>();
	/** Every value that costs a credit somewhere: sent, reused or repeated. */
	const distinct = new Set<string>();
	for (const job of jobs) {
		try {
			for await (const unit of job.units) {
				if (job.rows) counts.rows++;
				if ('failed' in unit) {
					refuse(job, unit.label, unit.failed);
					continue;
				}
				if (service.answerWithoutRequest?.(unit.prepared)) {
					counts.skipped++;
					continue;
				}
				const key = keyOf(service, job, unit.prepared);
				const identity = key ?? serviceKey(service, unit.prepared);
				if (identity === undefined) counts.distinctValues++;
				else distinct.add(identity);
				// The key a kept answer is filed under (with repeats each sent: which occurrence), as the engine asks it.
				const keptKey = keeping?.keyFor(
					job.sendRepeatsOnce ? key : serviceKey(service, unit.prepared),
					job.sendRepeatsOnce,
				);
				if (key !== undefined) {
					if (asked.has(key)) {
						counts.repeats++;
						continue;
					}
					asked.add(key);
				}
				const source = keeping?.sourceOf(keptKey, job.reuse);
				if (source) counts.reused[source]++;
				else counts.requestsToSend++;
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
 * The node's context as an estimate reads it: every item's refusal is reported instead of
 * stopping the reading (a file's check reads on past its first refused value), and, for the
 * files' every row, without the slice that Start at Row and At Most Rows choose. Everything else
 * is the node's own context, called on it.
 */
function lookingOnly(ctx: IExecuteFunctions, wholeFiles: boolean): IExecuteFunctions {
	const getNodeParameter = (...args: Parameters<IExecuteFunctions['getNodeParameter']>) => {
		const value = ctx.getNodeParameter(...args) as unknown;
		if (!wholeFiles || args[0] !== 'options' || typeof value !== 'object' || value === null)
			return value;
		const { startAtRow: _start, maxRows: _max, ...rest } = value as IDataObject;
		return rest;
	};
	return new Proxy(ctx, {
		get(target, property) {
			if (property === 'continueOnFail') return () => true;
			if (property === 'getNodeParameter') return getNodeParameter;
			const value = Reflect.get(target, property, target) as unknown;
			return typeof value === 'function'
				? (value as (...args: unknown[]) => unknown).bind(target)
				: value;
		},
	});
}

/**
 * On a real run, a file of more than LARGE_FILE_ROWS rows: a hint that its cost can be known
 * before it is paid.
 */
export function addEstimateHint<Prepared>(
	ctx: IExecuteFunctions,
	jobs: Array<Job<Prepared>>,
): void {
	const rows = Math.max(0, ...jobs.map((job) => (job.rows ? (job.unitsRead ?? 0) : 0)));
	if (rows <= LARGE_FILE_ROWS || typeof ctx.addExecutionHints !== 'function') return;
	ctx.addExecutionHints({
		message: `${count(rows, 'row')} of a file in this run: to know what a run will cost before it pays, turn on Estimate Credits Only in Options (it counts the requests and sends none)`,
		type: 'info',
		location: 'outputPane',
	});
}

/** "1 request", "29,000 requests". */
function count(value: number, noun: string): string {
	return `${value.toLocaleString('en-US')} ${noun}${value === 1 ? '' : 's'}`;
}
