/**
 * RFC 4180 CSV: a header row, CRLF line ends, and a field quoted when it holds a comma, a quote or
 * a line break (quotes doubled). Place names such as "Washington, D.C." need it.
 */
export function csvField(value: string): string {
	return /[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

export function csvLine(values: string[]): string {
	return `${values.map(csvField).join(',')}\r\n`;
}

export function writeCsv(columns: string[], rows: Array<Record<string, string>>): Buffer {
	return Buffer.from(
		[
			csvLine(columns),
			...rows.map((row) => csvLine(columns.map((column) => row[column] ?? ''))),
		].join(''),
		'utf8',
	);
}

/** Splits CSV text into rows of fields, honouring quotes (the reader a test uses to check the writer). */
export function parseCsv(text: string): string[][] {
	const rows: string[][] = [];
	let row: string[] = [];
	let field = '';
	let quoted = false;
	for (let index = 0; index < text.length; index++) {
		const char = text[index];
		if (quoted) {
			if (char === '"' && text[index + 1] === '"') {
				field += '"';
				index++;
			} else if (char === '"') quoted = false;
			else field += char;
		} else if (char === '"') quoted = true;
		else if (char === ',') {
			row.push(field);
			field = '';
		} else if (char === '\n' || char === '\r') {
			if (char === '\r' && text[index + 1] === '\n') index++;
			row.push(field);
			rows.push(row);
			row = [];
			field = '';
		} else field += char;
	}
	if (field !== '' || row.length > 0) rows.push([...row, field]);
	return rows;
}
