/**
 * What a file that is neither an MMDB nor a database CSV looks like, for the error that says so:
 * a user who gives the lookup the wrong file (the download's archive, a sign-in page saved instead
 * of the file, an API's JSON answer) or a file cut short should read which, and what to do.
 * Nothing of the file's content is quoted but a CSV's first column name: a saved answer or page
 * may hold a signed link or a key.
 */

const startsWith = (bytes: Uint8Array, signature: readonly number[], at = 0) =>
	signature.every((byte, index) => bytes[at + index] === byte);

const GZIP = [0x1f, 0x8b];
const ZIP = [0x50, 0x4b];
const USTAR = Array.from('ustar', (char) => char.charCodeAt(0));

const NEITHER = 'The file is neither an MMDB database nor a database CSV:';

/** A tar archive: the ustar magic in its first header (an MMDB holds its search tree there). */
export const isTar = (bytes: Uint8Array) =>
	startsWith(bytes, USTAR, 257) && (bytes[262] === 0 || bytes[262] === 0x20);

const UNPACK =
	'unpack it first, or set the IP Database Download node\'s Output to "Database File", which gives the .mmdb or .csv itself';

/** The text at the file's start, if it reads as text (no NUL, valid UTF-8 but for a character the cut split). */
function textOf(bytes: Uint8Array): string | undefined {
	const head = bytes.subarray(0, 4096);
	if (head.includes(0)) return undefined;
	try {
		return new TextDecoder('utf-8', { fatal: true }).decode(
			head.subarray(0, lastWholeCharacter(head)),
		);
	} catch {
		return undefined;
	}
}

/** Where the last whole UTF-8 character of a prefix ends (a cut may split the last one). */
function lastWholeCharacter(head: Uint8Array): number {
	let end = head.length;
	for (let back = 1; back <= 3 && end - back >= 0; back++) {
		const byte = head[end - back];
		if ((byte & 0xc0) === 0x80) continue; // a continuation byte: look further back
		const length = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
		if (length > back) end -= back;
		break;
	}
	return end;
}

/** The error message for bytes that hold no MMDB metadata marker and do not start with a CSV header. */
export function notADatabase(bytes: Uint8Array): string {
	const size = `${bytes.length.toLocaleString('en-US')} bytes`;
	if (startsWith(bytes, GZIP)) return `${NEITHER} it is a gzip archive (${size}): ${UNPACK}`;
	if (isTar(bytes)) return `${NEITHER} it is a tar archive (${size}): ${UNPACK}`;
	if (startsWith(bytes, ZIP) && (bytes[2] === 3 || bytes[2] === 5 || bytes[2] === 7)) {
		return `${NEITHER} it is a ZIP archive (${size}): unzip it and give the lookup the .mmdb or .csv inside`;
	}
	const text = textOf(bytes);
	if (text !== undefined) {
		const start = text.replace(/^\uFEFF/, '').trimStart();
		if (/^<(!doctype\s+html|html|head|body)[\s>]/i.test(start)) {
			return `${NEITHER} it is an HTML page (${size}): a web page (a sign-in or error page?) was saved instead of the database file`;
		}
		if (/^<\?xml/i.test(start)) return `${NEITHER} it is an XML document (${size})`;
		if (/^[{[]/.test(start)) {
			return `${NEITHER} it is JSON (${size}): an API's answer was saved instead of the database file (the IP Database Download node's Output "Database File" gives the file itself)`;
		}
		if (start === '') return `${NEITHER} it holds only white space (${size})`;
		const firstLine = start.split(/\r?\n/, 1)[0];
		if (firstLine.includes(',')) {
			const column = firstLine.split(',', 1)[0].replace(/^"|"$/g, '').trim().slice(0, 40);
			return `${NEITHER} it is a CSV whose first column is "${column}", not "network": a database CSV starts with the network column`;
		}
		return `${NEITHER} it is plain text (${size}) whose first line has no "network" column first (a database CSV starts with it)`;
	}
	return (
		`The MMDB file ends early: ${size}, and its metadata marker is missing (an MMDB ends with it, "\\xAB\\xCD\\xEFMaxMind.com" and the metadata, in its last 128 KiB): ` +
		'was the download cut short? (If it is no MMDB: it is no database CSV either, whose first line starts with the column "network".)'
	);
}
