/**
 * The second pass over an IP lookup CSV file: the rows of the slice the first pass found, handed
 * out in order as the file streams, and the rest of the file left unread.
 */

import type { IBinaryData, IExecuteFunctions } from 'n8n-workflow';

import { CsvScanner, csvFields } from '../shared/csv/csv';
import { chunksOf } from '../shared/csv/fileChunks';
import { type InputForm, readerDelimiter } from '../shared/csv/inputForm';

export interface Row {
	number: number;
	line: number;
	fields: string[];
}

/** The second pass: each row of the slice, in order, read as the file streams; the rest of the file is not read. */
export async function eachRow(
	ctx: IExecuteFunctions,
	meta: IBinaryData,
	shape: { firstRow: number; lastRow: number; form: InputForm },
	handle: (row: Row) => Promise<void>,
): Promise<void> {
	const rows: Row[] = [];
	const scanner = new CsvScanner(
		(record) => {
			if (record.number >= shape.firstRow && record.number <= shape.lastRow) {
				rows.push({ number: record.number, line: record.line, fields: csvFields(record) });
			}
		},
		{ delimiter: readerDelimiter(shape.form) },
	);
	const handleRowsRead = async () => {
		for (let index = 0; index < rows.length; index++) await handle(rows[index]);
		const last = rows.length > 0 ? rows[rows.length - 1].number : 0;
		rows.length = 0;
		return last;
	};
	for await (const chunk of chunksOf(ctx, meta)) {
		scanner.push(chunk);
		// Past the slice: leaving the loop closes the stream.
		if ((await handleRowsRead()) >= shape.lastRow) return;
	}
	scanner.end();
	await handleRowsRead();
}
