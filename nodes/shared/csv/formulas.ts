/**
 * Formula defusing of a result file's cells (CSV or formula injection, as OWASP describes it:
 * https://owasp.org/www-community/attacks/CSV_Injection). A result file's cells come from lead
 * lists and third-party answers, so they are untrusted text; a spreadsheet that opens the file
 * takes a cell starting with `=` (LibreOffice Calc, Excel), or with `+`, `-`, `@`, a tab or a CR
 * (Excel, by OWASP's list) as a formula, and a formula such as `=HYPERLINK(...)` can send the
 * sheet's other cells to someone else's server.
 *
 * The rule: a cell whose text, after any leading apostrophes, starts with one of those characters
 * gets one apostrophe in front (OWASP's advice), which spreadsheets read as "this is text".
 * Left alone, because they can hold no formula that does harm in any spreadsheet (no letter, so
 * no function or cell reference; no quote, so no text; no `!`, `|` or `:`): a cell of `+` or `-`
 * followed only by digits, spaces and `. , ( ) / -`, with at least one digit. That keeps signed
 * numbers (`-12.5`, `+14152007986`) and phone numbers (`+1 415 555 2671`, `+1 (415) 555-2671`)
 * as they were. docs/bulk-csv.md says what LibreOffice was seen to do with each form.
 *
 * Apostrophes already in front of a trigger count too (`'=1` is written `''=1`), so that
 * `undefuseFormula` gives back every cell exactly.
 */

const APOSTROPHE = 0x27;

/** `=`, `+`, `-`, `@`, tab, CR: the first characters OWASP lists as starting a formula. */
function isTrigger(code: number): boolean {
	return code === 0x3d || code === 0x2b || code === 0x2d || code === 0x40 || code === 0x09 || code === 0x0d;
}

/** `+` or `-`, then only digits, spaces and `. , ( ) / -`, with a digit: a number or a phone number. */
const NUMBER_LIKE = /^[+-][\d .,()/-]*\d[\d .,()/-]*$/;

/** Whether the cell's text is written with an apostrophe in front. */
export function needsDefusing(value: string): boolean {
	let at = 0;
	let code = value.charCodeAt(0);
	// Most cells start with a letter or a digit past `@` or below `'`: decided by one comparison.
	if (code > 0x40 || (code > 0x0d && code < APOSTROPHE)) return false;
	while (code === APOSTROPHE) code = value.charCodeAt(++at);
	if (!isTrigger(code)) return false;
	if (code !== 0x2b && code !== 0x2d) return true;
	return !NUMBER_LIKE.test(at === 0 ? value : value.slice(at));
}

/** The cell as a result file writes it with defusing on. */
export function defuseFormula(value: string): string {
	return needsDefusing(value) ? `'${value}` : value;
}

/** The cell as it was before `defuseFormula`: a program reading a result file can undo the rule exactly. */
export function undefuseFormula(written: string): string {
	return written.charCodeAt(0) === APOSTROPHE && needsDefusing(written.slice(1)) ? written.slice(1) : written;
}
