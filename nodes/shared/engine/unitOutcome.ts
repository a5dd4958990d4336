import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import type { Found, Payment } from './answerRules';
import type { Delivery } from './delivery';
import type { FanOutUnit, UnitOutcome } from './fanOut';
import { identityOf, type Job } from './jobs';
import { refile } from './keptAnswers';
import type { KeptAnswersOfRun } from './keptAnswersOfRun';
import { NotSentError, type RunLedger } from './runLedger';
import type { Connection } from './serviceClient';
import type { ServiceDefinition, ServiceRequest } from './types';

/*
 * What becomes of one unit. `decideUnit` decides it, in one order, for the run (outcomeOf) and for
 * Estimate Credits Only (estimate.ts) alike: refused before sending, answered without a request,
 * an answer the run already has (a repeat: answered even after the plan ran out), a kept answer
 * the rules give it (answerRules.ts), not sent (the run stopped sending), or sent.
 */

/** A run as its senders share it. */
export interface Run<Prepared> {
	ctx: IExecuteFunctions;
	service: ServiceDefinition<Prepared>;
	/** Each job with its output as it arrives, in the order of the input items. */
	deliveries: Array<Delivery<Prepared>>;
	ledger: RunLedger;
	/** The service's connection, or why there is none (every unit that sends fails with it). */
	connection: Connection | Error;
	continueOnFail: boolean;
	keptAnswers: KeptAnswersOfRun | undefined;
}

/** What the run does with a unit (`identity`: its request's, computed here once). */
export type Decision = { identity?: string } & (
	| { kind: 'refused'; error: Error }
	| { kind: 'withoutRequest'; answered: INodeExecutionData[] }
	| { kind: 'repeat' }
	| { kind: 'kept'; found: Found }
	| { kind: 'notSent' }
	| { kind: 'send' }
);

/** What a decision reads of the run so far: the requests its earlier units ask, whether it still sends, its kept answers. */
export interface RunSoFar {
	asks(identity: string): boolean;
	stopped: boolean;
	keptAnswers: KeptAnswersOfRun | undefined;
}

/** The one decision of what becomes of a unit, for the run and its estimate. */
export function decideUnit<Prepared>(
	service: ServiceDefinition<Prepared>,
	job: Job<Prepared>,
	unit: FanOutUnit<Prepared>,
	run: RunSoFar,
): Decision {
	if ('failed' in unit) return { kind: 'refused', error: unit.failed };
	const answered = service.answerWithoutRequest?.(unit.prepared);
	if (answered) return { kind: 'withoutRequest', answered };
	const identity = identityOf(service, unit.prepared);
	if (job.sendRepeatsOnce && identity !== undefined && run.asks(identity))
		return { identity, kind: 'repeat' };
	const found = run.keptAnswers?.find(identity, job.reuse, !job.sendRepeatsOnce);
	if (found) return { identity, kind: 'kept', found };
	return { identity, kind: run.stopped ? 'notSent' : 'send' };
}

/** What became of one unit, as decided (decideUnit), its answer presented. */
export async function outcomeOf<Prepared>(
	run: Run<Prepared>,
	job: Job<Prepared>,
	unit: FanOutUnit<Prepared>,
): Promise<UnitOutcome> {
	const { service, ledger, keptAnswers } = run;
	const decision = decideUnit(service, job, unit, {
		asks: (identity) => ledger.has(identity),
		stopped: ledger.stoppedAt !== undefined,
		keptAnswers,
	});
	if (decision.kind === 'refused') return { failed: decision.error, notSent: false };
	if (decision.kind === 'withoutRequest')
		return { answered: decision.answered, repeated: false, withoutRequest: true };
	const prepared = unit as FanOutUnit<Prepared> & { prepared: Prepared };
	const sending: UnitSending<Prepared> = { run, job, unit: prepared, identity: decision.identity };
	const notSent = () => ledger.notSentError(job.itemIndex, unit.label);
	if (decision.kind === 'repeat') {
		const shared = await ledger.share(decision.identity as string, job.itemIndex, notSent);
		return await presented(sending, shared);
	}
	const outcome = answerOf(sending, decision);
	if (job.sendRepeatsOnce && decision.identity !== undefined)
		ledger.remember(decision.identity, outcome);
	return await outcome;
}

