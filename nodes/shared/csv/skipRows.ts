import type { IExecuteFunctions } from 'n8n-workflow';

import { invalidInput } from '../engine/errors';
import { fileInputError } from './fileErrors';

/*
 * Skip Rows: the rows of a file that a resumed run does not send, because the run it resumes had
 * them answered after the row it stopped at (answers come back out of order: a row retried after
 * a 429, a slow answer, several requests in flight). The summary of a result file names them as
 * `skipRows` beside `nextRow`; the resume gives both back (docs/bulk-csv.md).
 */

/** Row numbers as ascending, separate ranges [from, to]. */
export type RowRanges = Array<[number, number]>;

/** The option's value read: "4-7, 9", or a list of numbers or such texts (an expression's). */
export function skipRowsOf(
	ctx: IExecuteFunctions,
	itemIndex: number,
	field: string,
	value: unknown,
): RowRanges {
	const parts = (Array.isArray(value) ? value : [value ?? ''])
		.flatMap((part) => String(part).split(','))
		.map((part) => part.trim())
		.filter((part) => part !== '');
	const rows: Array<[number, number]> = parts.map((part) => {
		const match = /^(\d+)(?:\s*-\s*(\d+))?$/.exec(part);
		const [from, to] = match ? [Number(match[1]), Number(match[2] ?? match[1])] : [0, 0];
		if (!match || from < 1 || to < from) {
			const rule = `"${part}" is not a row number or a range of rows such as 4-7 (rows from 1, separated by commas)`;
			throw fileInputError(itemIndex, invalidInput(ctx, itemIndex, field, rule));
		}
		return [from, to];
	});
	return joined(rows);
}

/** Sorted, overlapping and adjacent ranges joined. */
function joined(rows: RowRanges): RowRanges {
	const ranges: RowRanges = [];
	for (const [from, to] of [...rows].sort((a, b) => a[0] - b[0])) {
		const last = ranges[ranges.length - 1];
		if (last && from <= last[1] + 1) last[1] = Math.max(last[1], to);
		else ranges.push([from, to]);
	}
	return ranges;
}

export function skips(ranges: RowRanges, row: number): boolean {
	return ranges.some(([from, to]) => from <= row && row <= to);
}

/** The rows of `ranges` and `rows` after row `after`, as the option takes them: "4-7, 9". */
export function rowsText(ranges: RowRanges, rows: number[], after: number): string {
	const all = joined([...ranges, ...rows.map((row): [number, number] => [row, row])]);
	return all
		.filter(([, to]) => to > after)
		.map(([from, to]) => [Math.max(from, after + 1), to])
		.map(([from, to]) => (from === to ? String(from) : `${from}-${to}`))
		.join(', ');
}
