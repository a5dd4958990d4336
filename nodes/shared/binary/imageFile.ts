import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { fileItem } from './files';

/**
 * Images that a media service answered (an avatar, a screenshot, a processed image) as items:
 * the bytes exactly as the service sent them in a binary property, through n8n's binary data
 * helpers, and JSON beside them that describes the file.
 */

export type ImageFormat = 'png' | 'jpeg' | 'svg' | 'webp' | 'gif';

const TYPES: Record<ImageFormat, { mimeType: string; extension: string }> = {
	png: { mimeType: 'image/png', extension: 'png' },
	jpeg: { mimeType: 'image/jpeg', extension: 'jpeg' },
	svg: { mimeType: 'image/svg+xml', extension: 'svg' },
	webp: { mimeType: 'image/webp', extension: 'webp' },
	gif: { mimeType: 'image/gif', extension: 'gif' },
};

export interface ImageType {
	format: ImageFormat;
	mimeType: string;
	extension: string;
}

/**
 * The type of an answer: its Content-Type when that names an image type, else the one asked for
 * (the media services do not document their content types).
 */
export function imageTypeOf(headers: IDataObject | undefined, requested: ImageFormat): ImageType {
	const contentType = String(headers?.['content-type'] ?? '')
		.split(';')[0]
		.trim()
		.toLowerCase();
	const known = (Object.keys(TYPES) as ImageFormat[]).find(
		(format) => TYPES[format].mimeType === contentType,
	);
	const format = known ?? (contentType === 'image/jpg' ? 'jpeg' : requested);
	return { format, ...TYPES[format] };
}

/** A binary answer as a Buffer, whatever form the HTTP layer handed it in. */
export function asBuffer(body: unknown): Buffer {
	if (Buffer.isBuffer(body)) return body;
	if (body instanceof ArrayBuffer) return Buffer.from(body);
	if (ArrayBuffer.isView(body)) return Buffer.from(body.buffer, body.byteOffset, body.byteLength);
	return Buffer.from(String(body ?? ''));
}

/** Pixel width and height read from a PNG, JPEG or SVG file's header, when it has them. */
export function dimensionsOf(bytes: Buffer): { width: number; height: number } | undefined {
	if (bytes.length >= 24 && bytes[0] === 0x89 && bytes.toString('latin1', 1, 4) === 'PNG') {
		return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
	}
	if (bytes.length >= 4 && bytes[0] === 0xff && bytes[1] === 0xd8) {
		for (let at = 2; at + 9 <= bytes.length; ) {
			if (bytes[at] !== 0xff) return undefined;
			const marker = bytes[at + 1];
			if (marker === 0xff) {
				at++;
				continue;
			}
			// Start of frame: every SOFn but DHT (c4), JPG (c8) and DAC (cc).
			if (marker >= 0xc0 && marker <= 0xcf && ![0xc4, 0xc8, 0xcc].includes(marker)) {
				return { height: bytes.readUInt16BE(at + 5), width: bytes.readUInt16BE(at + 7) };
			}
			at += 2 + bytes.readUInt16BE(at + 2);
		}
		return undefined;
	}
	const root = /<svg\b[^>]*>/.exec(bytes.subarray(0, 4096).toString('utf8'))?.[0];
	const width = root && /\swidth="(\d+)(px)?"/.exec(root)?.[1];
	const height = root && /\sheight="(\d+)(px)?"/.exec(root)?.[1];
	return width && height ? { width: Number(width), height: Number(height) } : undefined;
}

/**
 * An item with the image under `property` named `<baseName>.<extension>`, and JSON that
 * describes it: the caller's facts first, then format, file name, MIME type and byte count.
 */
export async function imageItem(
	ctx: IExecuteFunctions,
	bytes: Buffer,
	image: { property: string; baseName: string; type: ImageType; json: IDataObject },
): Promise<INodeExecutionData> {
	const fileName = `${image.baseName}.${image.type.extension}`;
	return await fileItem(ctx, bytes, {
		property: image.property,
		fileName,
		mimeType: image.type.mimeType,
		json: {
			...image.json,
			format: image.type.format,
			fileName,
			mimeType: image.type.mimeType,
			bytes: bytes.length,
		},
	});
}
