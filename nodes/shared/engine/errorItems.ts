import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

/**
 * A failed item, shaped for where the node's "On Error" setting sends it.
 *
 * n8n-core (WorkflowExecute.handleNodeErrorOutput, in 1.x and 2.x alike) moves an item to the
 * error output only when `item.error` is set, or when its `json` is `{ error }` or
 * `{ error, message }` and nothing else. And after routing, every item with `item.error` set has
 * its `json` replaced by `{ error: message }` (n8n-core 2.11), which would drop the description
 * and a CSV row. So:
 * - "Continue (using error output)": `json` is `{ error: { message, description, ...context } }`,
 *   one key, which n8n routes to the error output and merges over the input item's JSON;
 * - "Continue (using regular output)": `json` is `{ error: message, description, ...context }`,
 *   as this package has always output it.
 */
export function errorItem(
	ctx: IExecuteFunctions,
	error: Error,
	itemIndex: number,
	context?: IDataObject,
): INodeExecutionData {
	const { message, description, httpCode } = error as Error & {
		description?: string | null;
		httpCode?: string | null;
	};
	const details: IDataObject = { message };
	if (description) details.description = description;
	if (httpCode) details.httpCode = httpCode;
	const json: IDataObject = toErrorOutput(ctx)
		? { error: { ...details, ...context } }
		: { error: message, ...(description ? { description } : {}), ...context };
	return { json, pairedItem: { item: itemIndex } };
}

/** Whether failed items go to the node's error output ("Continue (using error output)"). */
export function toErrorOutput(ctx: IExecuteFunctions): boolean {
	return ctx.getNode().onError === 'continueErrorOutput';
}
