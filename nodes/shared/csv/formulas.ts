/**
 * Formula defusing of a result file's cells (CSV or formula injection, as OWASP describes it:
 * https://owasp.org/www-community/attacks/CSV_Injection). A result file's cells come from lead
 * lists and third-party answers, so they are untrusted text; a spreadsheet that opens the file
 * takes a cell starting with `=` (LibreOffice Calc, Excel), or with `+`, `-`, `@`, a tab, a CR or
 * an LF (Excel, by OWASP's list), as a formula, and a formula such as `=HYPERLINK(...)` can send
 * the sheet's other cells to someone else's server. LibreOffice also skips a leading NUL and runs
 * the `=` after it.
 *
 * The rule: where the cell, after any apostrophes, starts with one of those characters (`=`, `+`,
 * `-`, `@`, tab, CR, LF, NUL), one apostrophe goes in front (OWASP's advice), which spreadsheets
 * read as "this is text"; the same after every comma, semicolon, tab, `|`, CR or LF inside the
 * cell, for `=`, `+`, `-`, `@` and NUL. The positions after a separator matter
 * because a file is not always opened with its own delimiter: Excel in German, French or Dutch
 * splits a `.csv` file on `;`, and a spreadsheet reading with a delimiter the file does not use
 * splits a quoted cell too, so `Acme;=WEBSERVICE(...)` in a comma file becomes a cell
 * `=WEBSERVICE(...)` there (LibreOffice Calc was seen to do it, quotes or not).
 *
 * Left alone, because they hold no letter (so no function or cell reference), no quote (so no
 * text) and no `!` or `:`, and LibreOffice Calc shows them as the number or the phone number they
 * are (docs/bulk-csv.md has what it was seen to do with each form): a piece that is `+` or `-`,
 * then a number (digits, `.`, `,`, spaces), optionally with a currency sign before or after it or
 * a `%` after it (`-12.5`, `- 12`, `-50%`, `-$12.50`, `-12.50 €`); or `+` and a phone number
 * (digits, spaces and `( ) - . /`: `+1 (415) 555-2671`, `+49-30-1234567`). A `-` before anything
 * else is defused: `-2024-01-05` would show `#VALUE!` in LibreOffice, `-1-2` is arithmetic.
 *
 * Apostrophes already in front of a trigger count too (`'=1` is written `''=1`), so that
 * `undefuseFormula` gives back every cell exactly: the separators are never changed, so the
 * pieces between them are found again in the written text, each with its apostrophe.
 */

const APOSTROPHE = 0x27;

/** `=`, `+`, `-`, `@`, NUL: characters that start a formula wherever a cell may begin. */
function isTrigger(code: number): boolean {
	return code === 0x3d || code === 0x2b || code === 0x2d || code === 0x40 || code === 0x00;
}

/**
 * Tab, CR, LF: they start a formula at the cell's start (OWASP's list). After a separator they
 * are separators themselves, and the text after them is looked at in its turn: an apostrophe
 * before every line break of a note would change it for nothing.
 */
function isLeadingTrigger(code: number): boolean {
	return isTrigger(code) || code === 0x09 || code === 0x0d || code === 0x0a;
}

/** Characters after which a spreadsheet may start a new cell: the common separators and the line breaks. */
function isSeparator(code: number): boolean {
	return (
		code === 0x2c ||
		code === 0x3b ||
		code === 0x09 ||
		code === 0x7c ||
		code === 0x0d ||
		code === 0x0a
	);
}

const SEPARATORS = /[,;\t|\r\n]/;

/** A signed amount: a number with digit marks, a currency sign before or after it, or a `%` after it. */
const SIGNED_AMOUNT = /^[+-] ?(?:\p{Sc} ?)?[\d.,][\d., ]*(?:%|\p{Sc})?$/u;
/** `+` and a phone number: digits, spaces and `( ) - . /`. */
const PLUS_PHONE = /^\+[\d .()/-]*$/;

/** Whether the piece starting at `from` (up to the next separator) is a signed number or phone number left alone. */
function isSignedNumber(value: string, from: number): boolean {
	let end = from;
	while (end < value.length && !isSeparator(value.charCodeAt(end))) end++;
	const piece = from === 0 && end === value.length ? value : value.slice(from, end);
	if (!/\d/.test(piece)) return false;
	return SIGNED_AMOUNT.test(piece) || PLUS_PHONE.test(piece);
}

/** Whether the text at `at` (a cell's start, or just after a separator in it) gets an apostrophe in front. */
function needsDefusingAt(value: string, at: number, start: boolean): boolean {
	let code = value.charCodeAt(at);
	// Most cells start with a letter or a digit past `@` or below `'`: decided by one comparison.
	if (code > 0x40 || (code > 0x0d && code < APOSTROPHE)) return false;
	let from = at;
	while (code === APOSTROPHE) code = value.charCodeAt(++from);
	if (!(start ? isLeadingTrigger(code) : isTrigger(code))) return false;
	if (code !== 0x2b && code !== 0x2d) return true;
	return !isSignedNumber(value, from);
}

/** Whether the cell's text is written other than it is (an apostrophe at its start or after a separator). */
export function needsDefusing(value: string): boolean {
	if (needsDefusingAt(value, 0, true)) return true;
	if (!SEPARATORS.test(value)) return false;
	for (let index = 0; index < value.length; index++) {
		if (isSeparator(value.charCodeAt(index)) && needsDefusingAt(value, index + 1, false))
			return true;
	}
	return false;
}

/** The cell as a result file writes it with defusing on (the same string when nothing changes). */
export function defuseFormula(value: string): string {
	const first = needsDefusingAt(value, 0, true);
	if (!SEPARATORS.test(value)) return first ? `'${value}` : value;
	let written = first ? "'" : '';
	let from = 0;
	for (let index = 0; index < value.length; index++) {
		if (isSeparator(value.charCodeAt(index)) && needsDefusingAt(value, index + 1, false)) {
			written += value.slice(from, index + 1) + "'";
			from = index + 1;
		}
	}
	if (from === 0) return first ? written + value : value;
	return written + value.slice(from);
}

/** The cell as it was before `defuseFormula`: a program reading a result file can undo the rule exactly. */
export function undefuseFormula(written: string): string {
	const first = written.charCodeAt(0) === APOSTROPHE && needsDefusingAt(written, 1, true);
	if (!SEPARATORS.test(written)) return first ? written.slice(1) : written;
	let value = '';
	let from = first ? 1 : 0;
	for (let index = from; index < written.length; index++) {
		if (
			isSeparator(written.charCodeAt(index)) &&
			written.charCodeAt(index + 1) === APOSTROPHE &&
			needsDefusingAt(written, index + 2, false)
		) {
			value += written.slice(from, index + 1);
			from = index + 2;
			index++;
		}
	}
	return value + written.slice(from);
}
