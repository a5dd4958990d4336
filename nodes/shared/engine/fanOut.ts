import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import type { ReuseSource, RunFigures } from './runFigures';

/**
 * One input item that stands for many requests: the rows of a bulk CSV file. A service's
 * `prepare` returns a FanOut instead of one prepared request; the engine then sends each unit as
 * its own paced, retried request through the same bounded queue as items, and pairs every
 * output item to the input item that held the file.
 *
 * `prepare` must have checked the whole file before it returns (a bad row costs no credit);
 * the units themselves may then be produced lazily (an async iterable reading the file a second
 * time), so that a 50,000-row file is never held as 50,000 units.
 */
export type FanOutUnit<Prepared> = ({ prepared: Prepared } | { failed: Error }) & {
	/** Names the unit in messages, as the user sees it: "CSV row 7" (row 7 was not sent...). */
	label: string;
	/** The row's own JSON (its number and columns, under csvRow), added to the unit's output item next to the service's record. */
	rowJson?: IDataObject;
};

/**
 * What became of one unit:
 * - `answered`: the items its request produced (unpaired; json and binary as the service gave
 *   them). `repeated` is true when an earlier unit of the run sent the same request and this one
 *   shares its answer without a request of its own. `withoutRequest` is true when the service
 *   answered it without any request (ServiceDefinition's answerWithoutRequest): it cost nothing.
 *   `reusedFrom` says where a kept answer came from (answerRules.ts): its repeats are shared.
 * - `failed`: its error (an invalid value, a service error after its retries). `notSent` is
 *   true when the run stopped sending before this unit (the plan's credits ran out): it cost
 *   nothing.
 */
export type UnitOutcome =
	| {
			answered: INodeExecutionData[];
			repeated: boolean;
			withoutRequest?: boolean;
			reusedFrom?: ReuseSource;
	  }
	| { failed: Error; notSent: boolean };

/**
 * Takes a FanOut's outcomes instead of the engine making one item per unit (a result file). The
 * engine calls `add` once per unit, in unit order, awaiting each call (a slow writer slows the
 * queue), then `finish` once.
 */
export interface UnitCollector {
	add(outcome: UnitOutcome, unitIndex: number): Promise<void> | void;
	/**
	 * The output items of the FanOut's input item (the engine pairs them); called after the last
	 * `add`, with the figures of the item's units (undefined where the units send no request).
	 */
	finish(figures?: RunFigures): Promise<INodeExecutionData[]>;
	/** Called instead of `finish` when the run stops on an error (default On Error): release what it holds. */
	abort?(): Promise<void> | void;
}

export interface FanOutOptions {
	/** Takes the units' outcomes in order; without one, every unit becomes an output item (today's rows). */
	collector?: UnitCollector;
	/**
	 * How many of the units send each request (by the engine's identity of a unit), counted while the file was
	 * checked: the engine then forgets a shared answer after its last use. Without it, answers
	 * of lazily produced units are kept until the run ends.
	 */
	keyCounts?: Map<string, number>;
}

export class FanOut<Prepared> {
	constructor(
		readonly units: Iterable<FanOutUnit<Prepared>> | AsyncIterable<FanOutUnit<Prepared>>,
		readonly options: FanOutOptions = {},
	) {}
}
