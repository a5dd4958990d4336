import type { MultipartPart } from './types';

/** Reads a multipart/form-data body into its parts (enough for the image upload endpoint). */
export function parseMultipart(body: Buffer, contentType: string): MultipartPart[] {
	const boundary = /boundary=(?:"([^"]+)"|([^;]+))/i.exec(contentType);
	if (!boundary) return [];
	const delimiter = Buffer.from(`--${boundary[1] ?? boundary[2]}`);
	const parts: MultipartPart[] = [];
	let start = body.indexOf(delimiter);
	while (start !== -1) {
		const headerStart = start + delimiter.length + 2; // past CRLF
		const next = body.indexOf(delimiter, headerStart);
		if (next === -1) break;
		const headerEnd = body.indexOf('\r\n\r\n', headerStart);
		if (headerEnd === -1 || headerEnd > next) break;
		const headers = body.subarray(headerStart, headerEnd).toString('utf8');
		const data = body.subarray(headerEnd + 4, next - 2); // drop the CRLF before the delimiter
		const name = /name="([^"]*)"/i.exec(headers)?.[1] ?? '';
		const fileName = /filename="([^"]*)"/i.exec(headers)?.[1];
		const type = /content-type:\s*([^\r\n]+)/i.exec(headers)?.[1];
		parts.push({ name, fileName, contentType: type, data: Buffer.from(data) });
		start = next;
	}
	return parts;
}
