import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { binaryPropertyName, inputFileMeta } from '../binary/files';
import { invalidInput } from '../engine/errors';
import { FanOut } from '../engine/fanOut';
import type { UnitPlanning } from '../engine/types';
import { fieldLabel } from '../parameters/fieldLabel';
import { AnswerFlattener } from './answerColumns';
import { csvBinaryParameter, MAX_CSV_ROWS } from './csvParameters';
import {
	headerRowOf,
	inputDelimiterOf,
	nameWithoutHeaderRow,
	outputOf,
	resultFieldsOf,
	resultFormatOf,
	resultPropertyOf,
	sliceOf,
	type Slice,
} from './csvParameterReaders';
import type { CsvLookup } from './csvLookup';
import { fileInputError } from './fileErrors';
import { checkFile, sliceOfPlan, sliceUnits } from './filePasses';
import { delimiterSummary, readAs, type Reading } from './inputForm';
import { ResultFile } from './resultFile';
import { itemParameter } from '../engine/itemParameter';

/**
 * The bulk CSV input of the service nodes: one request per row of a file in the item. The
 * service limits phone and email bulk files (at most 50,000 rows, the phone number in the first
 * column, the email address in a selected column, no empty rows, one item per row) and states no
 * other bulk limit, so the nodes that look up IP addresses, domains, IBANs and VAT numbers keep
 * the same rules, their column chosen as for email. The whole file is checked before the node
 * sends anything (filePasses.ts); each row then becomes one unit of the engine's queue.
 */

const BINARY_FIELD = fieldLabel(csvBinaryParameter);

/** Every row of a file, whatever its Options choose. */
const WHOLE_FILE: Slice = { start: 1, max: MAX_CSV_ROWS, skip: [] };

/**
 * The units of an item's CSV file, for the engine's queue: the file read and checked whole
 * first, then the slice's rows as the engine asks for them (filePasses.ts). Output "Result File"
 * adds a collector that writes each row's outcome into one CSV file. `planning`: the slice the
 * Options choose or the whole file, and whether a refused value stops the check.
 */
export async function csvFanOut<Prepared>(
	ctx: IExecuteFunctions,
	itemIndex: number,
	lookup: CsvLookup<Prepared>,
	planning: Pick<UnitPlanning<Prepared>, 'wholeFile' | 'stopAtRefusal'>,
): Promise<FanOut<Prepared>> {
	const property = binaryPropertyName(
		ctx,
		itemIndex,
		BINARY_FIELD,
		ctx.getNodeParameter('binaryPropertyName', itemIndex, 'data'),
	);
	const meta = inputFileMeta(ctx, itemIndex, BINARY_FIELD, property);
	const output = outputOf(ctx, itemIndex);
	const options = itemParameter(ctx, 'options', itemIndex, {}) as IDataObject;
	const slice = planning.wholeFile ? WHOLE_FILE : sliceOf(ctx, itemIndex, options);
	const resultColumns =
		output === 'resultFile'
			? resultFieldsOf(ctx, itemIndex, options.resultFields, lookup.answerColumns)
			: [];
	const resultProperty = output === 'resultFile' ? resultPropertyOf(ctx, itemIndex) : '';
	const headerRow = headerRowOf(ctx, itemIndex, options.headerRow);
	const delimiter = inputDelimiterOf(ctx, itemIndex, options);
	if ('name' in lookup.column && headerRow === 'no')
		throw fileInputError(itemIndex, nameWithoutHeaderRow(ctx, itemIndex, lookup.column));

	const reading: Reading = { readWith: '' };
	const checked = joinedCellGuard(ctx, itemIndex, lookup, reading);
	const plan = await checkFile(
		ctx,
		itemIndex,
		meta,
		checked,
		{
			headerRow,
			slice,
			delimiter,
			stopAtRefusal: planning.stopAtRefusal,
		},
		reading,
	);
	reading.readWith = readAs(plan.form.delimiter, plan.form.delimiterSource);
	reading.source = plan.form.delimiterSource;
	const format =
		output === 'resultFile' ? resultFormatOf(ctx, itemIndex, options, plan.form) : undefined;
	if (output === 'rowItems' || !format) {
		return new FanOut(sliceUnits(ctx, meta, checked, sliceOfPlan(plan, slice.skip), output), {
			keyCounts: plan.keyCounts,
		});
	}
	const collector = new ResultFile(ctx, {
		property: resultProperty,
		fileName: resultFileName(meta.fileName),
		header: plan.header,
		width: plan.width,
		flattener: new AnswerFlattener(resultColumns, lookup.answerColumns),
		fileRows: plan.dataRows,
		lastFileRow: plan.lastFileRow,
		firstRow: plan.firstRow,
		lastRow: plan.lastRow,
		inputStream: plan.inputStream,
		noDataOf: lookup.noDataOf,
		format,
		skippedOf: lookup.skippedOf,
		inputDelimiter: delimiterSummary(plan.form),
		skipped: slice.skip,
	});
	const units = sliceUnits(ctx, meta, checked, sliceOfPlan(plan, slice.skip), output, collector);
	return new FanOut(units, {
		collector,
		keyCounts: plan.keyCounts,
	});
}

