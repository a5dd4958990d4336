import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import type { Delivery } from './delivery';
import type { FanOutUnit, UnitOutcome } from './fanOut';
import { keyOf, serviceKey, type Job } from './jobs';
import type { KeptAnswersOfRun } from './keptAnswersOfRun';
import { NotSentError, type RunLedger } from './runLedger';
import type { Connection } from './serviceClient';
import type { ServiceDefinition, ServiceRequest } from './types';

/*
 * What becomes of one unit, decided in the order that keeps credits: answered without a request,
 * not sent (the run stopped), shared with a repeat (runLedger.ts), taken from the kept answers, or
 * sent; and what the unit's output makes of its answer. The engine's senders call it (engine.ts).
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

/** What became of one unit: answered without a request, not sent, shared with a repeat, reused, or sent. */
export async function outcomeOf<Prepared>(
	run: Run<Prepared>,
	job: Job<Prepared>,
	unit: FanOutUnit<Prepared>,
): Promise<UnitOutcome> {
	const { service, ledger, connection, keptAnswers } = run;
	if ('failed' in unit) return { failed: unit.failed, notSent: false };
	const withoutRequest = service.answerWithoutRequest?.(unit.prepared);
	if (withoutRequest) return { answered: withoutRequest, repeated: false, withoutRequest: true };
	if (connection instanceof Error) return { failed: connection, notSent: false };
	const key = keyOf(service, job, unit.prepared);
	const keptKey = keptAnswers?.keyFor(
		job.sendRepeatsOnce ? key : serviceKey(service, unit.prepared),
		job.sendRepeatsOnce,
	);
	// An answer an earlier try paid for costs nothing, even after this run stopped sending.
	if (ledger.stoppedAt !== undefined && !keptAnswers?.has(keptKey, job.reuse)) {
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
	const { ctx, service, ledger, keptAnswers } = run;
	const taken = await keptAnswers?.take(ctx, keptKey, job.reuse);
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
	const forTries = !job.collector || keptAnswers?.retryOnFail === true;
	keptAnswers?.keep(keptKey, answered, unit.rowJson, forTries, job.reuse);
	if (!service.present) return { answered, repeated: false };
	const outcome = await presented(sending, { answered, repeated: false });
	// Kept again with a file the unit fetched for it (a download): a next run need not fetch it.
	if (
		'answered' in outcome &&
		outcome.answered.some((item, index) => item.binary && !answered[index]?.binary)
	) {
		keptAnswers?.keep(keptKey, outcome.answered, unit.rowJson, forTries, job.reuse);
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

/** A JSON answer as items: the record as it came, or one item per element of an array. */
export function recordItems(body: unknown): INodeExecutionData[] {
	if (Array.isArray(body)) return body.map((element) => ({ json: element as IDataObject }));
	return [{ json: (body ?? {}) as IDataObject }];
}
