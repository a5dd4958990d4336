import { deflateSync } from 'zlib';

import type { Raster } from './raster';

/**
 * A PNG encoder with no dependency: 8-bit RGB (or RGBA when the picture has transparency),
 * filter 0 on every row, zlib deflate, CRC-32 per chunk (PNG 1.2).
 */

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

const CRC_TABLE = (() => {
	const table = new Uint32Array(256);
	for (let n = 0; n < 256; n++) {
		let c = n;
		for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
		table[n] = c >>> 0;
	}
	return table;
})();

export function crc32(bytes: Buffer): number {
	let crc = 0xffffffff;
	for (const byte of bytes) crc = CRC_TABLE[(crc ^ byte) & 0xff] ^ (crc >>> 8);
	return (crc ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Buffer): Buffer {
	const typeAndData = Buffer.concat([Buffer.from(type, 'latin1'), data]);
	const out = Buffer.alloc(12 + data.length);
	out.writeUInt32BE(data.length, 0);
	typeAndData.copy(out, 4);
	out.writeUInt32BE(crc32(typeAndData), 8 + data.length);
	return out;
}

export interface PngOptions {
	/** Bytes of a private ancillary chunk (`paDd`) that decoders skip: a larger file, same picture. */
	padding?: number;
}

export function encodePng(raster: Raster, options: PngOptions = {}): Buffer {
	const { width, height, data } = raster;
	let alpha = false;
	for (let i = 3; i < data.length && !alpha; i += 4) alpha = data[i] !== 255;
	const channels = alpha ? 4 : 3;
	const stride = width * channels + 1;
	const raw = Buffer.alloc(stride * height);
	for (let y = 0; y < height; y++) {
		raw[y * stride] = 0; // filter: none
		for (let x = 0; x < width; x++) {
			const from = (y * width + x) * 4;
			const to = y * stride + 1 + x * channels;
			raw[to] = data[from];
			raw[to + 1] = data[from + 1];
			raw[to + 2] = data[from + 2];
			if (alpha) raw[to + 3] = data[from + 3];
		}
	}
	const header = Buffer.alloc(13);
	header.writeUInt32BE(width, 0);
	header.writeUInt32BE(height, 4);
	header[8] = 8; // bit depth
	header[9] = alpha ? 6 : 2; // colour type: RGBA or RGB
	header[10] = 0; // compression
	header[11] = 0; // filter method
	header[12] = 0; // no interlace
	const chunks = [chunk('IHDR', header), chunk('IDAT', deflateSync(raw))];
	if (options.padding && options.padding > 0)
		chunks.push(chunk('paDd', Buffer.alloc(options.padding, 0x20)));
	chunks.push(chunk('IEND', Buffer.alloc(0)));
	return Buffer.concat([SIGNATURE, ...chunks]);
}
