/**
 * ustar archives as GNU tar writes them with --sort=name --owner=0 --group=0 --mtime=...: fixed
 * owner and times, so the same files always give the same bytes (builds are reproducible: the same data gives the same file).
 */
const BLOCK = 512;

export function tarHeader(name: string, size: number, mtime: number): Buffer {
	if (Buffer.byteLength(name) > 100) throw new Error(`Name too long for this tar writer: ${name}`);
	const header = Buffer.alloc(BLOCK);
	const octal = (value: number, width: number) => `${value.toString(8).padStart(width - 1, '0')}\0`;
	header.write(name, 0, 100, 'utf8');
	header.write(octal(0o644, 8), 100, 'ascii');
	header.write(octal(0, 8), 108, 'ascii');
	header.write(octal(0, 8), 116, 'ascii');
	header.write(octal(size, 12), 124, 'ascii');
	header.write(octal(mtime, 12), 136, 'ascii');
	header.write('        ', 148, 'ascii');
	header.write('0', 156, 'ascii');
	header.write('ustar\0', 257, 'ascii');
	header.write('00', 263, 'ascii');
	header.write('root', 265, 'ascii');
	header.write('root', 297, 'ascii');
	let sum = 0;
	for (const byte of header) sum += byte;
	header.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'ascii');
	return header;
}

/** Zeros that bring a member's data to a whole block. */
export function tarPadding(size: number): Buffer {
	return Buffer.alloc((BLOCK - (size % BLOCK)) % BLOCK);
}

/** Two zero blocks close the archive. */
export const TAR_END = Buffer.alloc(BLOCK * 2);

export function tarEntry(name: string, data: Buffer, mtime: number): Buffer {
	return Buffer.concat([tarHeader(name, data.length, mtime), data, tarPadding(data.length)]);
}