/** A unit on its way to its answer. */
interface UnitSending<Prepared> {
	run: Run<Prepared>;
	job: Job<Prepared>;
	unit: FanOutUnit<Prepared> & { prepared: Prepared };
	identity: string | undefined;
}

/**
 * A unit's answer: a kept one, or asked of the service (and then kept). A kept answer whose file
 * the storage says is gone (answerGone) is dropped and the unit asks again, once.
 */
async function answerOf<Prepared>(
	sending: UnitSending<Prepared>,
	decision: Decision,
): Promise<UnitOutcome> {
	const { run, job, unit } = sending;
	const { ctx, ledger, keptAnswers } = run;
	if (decision.kind === 'kept' && keptAnswers) {
		const { found } = decision;
		const answered = await keptAnswers.take(ctx, found);
		if (answered) {
			const reused = { answered, repeated: false, reusedFrom: found.source };
			const outcome = await presented(sending, reused);
			keepFetched(found.payment, answered, outcome);
			if ('answered' in outcome) ledger.reused(job.itemIndex, found.source);
			if (!('failed' in outcome && isAnswerGone(outcome.failed))) return outcome;
			keptAnswers.drop(found.payment);
		}
	}
	if (decision.kind === 'notSent' || ledger.stoppedAt !== undefined)
		return { failed: ledger.notSentError(job.itemIndex, unit.label), notSent: true };
	if (run.connection instanceof Error) return { failed: run.connection, notSent: false };
	return await send(sending);
}

/** A unit's answer asked of the service, counted as paid and kept the moment it comes. */
async function send<Prepared>(sending: UnitSending<Prepared>): Promise<UnitOutcome> {
	const { run, job, unit, identity } = sending;
	const { ctx, service, ledger, keptAnswers } = run;
	let answered: INodeExecutionData[];
	try {
		answered = service.run
			? await service.run.call(ctx, job.itemIndex, unit.prepared, clientOf(sending))
			: recordItems((await clientOf(sending).request(unit.prepared as ServiceRequest)).body);
	} catch (error) {
		return { failed: error as Error, notSent: error instanceof NotSentError };
	}
	// Paid the moment the service answered: counted and kept before what the unit does with it (a
	// download), so that the Discarded figure and n8n's next try see it. A result file's rows never
	// fail the node, so only Retry On Fail (a first item that failed) runs them again: without it,
	// its answers would hold memory for nothing (unless the Options keep them for later runs).
	ledger.paid(job.itemIndex);
	const forTries = !job.collector || keptAnswers?.retryOnFail === true;
	const payment = keptAnswers?.keep(identity, answered, forTries, job.reuse);
	if (!service.present) return { answered, repeated: false };
	const outcome = await presented(sending, { answered, repeated: false });
	keepFetched(payment, answered, outcome);
	return outcome;
}

/**
 * A paid answer kept again with the file its unit fetched for it (a download): a next run need not
 * fetch it. Also when a kept answer had lost its file and the unit fetched it again: else every
 * later run would fetch it, until the link expires and the answer is paid for again.
 */
function keepFetched(
	payment: Payment | undefined,
	answered: INodeExecutionData[],
	outcome: UnitOutcome,
): void {
	if (
		payment &&
		'answered' in outcome &&
		outcome.answered.some((item, index) => item.binary && !answered[index]?.binary)
	)
		refile(payment, outcome.answered, true);
}

/**
 * Marks an error of `present` that says the answer's file is gone for good (a processed image the
 * storage answers 404, 403 or 410 for): a kept answer is then dropped and asked for again, once.
 */
export function answerGone<E extends Error>(error: E): E {
	(error as E & { answerGone?: true }).answerGone = true;
	return error;
}

function isAnswerGone(error: Error): boolean {
	return (error as Error & { answerGone?: true }).answerGone === true;
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
				sending.unit.prepared,
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

/** A JSON answer as items: the record as it came, or one item per element of an array. */
export function recordItems(body: unknown): INodeExecutionData[] {
	if (Array.isArray(body)) return body.map((element) => ({ json: element as IDataObject }));
	return [{ json: (body ?? {}) as IDataObject }];
}
