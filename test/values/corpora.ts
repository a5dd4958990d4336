import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { csvItem } from '../nodes/csvHelpers';
import type { InputItem } from '../harness/run';
import addresses from './corpora/addresses.json';
import domains from './corpora/domains.json';
import phoneExamples from './corpora/phoneExamples.json';

/**
 * The value corpora (test/values/corpora/, written by scripts/refreshTestCorpora.ts from public
 * test sets; each file names its source and version) and the two ways the tests give them to a
 * node: one value per item, and one CSV file.
 */
export { addresses, domains, phoneExamples };

/** One CSV cell, always quoted (RFC 4180): commas, quotes and line breaks of a value kept. */
const cell = (value: string) => `"${value.replace(/"/g, '""')}"`;

/** A CSV file of `values` under one header, as a binary item (the node's column named `header`). */
export function csvFileOf(
	header: string,
	values: readonly string[],
	json: IDataObject = {},
): InputItem {
	return csvItem([header, ...values].map(cell).join('\r\n') + '\r\n', 'data', json);
}

/** The message of an item on a node's error output: `{ error: { message } }`. */
export const errorMessage = (item: INodeExecutionData) =>
	String((item.json.error as IDataObject | undefined)?.message ?? item.json.error);

/** The input item index an output item is paired to. */
export const pairedIndex = (item: INodeExecutionData) => (item.pairedItem as { item: number }).item;
