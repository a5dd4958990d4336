import type { Raster } from './raster';

/**
 * A baseline JPEG (JFIF) encoder with no dependency, for pictures made of flat 8x8 blocks: each
 * block of each component keeps its average (the DC coefficient), the AC coefficients are zero.
 * That is a lossy JPEG like any other (three YCbCr components, no subsampling, Huffman coded),
 * which every decoder reads, at a fraction of a full encoder's code.
 */

/** Annex K.3: the standard luminance DC table, categories 0 to 11. */
const DC_BITS = [0, 1, 5, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0];
const DC_VALUES = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11];
/** An AC table with one symbol, end-of-block (0x00), coded as the single bit 0. */
const AC_BITS = [1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0];
const AC_VALUES = [0x00];
/** Quantizer 8 everywhere: a flat block's DC coefficient, 8 x (mean - 128), quantizes to mean - 128. */
const QUANTIZER = 8;

/** The canonical Huffman codes of a table (JPEG Annex C), by symbol. */
function huffmanCodes(
	bits: number[],
	values: number[],
): Map<number, { code: number; length: number }> {
	const codes = new Map<number, { code: number; length: number }>();
	let code = 0;
	let k = 0;
	for (let length = 1; length <= 16; length++) {
		for (let i = 0; i < bits[length - 1]; i++) codes.set(values[k++], { code: code++, length });
		code <<= 1;
	}
	return codes;
}

const DC_CODES = huffmanCodes(DC_BITS, DC_VALUES);

/** Writes entropy-coded bits, stuffing a 0x00 after every 0xFF byte (F.1.2.3). */
class BitWriter {
	private readonly bytes: number[] = [];
	private current = 0;
	private count = 0;

	write(value: number, length: number): void {
		for (let bit = length - 1; bit >= 0; bit--) {
			this.current = (this.current << 1) | ((value >> bit) & 1);
			if (++this.count === 8) this.flushByte();
		}
	}

	private flushByte(): void {
		this.bytes.push(this.current);
		if (this.current === 0xff) this.bytes.push(0x00);
		this.current = 0;
		this.count = 0;
	}

	/** Pads the last byte with 1 bits. */
	finish(): Buffer {
		if (this.count > 0) this.write(0xff, 8 - this.count);
		return Buffer.from(this.bytes);
	}
}

function segment(marker: number, payload: number[] | Buffer): Buffer {
	const body = Buffer.from(payload);
	const out = Buffer.alloc(4 + body.length);
	out.writeUInt16BE(marker, 0);
	out.writeUInt16BE(body.length + 2, 2);
	body.copy(out, 4);
	return out;
}

/** The mean Y, Cb and Cr of the 8x8 block at (bx, by), edges repeated past the picture. */
function blockMeans(raster: Raster, bx: number, by: number): [number, number, number] {
	let y = 0;
	let cb = 0;
	let cr = 0;
	for (let dy = 0; dy < 8; dy++) {
		const row = Math.min(by * 8 + dy, raster.height - 1);
		for (let dx = 0; dx < 8; dx++) {
			const column = Math.min(bx * 8 + dx, raster.width - 1);
			const at = (row * raster.width + column) * 4;
			const [r, g, b] = [raster.data[at], raster.data[at + 1], raster.data[at + 2]];
			y += 0.299 * r + 0.587 * g + 0.114 * b;
			cb += -0.168736 * r - 0.331264 * g + 0.5 * b + 128;
			cr += 0.5 * r - 0.418688 * g - 0.081312 * b + 128;
		}
	}
	return [y / 64, cb / 64, cr / 64];
}

function writeDc(writer: BitWriter, diff: number): void {
	const magnitude = Math.abs(diff);
	const category = magnitude === 0 ? 0 : Math.floor(Math.log2(magnitude)) + 1;
	const { code, length } = DC_CODES.get(category)!;
	writer.write(code, length);
	if (category > 0) writer.write(diff >= 0 ? diff : diff + (1 << category) - 1, category);
}

export interface JpegOptions {
	/** Bytes of comment (COM) segments that decoders skip: a larger file, same picture. */
	padding?: number;
}

export function encodeJpeg(raster: Raster, options: JpegOptions = {}): Buffer {
	const { width, height } = raster;
	const jfif = [0x4a, 0x46, 0x49, 0x46, 0x00, 1, 1, 0, 0, 1, 0, 1, 0, 0];
	const quantization = [0x00, ...new Array<number>(64).fill(QUANTIZER)];
	const frame = [
		8,
		height >> 8,
		height & 255,
		width >> 8,
		width & 255,
		3,
		1,
		0x11,
		0,
		2,
		0x11,
		0,
		3,
		0x11,
		0,
	];
	const dcTable = [0x00, ...DC_BITS, ...DC_VALUES];
	const acTable = [0x10, ...AC_BITS, ...AC_VALUES];
	const scan = [3, 1, 0x00, 2, 0x00, 3, 0x00, 0, 63, 0];

	const writer = new BitWriter();
	const predictors = [0, 0, 0];
	const endOfBlock = huffmanCodes(AC_BITS, AC_VALUES).get(0x00)!;
	for (let by = 0; by < Math.ceil(height / 8); by++) {
		for (let bx = 0; bx < Math.ceil(width / 8); bx++) {
			const means = blockMeans(raster, bx, by);
			for (let component = 0; component < 3; component++) {
				const dc = Math.max(-128, Math.min(127, Math.round(means[component] - 128)));
				writeDc(writer, dc - predictors[component]);
				predictors[component] = dc;
				writer.write(endOfBlock.code, endOfBlock.length);
			}
		}
	}

	const padding: Buffer[] = [];
	for (let left = options.padding ?? 0; left > 0; left -= 65_000) {
		padding.push(segment(0xfffe, Buffer.alloc(Math.min(left, 65_000), 0x20)));
	}
	return Buffer.concat([
		Buffer.from([0xff, 0xd8]),
		segment(0xffe0, jfif),
		...padding,
		segment(0xffdb, quantization),
		segment(0xffc0, frame),
		segment(0xffc4, dcTable),
		segment(0xffc4, acTable),
		segment(0xffda, scan),
		writer.finish(),
		Buffer.from([0xff, 0xd9]),
	]);
}
