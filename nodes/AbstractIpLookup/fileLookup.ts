import { deepCopy, NodeOperationError } from 'n8n-workflow';
import type { IBinaryData, IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { binaryPropertyName, inputFileMeta } from '../shared/binary/files';
import { AnswerFlattener } from '../shared/csv/answerColumns';
import { CsvBoundError, CsvError, CsvScanner, csvField, csvFields } from '../shared/csv/csv';
import { resultFileName } from '../shared/csv/csvInput';
import {
	type ColumnChoice,
	type HeaderRow,
	headerRowOf,
	inputDelimiterOf,
	outputOf,
	type ReaderDelimiter,
	resultPropertyOf,
	type Slice,
	sliceOf,
} from '../shared/csv/csvParameterReaders';
import { columnsOf, CSV_ROW_KEY, firstRowHeader, headerPosition } from '../shared/csv/csvRows';
import { chunksOf } from '../shared/csv/fileChunks';
import { delimiterRule, delimiterSummary, type InputForm, readAs } from '../shared/csv/inputForm';
import { ResultFile } from '../shared/csv/resultFile';
import { startAtRowOption } from '../shared/csv/csvParameters';
import { CsvCellWriter } from '../shared/csv/csvWriter';
import { errorItem } from '../shared/engine/errorItems';
import { fieldLabel } from '../shared/parameters/fieldLabel';
import { parseIpAddress } from '../shared/values/ipAddress';
import { AddressMemo } from './addressMemo';
import { inputError, text } from './databaseChoice';
import { answerColumnsOf } from './fileColumns';
import { addressColumnOf, FILE_FIELD, fileError, fileRule, formatOf, rowError } from './fileErrors';
import { eachRow, type Row } from './fileRows';
import type { OpenedDatabases } from './openDatabases';
import { csvFileField } from './properties';
import { itemParameter } from '../shared/engine/itemParameter';

/**
 * Input "CSV File": every row's address looked up, as one item per row or one result file
 * (the package's CSV reader and result-file writer, nodes/shared/csv/). Nothing is sent, so no
 * row limit: the file is streamed twice, never held. The first pass reads the file's shape (its
 * header, widest row, last row, the slice's rows) and, unless On Error continues, checks every
 * address of the slice, so that a bad row stops the run before any output; the second pass looks
 * the rows up and writes them out as it reads them.
 */

/**
 * Answers the memo holds: as items' JSON (about 1 KB each), or as a result file's CSV text (about
 * 200 bytes), so that a log's distinct addresses of a month mostly fit, in a few MB. Items' JSON
 * needs no bound in size: each answer the memo holds is the JSON of the item of its address's
 * first row (rowItemJson), so that it holds nothing beside the items (a hostile file's records may
 * each make up to the reader's bound: a second copy of each filled a 256 MiB heap with a log of
 * 1,000 addresses). Texts are held apart from any item: 16 Mi characters (a 64 KiB string of
 * control characters is 384 KB of text as JSON; at the bound of a MiB, 64 of those filled a 256
 * MiB heap).
 */
export const ANSWERS_HELD = 16_384;
/** The texts: 65,536 of them, 16 Mi characters in all. */
export const ANSWER_TEXTS_HELD = { answers: 65_536, size: 16 * 1024 * 1024 };

/**
 * The memo of answers for rows as items: each answer a copy of its own (an answer may share a
 * record with the reader's cache, which outlives the run), for rowItemJson to hand out.
 */
export const rowItemsMemo = (lookUp: OpenedDatabases['lookUp']) =>
	new AddressMemo<IDataObject>((address, ipAddress) => deepCopy(lookUp(address, ipAddress)), {
		answers: ANSWERS_HELD,
	});

/**
 * The JSON of a row's item: the answer for its address with the row (`csvRow`), or undefined
 * when it is not an address. The first row of an address takes the memo's answer itself; later
 * rows get a copy of it, their own row in place of the first's.
 */
export function rowItemJson(
	memo: AddressMemo<IDataObject>,
	ipAddress: string,
	csvRow: IDataObject,
): IDataObject | undefined {
	const made = memo.lookups;
	const found = memo.answer(ipAddress);
	if (found === undefined) return undefined;
	if (memo.lookups !== made) return Object.assign(found, csvRow);
	return Object.assign(deepCopy(found), csvRow);
}

interface FileShape {
	header: string[] | undefined;
	/** 1-based position of the address column. */
	position: number;
	width: number;
	dataRows: number;
	lastFileRow: number;
	firstRow: number;
	lastRow: number;
	/** The stream the file was read from (filesystem mode): its class makes the result file's stream. */
	inputStream?: NodeJS.ReadableStream;
	/** The file's delimiter (given, from a `sep=` line or detected from its first rows) and whether it has a byte order mark. */
	form: InputForm;
}

/** The output items of one input item's file; throws for a file or parameter the item cannot use. */
export async function lookUpFile(
	ctx: IExecuteFunctions,
	itemIndex: number,
	open: () => Promise<OpenedDatabases>,
	continueOnFail: boolean,
): Promise<INodeExecutionData[]> {
	const property = binaryPropertyName(
		ctx,
		itemIndex,
		FILE_FIELD,
		ctx.getNodeParameter(csvFileField.name, itemIndex, 'data'),
	);
	const meta = inputFileMeta(ctx, itemIndex, FILE_FIELD, property);
	const output = outputOf(ctx, itemIndex);
	const options = itemParameter(ctx, 'options', itemIndex, {}) as IDataObject;
	const slice = sliceOf(ctx, itemIndex, options, Infinity);
	const headerRow = headerRowOf(ctx, itemIndex, options.headerRow);
	const delimiter = inputDelimiterOf(ctx, itemIndex, options);
	const column = addressColumnOf(ctx, itemIndex, headerRow);
	const resultProperty = output === 'resultFile' ? resultPropertyOf(ctx, itemIndex) : '';
	const databases = await open();
	const shape = await fileShape(
		ctx,
		itemIndex,
		meta,
		column,
		headerRow,
		slice,
		continueOnFail,
		delimiter,
	);

	/** A row's address, trimmed, or undefined when the row has no such column. */
	const addressOf = (row: Row) => {
		const cell = row.fields[shape.position - 1];
		return cell === undefined ? undefined : text(cell);
	};

	if (output === 'rowItems') {
		const memo = rowItemsMemo(databases.lookUp);
		const items: INodeExecutionData[] = [];
		await eachRow(ctx, meta, shape, async (row) => {
			const ipAddress = addressOf(row);
			const csvRow = {
				[CSV_ROW_KEY]: { number: row.number, columns: columnsOf(row.fields, shape.header) },
			};
			const json = ipAddress === undefined ? undefined : rowItemJson(memo, ipAddress, csvRow);
			if (json === undefined) {
				const error = rowError(ctx, itemIndex, row, shape, row.fields[shape.position - 1]);
				if (!continueOnFail) throw error;
				items.push(errorItem(ctx, error, itemIndex, csvRow));
			} else items.push({ json, pairedItem: { item: itemIndex } });
		});
		sliceHint(ctx, shape);
		return items;
	}

	const format = formatOf(ctx, itemIndex, options, shape.form);
	const columns = answerColumnsOf(databases.roles, databases.shape);
	const flattener = new AnswerFlattener(columns, columns);
	// An address's answer is kept as the CSV text of its cells (in the file's format, with the
	// count of cells defused in it): a repeated address costs a Map hit.
	const answerWriter = new CsvCellWriter(format);
	const memo = new AddressMemo<{ text: string; defused: number }>(
		(address, ipAddress) => {
			const { cells, other } = flattener.flatten(databases.lookUp(address, ipAddress));
			cells.push(other);
			const before = answerWriter.defused;
			// One flat string: built piece by piece it would be a tree of pieces, walked again on every row it is written for.
			const text = Buffer.from(answerWriter.cells(cells), 'utf8').toString('utf8');
			return { text, defused: answerWriter.defused - before };
		},
		{ ...ANSWER_TEXTS_HELD, sizeOf: (answer) => answer.text.length },
	);
	const collector = new ResultFile(ctx, {
		property: resultProperty,
		fileName: resultFileName(meta.fileName),
		header: shape.header,
		width: shape.width,
		flattener,
		fileRows: shape.dataRows,
		lastFileRow: shape.lastFileRow,
		firstRow: shape.firstRow,
		lastRow: shape.lastRow,
		inputStream: shape.inputStream,
		format,
		inputDelimiter: delimiterSummary(shape.form),
	});
	let written = false;
	try {
		await eachRow(ctx, meta, shape, async (row) => {
			const ipAddress = addressOf(row);
			const answerText = ipAddress === undefined ? undefined : memo.answer(ipAddress);
			collector.expect({
				number: row.number,
				fields: row.fields,
				invalid: answerText === undefined,
			});
			if (answerText !== undefined) await collector.addAnswerText(answerText);
			else
				await collector.add({
					failed: rowError(ctx, itemIndex, row, shape, row.fields[shape.position - 1]),
					notSent: true,
				});
		});
		written = true;
	} finally {
		// A run stopped by an error leaves no half-written file open.
		if (!written) await collector.abort();
	}
	// Nothing is sent: the summary says how many lookups the rows took instead of requests.
	const [summary] = await collector.finish();
	summary.json.lookups = memo.lookups;
	return [{ ...summary, pairedItem: { item: itemIndex } }];
}

/**
 * Rows as items have no summary: a run that At Most Rows ended before the file did says so in an
 * execution hint, with the row the next run starts from (a result file's summary has stoppedBy).
 */
function sliceHint(
	ctx: IExecuteFunctions,
	shape: Pick<FileShape, 'firstRow' | 'lastRow' | 'lastFileRow'>,
): void {
	// n8n 1.x before execution hints has no addExecutionHints.
	if (shape.lastRow >= shape.lastFileRow || typeof ctx.addExecutionHints !== 'function') return;
	const rows = (row: number) => row.toLocaleString('en-US');
	ctx.addExecutionHints({
		message: `Rows ${rows(shape.firstRow)} to ${rows(shape.lastRow)} of the file looked up, as At Most Rows says; it goes on to row ${rows(shape.lastFileRow)}: Start at Row ${rows(shape.lastRow + 1)} continues it`,
		type: 'info',
		location: 'outputPane',
	});
}

/**
 * The first pass: header (Header Row, the column by name or position), the widest row, the last
 * row, the slice's first and last rows; with On Error stopping, each address of the slice checked.
 */
async function fileShape(
	ctx: IExecuteFunctions,
	itemIndex: number,
	meta: IBinaryData,
	column: ColumnChoice,
	headerRow: HeaderRow,
	slice: Slice,
	continueOnFail: boolean,
	delimiter: ReaderDelimiter,
): Promise<FileShape> {
	const shape: FileShape = {
		header: undefined,
		position: 0,
		width: 0,
		dataRows: 0,
		lastFileRow: 0,
		firstRow: 0,
		lastRow: 0,
		form: { delimiter: 0, delimiterSource: 'given', byteOrderMark: false },
	};
	let sliceRows = 0;
	const lookup = {
		column,
		looksLikeValue: (cell: string) => parseIpAddress(cell.trim()) !== undefined,
	};
	const scanner = new CsvScanner(
		(record) => {
			shape.lastFileRow = record.number;
			if (record.count > shape.width) shape.width = record.count;
			if (record.number === 1) {
				// Known once the first record comes: its errors name the delimiter.
				shape.form = {
					delimiter: scanner.delimiter,
					delimiterSource: scanner.delimiterSource,
					byteOrderMark: scanner.byteOrderMark,
				};
				shape.header = firstRowHeader(
					ctx,
					itemIndex,
					{ fields: csvFields(record) },
					lookup,
					headerRow,
					readAs(scanner.delimiter, scanner.delimiterSource),
				);
				shape.position = shape.header
					? headerPosition(shape.header, column)
					: (column as { position: number }).position;
				if (shape.header) return;
			}
			shape.dataRows++;
			if (record.number < slice.start || sliceRows >= slice.max) return;
			if (sliceRows++ === 0) shape.firstRow = record.number;
			shape.lastRow = record.number;
			if (continueOnFail) return;
			const cell =
				record.count >= shape.position ? csvField(record, shape.position - 1) : undefined;
			if (cell === undefined || parseIpAddress(text(cell)) === undefined) {
				const row = {
					number: record.number,
					line: record.line,
					fields: new Array<string>(record.count),
				};
				throw rowError(ctx, itemIndex, row, shape, cell);
			}
		},
		{ delimiter },
	);
	try {
		for await (const chunk of chunksOf(ctx, meta, (stream) => (shape.inputStream = stream)))
			scanner.push(chunk);
		scanner.end();
		shape.form = {
			delimiter: scanner.delimiter,
			delimiterSource: scanner.delimiterSource,
			byteOrderMark: scanner.byteOrderMark,
		};
	} catch (error) {
		const rule = delimiterRule(error);
		if (rule) throw fileRule(ctx, itemIndex, rule);
		// A row past the reader's bounds is valid CSV, refused all the same: its message says why.
		if (error instanceof CsvBoundError) throw fileRule(ctx, itemIndex, error.message);
		if (error instanceof CsvError)
			throw fileRule(ctx, itemIndex, `the file is not valid CSV: ${error.message}`);
		// A row's error (a NodeOperationError, which n8n passes through as it is) or a failed read.
		throw new NodeOperationError(ctx.getNode(), error as Error, { itemIndex });
	}
	if (shape.dataRows === 0)
		throw fileRule(
			ctx,
			itemIndex,
			shape.header
				? 'the file has a header row but no rows of data'
				: 'the file is empty: it has no rows',
		);
	if (sliceRows === 0) {
		throw fileError(
			inputError(
				ctx,
				itemIndex,
				fieldLabel(startAtRowOption),
				`row ${slice.start} is past the file's last row (row ${shape.lastFileRow}): there is nothing left to look up in this file`,
			),
		);
	}
	return shape;
}