/**
 * No value a node sends holds a semicolon or a tab outside double quotes (phone numbers, IP
 * addresses, domains, IBANs, VAT numbers never do; an email address only inside a quoted local
 * part or display name, as RFC 5322 writes `"Giant; Box" <box@example.net>`), so a value cell that
 * does is cells of a file read with the wrong delimiter (`+4930123456;Müller` of a semicolon file
 * read as a comma file): the row is refused before any request, naming the delimiter used, rather
 * than paid for as joined text. Only when the delimiter was found from the first rows: one the
 * person chose (Options > Delimiter) or the file states (`sep=`) is the file's, and the cell holds
 * what the file says. A website's address with a path is left to the node: its path may hold a
 * semicolon (Company Enrichment reads the domain from it). So is a phone number with the
 * parameters of RFC 3966 (`tel:+1-201-555-0123;ext=1234`): their semicolons are the number's.
 */
function joinedCellGuard<Prepared>(
	ctx: IExecuteFunctions,
	itemIndex: number,
	lookup: CsvLookup<Prepared>,
	reading: Reading,
): CsvLookup<Prepared> {
	return {
		...lookup,
		prepare(value, field) {
			const joined =
				reading.source === 'detected' &&
				value &&
				!isSiteWithPath(value) &&
				!PHONE_WITH_PARAMETERS.test(value.trim())
					? separatorOutsideQuotes(value)
					: undefined;
			if (joined) {
				const name = joined === ';' ? 'semicolon' : 'tab';
				throw invalidInput(
					ctx,
					itemIndex,
					field,
					`holds a ${name}, so it is more than one cell: the file was ${reading.readWith}. Set Options > Delimiter to the delimiter the file uses`,
				);
			}
			return lookup.prepare(value, field);
		},
	};
}

/**
 * A website's address with a path (`acme.io/about;lang=de`, `https://www.acme.io/a;b`): before
 * its first `/` a host whose last label starts with a letter. Any value with a `/` was left to
 * the node once, and a phone number written with a slash let its joined cell through
 * (`030/1234567;Müller` of a semicolon file, sent and paid for): it has no such host.
 */
function isSiteWithPath(value: string): boolean {
	const text = value.trim().replace(/^[a-z][a-z\d+.-]*:\/\//i, '');
	const slash = text.indexOf('/');
	if (slash <= 0) return false;
	const host = text.slice(0, slash).replace(/:\d+$/, '');
	const lastDot = host.lastIndexOf('.');
	return lastDot > 0 && !/[\s;]/.test(host) && /^\p{L}/u.test(host.slice(lastDot + 1));
}

/**
 * A phone number followed by RFC 3966 parameters: an extension (`;ext=`), an ISDN subaddress
 * (`;isub=`) or the context of a local number (`;phone-context=`), any of them, each with a
 * value; the number in the form people write it (`tel:` or not, `+` or not, digits with spaces
 * and the visual separators `-` `.` `(` `)`, and the `*` and `#` of a local number). Linear: no
 * two parts can take the same characters, so a long cell costs one pass, not a backtracking search.
 */
const PHONE_WITH_PARAMETERS =
	/^(?:tel:)?[+(\d*#][\d\s().*#-]*(?:;(?:ext|isub|phone-context)=[^;\t]+)+$/i;

/**
 * The first semicolon or tab outside a double-quoted part of a value and outside a comment in
 * parentheses that closes (a backslash escapes inside both): RFC 5322 lets an email address
 * carry comments, `john@example.com (work; main)`, and the Email node reads them. An unclosed
 * parenthesis is no comment: its separator counts.
 */
function separatorOutsideQuotes(value: string): ';' | '\t' | undefined {
	let quoted = false;
	let depth = 0;
	// A separator inside a comment, until the comment closes.
	let inComment: ';' | '\t' | undefined;
	for (let index = 0; index < value.length; index++) {
		const char = value[index];
		if ((quoted || depth > 0) && char === '\\') index++;
		else if (quoted) quoted = char !== '"';
		else if (char === '"') quoted = depth === 0;
		else if (char === '(') depth++;
		else if (char === ')' && depth > 0) {
			if (--depth === 0) inComment = undefined;
		} else if (char === ';' || char === '\t') {
			if (depth === 0) return char;
			inComment ??= char;
		}
	}
	return inComment;
}

/** leads.csv gives leads-results.csv. */
export function resultFileName(input: string | undefined): string {
	const base = (input ?? 'rows.csv').replace(/\.csv$/i, '') || 'rows';
	return `${base}-results.csv`;
}
