/**
 * The first bytes of a CSV input, held until what they say about the rest is known: a UTF-8 byte
 * order mark, a first line `sep=X` (skipped, not a record) and, when it is to be detected, the
 * delimiter (delimiter.ts reads the first rows together, so they are held until then).
 */

import { Byte } from './csvBytes';
import { delimiterName, detectDelimiter, sepLine, SEP_LINE_BYTES } from './delimiter';
import type { DelimiterSource } from './delimiter';

const BOM = [0xef, 0xbb, 0xbf];

/** Bytes held at the start to see a byte order mark and a `sep=` line. */
const MARKS_BYTES = BOM.length + SEP_LINE_BYTES;

/**
 * Bytes held to detect the delimiter: the first rows of a bulk file are in them, and holding them
 * costs nothing next to a file of many MB.
 */
const DETECTION_BYTES = 64 * 1024;

/** A `sep=` line the reader cannot follow, or one that contradicts the delimiter given. */
export class SepLineError extends Error {
	constructor(message: string) {
		super(message);
		this.name = 'SepLineError';
	}
}

export class CsvFileStart {
	/** The byte between fields: the one given, until a `sep=` line or detection says otherwise. */
	delimiter: number;
	delimiterSource: DelimiterSource = 'given';
	byteOrderMark = false;
	/** The byte order mark and `sep=` line skipped: bytes, and lines (the `sep=` line). */
	skippedBytes = 0;
	skippedLines = 0;
	/** The first bytes (a copy), until they are enough to see the marks; undefined after. */
	private head: Uint8Array | undefined = new Uint8Array(0);
	/** Detecting the delimiter: the input's first chunks (copies), until they hold DETECTION_BYTES or the end. */
	private held: Uint8Array[] | undefined;
	private heldLength = 0;
	private readonly detect: boolean;

	constructor(delimiter: ',' | ';' | '\t' | 'detect') {
		this.detect = delimiter === 'detect';
		this.delimiter = this.detect ? Byte.Comma : delimiter.charCodeAt(0);
	}

	/**
	 * Takes a chunk; returns the bytes to scan once the start is known (the rest of the input is
	 * then scanned as it comes), or undefined while they are held.
	 */
	push(chunk: Uint8Array): Uint8Array | undefined {
		if (this.head !== undefined) {
			const held = this.head;
			const joined = held.length === 0 ? chunk : Buffer.concat([held, chunk]);
			if (joined.length < MARKS_BYTES) {
				// A copy: the caller may reuse its chunk.
				this.head = Uint8Array.from(joined);
				return undefined;
			}
			this.head = undefined;
			chunk = this.readMarks(joined, false);
		}
		if (this.held === undefined) return chunk;
		// A copy: the caller may reuse its chunk.
		this.held.push(new Uint8Array(chunk));
		this.heldLength += chunk.length;
		return this.heldLength >= DETECTION_BYTES ? this.detected(false) : undefined;
	}

	/** At the end of the input: the bytes still held, to scan (the start is known now). */
	end(): Uint8Array {
		let rest: Uint8Array = new Uint8Array(0);
		if (this.head !== undefined) {
			const held = this.head;
			this.head = undefined;
			rest = this.readMarks(held, true);
			if (this.held !== undefined) this.held.push(new Uint8Array(rest));
		}
		return this.held !== undefined ? this.detected(true) : rest;
	}

	/**
	 * A byte order mark and a `sep=` line at the start, skipped, the delimiter taken from the line;
	 * returns the rest. `whole`: the bytes are the whole input.
	 */
	private readMarks(bytes: Uint8Array, whole: boolean): Uint8Array {
		let at = 0;
		if (bytes[0] === BOM[0] && bytes[1] === BOM[1] && bytes[2] === BOM[2]) {
			this.byteOrderMark = true;
			at = BOM.length;
		}
		const sep = sepLine(bytes, at, whole);
		if (sep) {
			if (
				sep.delimiter !== Byte.Comma &&
				sep.delimiter !== Byte.Semicolon &&
				sep.delimiter !== Byte.Tab
			) {
				throw new SepLineError(
					`its first line says sep=${String.fromCharCode(sep.delimiter)}, a delimiter this node cannot read (a comma, a semicolon or a tab): save the file with one of those`,
				);
			}
			if (!this.detect && sep.delimiter !== this.delimiter) {
				throw new SepLineError(
					`its first line says sep=${String.fromCharCode(sep.delimiter)} (${delimiterName(sep.delimiter)}), but Delimiter is ${delimiterName(this.delimiter)}: set Delimiter to Detect or to ${delimiterName(sep.delimiter)}`,
				);
			}
			if (this.detect) {
				this.delimiter = sep.delimiter;
				this.delimiterSource = 'sepLine';
			}
			at += sep.length;
			this.skippedLines = 1;
		} else if (this.detect) {
			this.held = [];
		}
		this.skippedBytes = at;
		return bytes.subarray(at);
	}

	/** The delimiter from the bytes held (`whole`: they are the whole input); returns them to scan. */
	private detected(whole: boolean): Uint8Array {
		const held = this.held ?? [];
		this.held = undefined;
		const bytes = held.length === 1 ? held[0] : Buffer.concat(held);
		this.delimiter = detectDelimiter(bytes, whole);
		this.delimiterSource = 'detected';
		return bytes;
	}
}
