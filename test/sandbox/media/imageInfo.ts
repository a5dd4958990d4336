/**
 * What a file is, read from its bytes: PNG (IHDR), JPEG (the SOF segment) or SVG (the root
 * element's width and height). The upload endpoint uses it for the real dimensions of an
 * uploaded image, and tests use it to check what a node returned.
 */
export interface ImageInfo {
	format: 'png' | 'jpeg' | 'svg';
	width: number;
	height: number;
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

export function isPng(bytes: Buffer): boolean {
	return bytes.length >= 8 && bytes.subarray(0, 8).equals(PNG_SIGNATURE);
}

export function isJpeg(bytes: Buffer): boolean {
	return bytes.length >= 4 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff;
}

export function isSvg(bytes: Buffer): boolean {
	return /^\s*(<\?xml[^>]*>\s*)?<svg[\s>]/.test(bytes.subarray(0, 512).toString('utf8'));
}

function pngInfo(bytes: Buffer): ImageInfo | undefined {
	if (bytes.length < 24 || bytes.toString('latin1', 12, 16) !== 'IHDR') return undefined;
	return { format: 'png', width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

/** Start-of-frame markers (baseline, progressive, lossless ...), all but DHT, JPG and DAC. */
const SOF_MARKERS = new Set([
	0xc0, 0xc1, 0xc2, 0xc3, 0xc5, 0xc6, 0xc7, 0xc9, 0xca, 0xcb, 0xcd, 0xce, 0xcf,
]);

function jpegInfo(bytes: Buffer): ImageInfo | undefined {
	let at = 2;
	while (at + 4 <= bytes.length) {
		if (bytes[at] !== 0xff) return undefined;
		const marker = bytes[at + 1];
		if (marker === 0xff) {
			at++; // fill byte
			continue;
		}
		const length = bytes.readUInt16BE(at + 2);
		if (SOF_MARKERS.has(marker) && at + 9 <= bytes.length) {
			return {
				format: 'jpeg',
				height: bytes.readUInt16BE(at + 5),
				width: bytes.readUInt16BE(at + 7),
			};
		}
		if (marker === 0xda || marker === 0xd9) return undefined; // scan or end before any frame
		at += 2 + length;
	}
	return undefined;
}

function svgInfo(bytes: Buffer): ImageInfo | undefined {
	const root = /<svg\b[^>]*>/.exec(bytes.toString('utf8'))?.[0];
	const width = root && /\swidth="(\d+)"/.exec(root)?.[1];
	const height = root && /\sheight="(\d+)"/.exec(root)?.[1];
	if (!width || !height) return undefined;
	return { format: 'svg', width: Number(width), height: Number(height) };
}

export function imageInfo(bytes: Buffer): ImageInfo | undefined {
	if (isPng(bytes)) return pngInfo(bytes);
	if (isJpeg(bytes)) return jpegInfo(bytes);
	if (isSvg(bytes)) return svgInfo(bytes);
	return undefined;
}

export const MIME_TYPES: Record<ImageInfo['format'], string> = {
	png: 'image/png',
	jpeg: 'image/jpeg',
	svg: 'image/svg+xml',
};
