/**
 * Items as a text table a terminal shows: every line within a width, nested answers as their
 * leaves (dotted paths), one form for booleans, long values cut with an ellipsis. What the
 * table leaves out (a cut value, a column with no room) is in the files the demo writes.
 */

export interface TableOptions {
	/** No line is wider than this (in terminal columns). */
	width: number;
	/** A cell is cut to this many columns before the table is fitted to the width. */
	maxCell?: number;
	/** Columns to show, in this order; default: every column of the rows, in order of appearance. */
	columns?: readonly string[];
}

/** A column is not narrowed below this while other ways to fit remain (a cut header still reads). */
const MIN_COLUMN = 6;
/** Narrowing cuts values before headers longer than this. */
const HEADER_FLOOR = 12;
const GAP = '  ';

/** The terminal width when output goes to a terminal, else one that reads well in a log or a file. */
export function outputWidth(
	stream: { isTTY?: boolean; columns?: number } = process.stdout,
): number {
	return stream.isTTY && stream.columns ? stream.columns : 120;
}

/**
 * An answer's leaves, each under its dotted path (`connection.isp_name`): a table row can show
 * them, where a nested object would show nothing or a line of JSON. A list of plain values is one
 * leaf; a list of objects stays JSON.
 */
export function leaves(value: Record<string, unknown>, prefix = ''): Record<string, unknown> {
	const flat: Record<string, unknown> = {};
	for (const [key, inner] of Object.entries(value)) {
		const name = `${prefix}${key}`;
		if (inner !== null && typeof inner === 'object' && !Array.isArray(inner)) {
			const nested = leaves(inner as Record<string, unknown>, `${name}.`);
			// An empty object is still a field the answer has: shown empty rather than lost.
			Object.assign(flat, Object.keys(nested).length > 0 ? nested : { [name]: '' });
		} else {
			flat[name] = inner;
		}
	}
	return flat;
}

/**
 * A value as one line of text. Booleans in one form (`true`/`false`), whether the answer holds
 * a boolean or a CSV file holds `TRUE` or `False`; a line break as ⏎; no value as nothing.
 */
export function shownValue(value: unknown): string {
	if (value === undefined || value === null) return '';
	if (Array.isArray(value)) {
		return value.every((entry) => entry === null || typeof entry !== 'object')
			? value.map(shownValue).join(', ')
			: JSON.stringify(value);
	}
	if (typeof value === 'object') return JSON.stringify(value);
	const text = String(value);
	if (/^(true|false)$/i.test(text)) return text.toLowerCase();
	return text.replace(/\r\n|\r|\n/g, '⏎');
}

/** Columns a character takes in a terminal: 2 for East Asian wide characters and most emoji, 0 for combining marks. */
function charWidth(codePoint: number): number {
	if (
		(codePoint >= 0x300 && codePoint <= 0x36f) ||
		codePoint === 0x200d ||
		(codePoint >= 0xfe00 && codePoint <= 0xfe0f)
	)
		return 0;
	const wide =
		(codePoint >= 0x1100 && codePoint <= 0x115f) ||
		(codePoint >= 0x2e80 && codePoint <= 0xa4cf && codePoint !== 0x303f) ||
		(codePoint >= 0xac00 && codePoint <= 0xd7a3) ||
		(codePoint >= 0xf900 && codePoint <= 0xfaff) ||
		(codePoint >= 0xfe30 && codePoint <= 0xfe4f) ||
		(codePoint >= 0xff00 && codePoint <= 0xff60) ||
		(codePoint >= 0xffe0 && codePoint <= 0xffe6) ||
		(codePoint >= 0x1f300 && codePoint <= 0x1faff) ||
		(codePoint >= 0x20000 && codePoint <= 0x3fffd);
	return wide ? 2 : 1;
}

/** The columns a text takes in a terminal (李伟 takes 4, not 2). */
export function displayWidth(text: string): number {
	let width = 0;
	for (const char of text) width += charWidth(char.codePointAt(0)!);
	return width;
}

/** A text cut to `width` columns, its end replaced by an ellipsis when it is cut. */
export function cut(text: string, width: number): string {
	if (displayWidth(text) <= width) return text;
	let kept = '';
	let used = 0;
	for (const char of text) {
		const next = charWidth(char.codePointAt(0)!);
		if (used + next > width - 1) break;
		kept += char;
		used += next;
	}
	return `${kept}…`;
}

/** A header cut keeps its end: `…ability.is_smtp_valid` says which leaf it is. */
function cutHeader(text: string, width: number): string {
	if (displayWidth(text) <= width) return text;
	const chars = [...text];
	let kept = '';
	let used = 0;
	for (let index = chars.length - 1; index >= 0; index--) {
		const next = charWidth(chars[index].codePointAt(0)!);
		if (used + next > width - 1) break;
		kept = chars[index] + kept;
		used += next;
	}
	return `…${kept}`;
}

function pad(text: string, width: number): string {
	return text + ' '.repeat(Math.max(0, width - displayWidth(text)));
}

/**
 * Rows as an aligned table within `options.width`: cells cut to `maxCell`, then the widest
 * columns narrowed until the table fits, and when even that is not enough, the last columns
 * left out and named on a line below. Columns empty in every row are left out as well.
 */
