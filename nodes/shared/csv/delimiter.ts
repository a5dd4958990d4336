/**
 * Which delimiter a CSV file uses, decided before its first record is read (csvFileStart.ts holds
 * the file's first bytes until then): a first line `sep=X` (what Excel writes, and honours, to say
 * the delimiter), else the first rows read together. The first record alone once decided, and read
 * a semicolon file with `Name, Vorname` in its header as a comma file.
 */

import { Byte } from './csvBytes';

/** Candidates in the order a tie would once have gone (never used to break a real tie: see detectDelimiter). */
const CANDIDATES = [Byte.Comma, Byte.Semicolon, Byte.Tab] as const;

/** The rows looked at: enough to see a pattern, few enough to cost nothing next to the file. */
const DETECTION_ROWS = 200;

export type DelimiterSource = 'given' | 'sepLine' | 'detected';

/** A delimiter as people name it: in summaries and errors. */
export function delimiterName(delimiter: number): string {
	return delimiter === Byte.Semicolon
		? 'semicolon'
		: delimiter === Byte.Tab
			? 'tab'
			: delimiter === Byte.Comma
				? 'comma'
				: JSON.stringify(String.fromCharCode(delimiter));
}

/** The file's delimiter could not be told: several fit its first rows equally well. */
export class AmbiguousDelimiterError extends Error {
	constructor(
		readonly candidates: number[],
		readonly columns: number,
		readonly rows: number,
	) {
		const names = candidates.map(delimiterName);
		super(
			`its delimiter cannot be told from its first ${rows === 1 ? 'row' : `${rows} rows`}: read with a ${names.join(' or with a ')}, ${rows === 1 ? 'it has' : 'each has'} ${columns} columns. ` +
				'Set Options > Delimiter to the one the file uses',
		);
		this.name = 'AmbiguousDelimiterError';
	}
}

/** How one candidate splits the first rows. */
interface Split {
	delimiter: number;
	/** Columns of each row (empty lines left out). */
	counts: number[];
	/** Cells after the first that start with a space. */
	spaced: number;
	/** A quoted field with text after its closing quote: the file is not written with this delimiter. */
	malformed: boolean;
}

/**
 * The rows of `bytes` as `delimiter` splits them, up to DETECTION_ROWS; `whole`: the bytes are the
 * whole file (else a last row without its line end may be cut, and is left out).
 */
function split(bytes: Uint8Array, delimiter: number, whole: boolean): Split {
	const counts: number[] = [];
	let spaced = 0;
	let fields = 1;
	let rowSpaced = 0;
	let empty = true;
	let atFieldStart = true;
	let quoted = false;
	let afterQuote = false;
	const n = bytes.length;
	for (let i = 0; i < n && counts.length < DETECTION_ROWS; i++) {
		const b = bytes[i];
		if (quoted) {
			if (b === Byte.Quote) {
				quoted = false;
				afterQuote = true;
			}
			continue;
		}
		if (afterQuote) {
			afterQuote = false;
			// `""` inside a quoted field: it goes on.
			if (b === Byte.Quote) {
				quoted = true;
				continue;
			}
			if (b !== delimiter && b !== Byte.Lf && b !== Byte.Cr)
				return { delimiter, counts, spaced, malformed: true };
		}
		if (b === delimiter) {
			fields++;
			atFieldStart = true;
			empty = false;
			if (bytes[i + 1] === Byte.Space) rowSpaced++;
			continue;
		}
		if (b === Byte.Lf || b === Byte.Cr) {
			if (!empty) {
				counts.push(fields);
				spaced += rowSpaced;
			}
			if (b === Byte.Cr && bytes[i + 1] === Byte.Lf) i++;
			fields = 1;
			rowSpaced = 0;
			empty = true;
			atFieldStart = true;
			continue;
		}
		empty = false;
		if (atFieldStart && b === Byte.Quote) quoted = true;
		atFieldStart = false;
	}
	// The last row counts when the file ends there (and is not cut inside a quote).
	if (whole && !empty && !quoted && counts.length < DETECTION_ROWS) {
		counts.push(fields);
		spaced += rowSpaced;
	}
	return { delimiter, counts, spaced, malformed: false };
}

