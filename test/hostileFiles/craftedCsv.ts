/**
 * CSV files built to exhaust a reader's memory: a line of commas is one record of as many empty
 * cells, each of which a reader that builds every cell's range and string pays for (30 MB of
 * commas took 0.5 to 0.7 GB in the scanner that had no bound).
 */

/** `start` (a header line, or the start of one), then `bytes` commas and a line end. */
export function lineOfCommas(bytes: number, start: string): Buffer {
	const head = Buffer.from(start, 'utf8');
	const file = Buffer.alloc(head.length + bytes + 1, ',');
	head.copy(file);
	file[file.length - 1] = 0x0a;
	return file;
}
