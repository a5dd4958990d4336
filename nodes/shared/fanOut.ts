import type { IDataObject } from 'n8n-workflow';

/**
 * One input item that stands for many requests: the rows of a bulk CSV file. A service's
 * `prepare` returns a FanOut instead of one prepared request; the engine then sends each unit as
 * its own paced, retried request through the same bounded queue as items, and pairs every
 * output item to the input item that held the file.
 */
export type FanOutUnit<Prepared> = ({ prepared: Prepared } | { failed: Error }) & {
	/** Names the unit in its errors ("CSV row 7"), so a stopped run says which row stopped it. */
	label: string;
	/** JSON put beside the service's record in the unit's output item (the row's number and columns). */
	beside: IDataObject;
};

export class FanOut<Prepared> {
	constructor(readonly units: Array<FanOutUnit<Prepared>>) {}
}
