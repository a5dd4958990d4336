/**
 * Formula defusing of a result file's cells (CSV injection:
 * https://owasp.org/www-community/attacks/CSV_Injection). The cells come from lead lists and
 * third-party answers, so they are untrusted, and a spreadsheet runs a cell that starts with `=`,
 * `+`, `-`, `@`, a tab, CR, LF or NUL as a formula. One apostrophe in front of such a start makes
 * it text; the same after every separator inside a cell, because a file is not always opened with
 * its own delimiter (Excel in German splits on `;`). Signed numbers and phone numbers are left as
 * they are. The whole rule, and what LibreOffice Calc was seen to do with each form:
 * docs/bulk-csv.md, "A result file in a spreadsheet".
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
