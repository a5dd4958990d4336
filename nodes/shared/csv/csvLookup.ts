import type { IDataObject } from 'n8n-workflow';

import type { ColumnChoice } from './csvParameterReaders';

/**
 * What a node tells its file input about its value: where it is, how it is checked, what the
 * answer holds. Read by csvFanOut (csvInput.ts) and the file passes (filePasses.ts), so it has a
 * file of its own: those two do not import each other.
 */
export interface CsvLookup<Prepared> {
	column: ColumnChoice;
	/** Whether a first-row cell looks like a value rather than a column name (for Auto). */
	looksLikeValue(cell: string): boolean;
	/** The columns of the service's answer in a result file (answerColumns.ts). */
	answerColumns: readonly string[];
	/** How a row's value is named in its errors: "Phone (row 7, column 1)". */
	valueLabel: string;
	/** The unit for one row's value; throws an input error (via `field`) for a value the node refuses. */
	prepare(value: string, field: string): Prepared;
	/**
	 * For a service that may answer "no data" (IP geolocation's 204): what such an answer's record
	 * says, or undefined for a record with data. A result file writes it in the row's status.
	 */
	noDataOf?(record: IDataObject): string | undefined;
	/** For a service that answers some rows without a request: why, for the row's status (`skipped: ...`). */
	skippedOf?(record: IDataObject): string;
	/** The engine's identity of a unit (jobs.ts, identityOf): the first pass counts the rows of each request by it. */
	identityOf(prepared: Prepared): string | undefined;
}
