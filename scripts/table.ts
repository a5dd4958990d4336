/** Prints rows of flat values as an aligned text table, cells cut to a readable width. */
export function formatTable(rows: Array<Record<string, unknown>>, maxWidth = 30): string {
	if (rows.length === 0) return '(no items)';
	const columns = [...new Set(rows.flatMap((row) => Object.keys(row)))];
	const cell = (value: unknown) => {
		const text = value === undefined || value === null ? '' : typeof value === 'object' ? JSON.stringify(value) : String(value);
		return text.length > maxWidth ? `${text.slice(0, maxWidth - 1)}…` : text;
	};
	const cells = rows.map((row) => columns.map((column) => cell(row[column])));
	const widths = columns.map((column, index) => Math.max(column.length, ...cells.map((line) => line[index].length)));
	const line = (values: string[]) => values.map((value, index) => value.padEnd(widths[index])).join('  ').trimEnd();
	return [line(columns), line(widths.map((width) => '-'.repeat(width))), ...cells.map(line)].join('\n');
}