export function formatTable(rows: Array<Record<string, unknown>>, options: TableOptions): string {
	const { width, maxCell = 30 } = options;
	if (rows.length === 0) return '(no items)';
	const wanted = options.columns ?? [...new Set(rows.flatMap((row) => Object.keys(row)))];
	const texts = rows.map((row) => wanted.map((column) => shownValue(row[column])));
	const present = wanted.map((_, index) => texts.some((line) => line[index] !== ''));
	const columns = wanted.filter((_, index) => present[index]);
	const cells = texts.map((line) => line.filter((_, index) => present[index]));
	if (columns.length === 0) return '(items without fields)';

	const natural = columns.map((column, index) =>
		Math.max(
			Math.min(displayWidth(column), maxCell),
			...cells.map((line) => Math.min(displayWidth(line[index]), maxCell)),
		),
	);
	const headerFloor = (index: number) =>
		Math.min(
			natural[index],
			Math.max(MIN_COLUMN, Math.min(displayWidth(columns[index]), HEADER_FLOOR)),
		);
	// The widths of the first `count` columns narrowed to fit, the widest first, one terminal
	// column at a time, none below its floor; undefined when they cannot fit.
	const narrowed = (count: number, floorOf: (index: number) => number): number[] | undefined => {
		const widths = natural.slice(0, count);
		let total = widths.reduce((sum, each) => sum + each, 0) + GAP.length * (count - 1);
		while (total > width) {
			let widest = -1;
			for (let index = 0; index < count; index++) {
				if (widths[index] > floorOf(index) && (widest < 0 || widths[index] >= widths[widest]))
					widest = index;
			}
			if (widest < 0) return undefined;
			widths[widest]--;
			total--;
		}
		return widths;
	};
	// Values are cut before headers (down to HEADER_FLOOR), then headers too (down to
	// MIN_COLUMN) if that fits every column; else the last columns are left out, named below.
	let widths = narrowed(columns.length, headerFloor) ?? narrowed(columns.length, () => MIN_COLUMN);
	let shown = columns.length;
	while (!widths && shown > 1) widths = narrowed(--shown, headerFloor);
	// A single column that does not fit is cut to the width itself.
	widths ??= [width];

	const line = (values: string[]) =>
		values
			.slice(0, shown)
			.map((value, index) => pad(value, widths[index]))
			.join(GAP)
			.trimEnd();
	const header = columns.map((column, index) => cutHeader(column, widths![index] ?? 0));
	const lines = [
		line(header),
		line(widths.map((each) => '-'.repeat(each))),
		...cells.map((values) => line(values.map((value, index) => cut(value, widths[index] ?? 0)))),
	];
	if (shown < columns.length) {
		lines.push(cut(`(not shown, no room: ${columns.slice(shown).join(', ')})`, width));
	}
	return lines.join('\n');
}

/**
 * Whether `formatTable` shows these rows whole within the width: every column, every header and
 * every value uncut. A table that would cut one is shown as cards instead (`formatRecords`).
 */
export function fitsWhole(rows: Array<Record<string, unknown>>, options: TableOptions): boolean {
	const wanted = options.columns ?? [...new Set(rows.flatMap((row) => Object.keys(row)))];
	const widths = wanted
		.map((column) => [column, ...rows.map((row) => shownValue(row[column]))])
		.filter(([, ...values]) => values.some((value) => value !== ''))
		.map((texts) => Math.max(...texts.map(displayWidth)));
	const total = widths.reduce((sum, each) => sum + each, 0) + GAP.length * (widths.length - 1);
	return total <= options.width;
}

/** A text in lines of at most `width` columns, broken at spaces where it can be, else anywhere. */
export function wrap(text: string, width: number): string[] {
	const lines: string[] = [];
	let line = '';
	for (const word of text.split(/(?<= )/)) {
		if (displayWidth(line + word) <= width) {
			line += word;
			continue;
		}
		if (line.trim() !== '') lines.push(line.trimEnd());
		line = '';
		let rest = word;
		while (displayWidth(rest) > width) {
			let head = '';
			for (const char of rest) {
				if (displayWidth(head + char) > width) break;
				head += char;
			}
			lines.push(head);
			rest = rest.slice(head.length);
		}
		line = rest;
	}
	if (line.trim() !== '' || lines.length === 0) lines.push(line.trimEnd());
	return lines;
}

/**
 * Rows as cards, one block each: its first column's value as the block's title (a number with the
 * column's name), then every other column that has a value, one a line as `field  value`. Nothing
 * is cut at any width: a long value continues on the next lines under itself, and a field name too
 * long to share its line with a value has a line of its own, the value below it. Where a table would have to cut the fields a
 * reader came for (a lead's company, industry, size), a card keeps every one of them whole.
 */
export function formatRecords(
	rows: Array<Record<string, unknown>>,
	options: TableOptions,
): string[][] {
	const { width } = options;
	const wanted = options.columns ?? [...new Set(rows.flatMap((row) => Object.keys(row)))];
	const [title, ...fields] = wanted;
	const indent = '  ';
	const labelWidth = Math.min(
		Math.max(...fields.map((field) => displayWidth(field))),
		Math.floor(width / 2),
	);
	const valueAt = indent.length + labelWidth + GAP.length;
	const field = (name: string, value: string): string[] => {
		if (displayWidth(name) <= labelWidth) {
			const [first, ...more] = wrap(value, Math.max(1, width - valueAt));
			return [
				`${indent}${pad(name, labelWidth)}${GAP}${first}`,
				...more.map((line) => `${' '.repeat(valueAt)}${line}`),
			];
		}
		const deeper = `${indent}${indent}`;
		return [
			...wrap(name, width - indent.length).map((line) => `${indent}${line}`),
			...wrap(value, Math.max(1, width - deeper.length)).map((line) => `${deeper}${line}`),
		];
	};
	// A bare "5" says nothing as a card's title (a result file's summary): "rows 5" says what it counts.
	const heading = (value: unknown) =>
		typeof value === 'number' ? `${title} ${shownValue(value)}` : shownValue(value) || '(no value)';
	return rows.map((row) => [
		...wrap(heading(row[title]), width),
		...fields
			.filter((name) => shownValue(row[name]) !== '')
			.flatMap((name) => field(name, shownValue(row[name]))),
	]);
}