/** The number of columns most rows have, and how many rows have it. */
function commonest(counts: number[]): { columns: number; rows: number } {
	const tally = new Map<number, number>();
	let best = { columns: 1, rows: 0 };
	for (const count of counts) {
		const rows = (tally.get(count) ?? 0) + 1;
		tally.set(count, rows);
		if (rows > best.rows || (rows === best.rows && count > best.columns))
			best = { columns: count, rows };
	}
	return best;
}

/**
 * The delimiter of a file whose first bytes are `bytes` (after a byte order mark and a `sep=`
 * line); `whole`: they are the whole file. Each of comma, semicolon and tab splits the first rows
 * (quotes respected: a quoted field may hold any of them), and the one that gives every row the
 * same number of columns, more than one, is the file's. Two that both do: the one giving more
 * columns (`Müller;12,50` has 2 by its comma, 3 by its semicolon); with as many, the one after
 * which no cell starts with a space (`Müller, Hans` is a name, not two cells); still both, an
 * AmbiguousDelimiterError names them, for the Delimiter option to say. When none does (rows of
 * different lengths), the one under which most rows have the same number of columns, more than
 * one. A file of one column reads as a comma file.
 */
export function detectDelimiter(bytes: Uint8Array, whole: boolean): number {
	let splits = CANDIDATES.map((delimiter) => split(bytes, delimiter, whole)).filter(
		(candidate) => !candidate.malformed,
	);
	// Nothing but a first row cut short: judge by what there is.
	if (!whole && splits.every((candidate) => candidate.counts.length === 0))
		return detectDelimiter(bytes, true);
	const rows = Math.max(0, ...splits.map((candidate) => candidate.counts.length));
	const consistent = splits.filter(
		(candidate) =>
			candidate.counts.length > 0 &&
			candidate.counts[0] > 1 &&
			candidate.counts.every((count) => count === candidate.counts[0]),
	);
	let ranked: Array<{ split: Split; columns: number; rows: number }>;
	if (consistent.length > 0) {
		ranked = consistent.map((candidate) => ({
			split: candidate,
			columns: candidate.counts[0],
			rows: candidate.counts.length,
		}));
	} else {
		splits = splits.filter((candidate) => commonest(candidate.counts).columns > 1);
		if (splits.length === 0) return Byte.Comma;
		ranked = splits.map((candidate) => ({ split: candidate, ...commonest(candidate.counts) }));
		const most = Math.max(...ranked.map((candidate) => candidate.rows));
		ranked = ranked.filter((candidate) => candidate.rows === most);
	}
	const columns = Math.max(...ranked.map((candidate) => candidate.columns));
	ranked = ranked.filter((candidate) => candidate.columns === columns);
	const fewestSpaced = Math.min(...ranked.map((candidate) => candidate.split.spaced));
	ranked = ranked.filter((candidate) => candidate.split.spaced === fewestSpaced);
	if (ranked.length > 1)
		throw new AmbiguousDelimiterError(
			ranked.map((candidate) => candidate.split.delimiter),
			columns,
			rows,
		);
	return ranked[0].split.delimiter;
}

/**
 * A first line `sep=X` at `bytes[at]`: the delimiter it names and the length of the line with its
 * line end, or undefined when the first line is not one. `whole`: the bytes are the whole file.
 */
export function sepLine(
	bytes: Uint8Array,
	at: number,
	whole: boolean,
): { delimiter: number; length: number } | undefined {
	const word = [0x73, 0x65, 0x70, 0x3d]; // "sep="
	for (let k = 0; k < word.length; k++) {
		// Excel writes it in lower case; upper case is read the same.
		if (((bytes[at + k] ?? -1) | 0x20) !== (word[k] | 0x20) && bytes[at + k] !== word[k])
			return undefined;
	}
	const delimiter = bytes[at + 4];
	if (delimiter === undefined || delimiter === Byte.Lf || delimiter === Byte.Cr) return undefined;
	const end = bytes[at + 5];
	if (end === undefined) return whole ? { delimiter, length: 5 } : undefined;
	if (end === Byte.Lf) return { delimiter, length: 6 };
	if (end === Byte.Cr) return { delimiter, length: bytes[at + 6] === Byte.Lf ? 7 : 6 };
	return undefined;
}

/** Bytes a `sep=` line takes at most, with a CRLF. */
export const SEP_LINE_BYTES = 7;
