import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { invalidInput } from '../engine/errors';
import { quoted } from '../values/quoted';
import type { CsvRow } from './csv';
import type { CsvLookup } from './csvLookup';
import type { ColumnChoice, HeaderRow } from './csvParameterReaders';
import { fileInputError } from './fileErrors';

/**
 * A file's rows as a person knows them: named by their row number as a spreadsheet shows it (and
 * their line when a quoted cell spans lines), their header row found or not, their cells named by
 * the header's columns. Both file readers (the service nodes' and the IP lookup's) name rows so.
 */

/** The key beside the service's record that holds the row: `{ number, columns }`. */
export const CSV_ROW_KEY = 'csvRow';

/** A row as errors name it: `row 7`, or `row 7 (line 9)` once a quoted cell has spanned lines. */
export function rowName(row: Pick<CsvRow, 'number' | 'line'>): string {
	return row.line === row.number ? `row ${row.number}` : `row ${row.number} (line ${row.line})`;
}

/**
 * Column names as an error lists them: quoted, at most `most` of them and each cut to 60
 * characters, then how many more. A first row may have thousands of cells of any length: an
 * error that named them all could be megabytes, kept in every execution's data.
 */
export function namesListed(names: readonly string[], most = 20): string {
	const listed = names.slice(0, most).map(quoted).join(', ');
	const more = names.length - most;
	return more > 0 ? `${listed} and ${more.toLocaleString('en-US')} more` : listed;
}

/** The first row's cells as column names when it is a header row, or undefined when it is data. */
export function firstRowHeader(
	ctx: IExecuteFunctions,
	itemIndex: number,
	row: Pick<CsvRow, 'fields'>,
	lookup: Pick<CsvLookup<unknown>, 'column' | 'looksLikeValue'>,
	headerRow: HeaderRow,
	/** How the file was read (readAs), for the error. */
	readWith: string,
): string[] | undefined {
	const { column } = lookup;
	if (headerRow === 'no') return undefined;
	if ('name' in column) {
		if (headerPosition(row.fields, column) === 0) {
			throw fileInputError(
				itemIndex,
				invalidInput(
					ctx,
					itemIndex,
					column.field,
					`the file's first row has no column named "${column.name}" (it has: ${namesListed(row.fields)}); ${readWith}`,
				),
			);
		}
		return row.fields;
	}
	if (headerRow === 'yes') return row.fields;
	// Auto with a position: the first row is a header when its cell there is not a value.
	const cell = row.fields[column.position - 1];
	return cell !== undefined && lookup.looksLikeValue(cell) ? undefined : row.fields;
}

/** The 1-based position of the chosen column in a header row (0 when a name is not there). */
export function headerPosition(header: string[], column: ColumnChoice): number {
	if ('position' in column) return column.position;
	const wanted = column.name.trim();
	let index = header.findIndex((name) => name.trim() === wanted);
	if (index < 0)
		index = header.findIndex((name) => name.trim().toLowerCase() === wanted.toLowerCase());
	return index + 1;
}

/**
 * A row's cells by column name (the header's, or `column1`, `column2`... without one). Nothing
 * is dropped: a cell beyond the header gets its position's name, a repeated or empty name too.
 */
export function columnsOf(fields: string[], header: string[] | undefined): IDataObject {
	const seen = new Set<string>();
	const entries: Array<[string, string]> = [];
	for (let index = 0; index < fields.length; index++) {
		let name = header?.[index]?.trim() || `column${index + 1}`;
		if (seen.has(name)) name = `column${index + 1}`;
		while (seen.has(name)) name += '_';
		seen.add(name);
		entries.push([name, fields[index]]);
	}
	// fromEntries defines own properties: a column named __proto__ stays a column.
	return Object.fromEntries(entries);
}
