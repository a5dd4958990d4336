import { createHash } from 'crypto';

/** An RGBA colour, 0-255 per channel. */
export type Rgba = [number, number, number, number];

/**
 * A picture in memory, RGBA, row by row: what the sandbox draws before encoding it as PNG or
 * JPEG. Only rectangles and discs: enough for pages, avatars and processed images that a reader
 * can check (format, dimensions) without a font or an image library.
 */
export class Raster {
	readonly data: Buffer;

	constructor(
		readonly width: number,
		readonly height: number,
		background: Rgba = [255, 255, 255, 255],
	) {
		this.data = Buffer.alloc(width * height * 4);
		this.fillRect(0, 0, width, height, background);
	}

	fillRect(x: number, y: number, width: number, height: number, color: Rgba): void {
		const left = Math.max(0, Math.floor(x));
		const top = Math.max(0, Math.floor(y));
		const right = Math.min(this.width, Math.floor(x + width));
		const bottom = Math.min(this.height, Math.floor(y + height));
		if (right <= left || bottom <= top) return;
		const row = Buffer.alloc((right - left) * 4);
		for (let i = 0; i < row.length; i += 4) row.set(color, i);
		for (let line = top; line < bottom; line++) row.copy(this.data, (line * this.width + left) * 4);
	}

	/** Makes everything outside the disc inscribed in the picture transparent (rounded avatars). */
	clipToDisc(): void {
		const radius = Math.min(this.width, this.height) / 2;
		const cx = this.width / 2;
		const cy = this.height / 2;
		for (let y = 0; y < this.height; y++) {
			for (let x = 0; x < this.width; x++) {
				if ((x + 0.5 - cx) ** 2 + (y + 0.5 - cy) ** 2 > radius ** 2)
					this.data[(y * this.width + x) * 4 + 3] = 0;
			}
		}
	}
}

/** A stable number for a text (a URL, a name), to draw the same picture for the same input. */
export function seedOf(text: string): number {
	return createHash('sha256').update(text).digest().readUInt32BE(0);
}

/** A colour picked by a seed, neither too dark nor too light. */
export function colorOf(seed: number, shift = 0): Rgba {
	const value = (seed >>> shift) & 0xffffff;
	return [64 + ((value >> 16) % 160), 64 + ((value >> 8) % 160), 64 + (value % 160), 255];
}

/** "#335eea", "335eea" or "3ae" as a colour. */
export function hexToRgba(hex: string): Rgba {
	let digits = hex.replace(/^#/, '');
	if (digits.length === 3) digits = [...digits].map((digit) => digit + digit).join('');
	const value = parseInt(digits, 16);
	return [(value >> 16) & 255, (value >> 8) & 255, value & 255, 255];
}
