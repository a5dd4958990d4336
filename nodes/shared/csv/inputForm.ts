import type { IDataObject } from 'n8n-workflow';

import { AmbiguousDelimiterError, delimiterName, SepLineError, type DelimiterSource } from './csv';
import type { CsvDelimiter } from './csvWriter';

/**
 * What the reader learned of an input file's form (its delimiter, where that came from, a byte
 * order mark), and how the errors and the summary tell it: a file read with the wrong delimiter
 * shows as a missing column or joined cells, so the person is told which one was used and why.
 */

export interface InputForm {
	/** The input's delimiter as a byte (the scanner's). */
	delimiter: number;
	/** Where it came from: the Delimiter option, a `sep=` line, or the first rows. */
	delimiterSource: DelimiterSource;
	byteOrderMark: boolean;
}

/**
 * What is known of how the file is read, set once its first row is (the file passes fill it
 * in): how the errors of its rows say it, and where its delimiter came from.
 */
export interface Reading {
	readWith: string;
	source?: DelimiterSource;
}

/** How a file was read, for the errors about its columns. */
export function readAs(delimiter: number, source: DelimiterSource): string {
	const name = delimiterName(delimiter);
	if (source === 'sepLine')
		return `read as a ${name} file, as its first line sep=${String.fromCharCode(delimiter)} says`;
	if (source === 'given') return `read as a ${name} file, as Options > Delimiter says`;
	return `read as a ${name} file, the delimiter found from its first rows (Options > Delimiter sets another)`;
}

/** The summary's account of the input file's delimiter. */
export function delimiterSummary(form: InputForm): IDataObject {
	return {
		delimiter: delimiterName(form.delimiter),
		delimiterFrom: form.delimiterSource === 'given' ? 'option' : form.delimiterSource,
	};
}

/** A reader error that is the file's (its delimiter or its `sep=` line), as the rule it broke; undefined for another error. */
export function delimiterRule(error: unknown): string | undefined {
	return error instanceof AmbiguousDelimiterError || error instanceof SepLineError
		? error.message
		: undefined;
}

/** The delimiter byte as the reader's option: the second pass reads with the first pass's. */
export function readerDelimiter(form: InputForm): CsvDelimiter {
	return String.fromCharCode(form.delimiter) as CsvDelimiter;
}
