/**
 * A streaming tar reader (POSIX ustar, with the GNU long-name and pax `path` extensions), without
 * dependencies: 512-byte blocks, every header's checksum checked, and the archive must end with
 * its zero blocks. A cut or damaged archive is an error, never a shorter list of files.
 */

const BLOCK = 512;

export type TarEvent =
	| { type: 'file'; name: string; size: number }
	| { type: 'data'; name: string; data: Uint8Array }
	| { type: 'fileEnd'; name: string };

export class TarError extends Error {}

/** Member metadata larger than this is not a name: the archive is not what it claims. */
const MAX_META_SIZE = 64 * 1024;

type Kind = 'file' | 'skip' | 'longName' | 'pax';

export async function* readTar(source: AsyncIterable<Uint8Array>): AsyncGenerator<TarEvent> {
	const header = new Uint8Array(BLOCK);
	let headerFill = 0;
	let zeroBlocks = 0;
	let ended = false;
	// The member being read: its remaining data, then its padding.
	let current:
		| { name: string; kind: Kind; remaining: number; padding: number; meta: Uint8Array[] }
		| undefined;
	let nextName: string | undefined;

	for await (const chunk of source) {
		let at = 0;
		while (at < chunk.length) {
			if (ended) {
				// After the end blocks tar writers pad with zeros (to a 10 KiB record); anything else is damage.
				for (; at < chunk.length; at++)
					if (chunk[at] !== 0) throw new TarError('data after the end of the tar archive');
				break;
			}
			if (current && current.remaining > 0) {
				const take = Math.min(current.remaining, chunk.length - at);
				const data = chunk.subarray(at, at + take);
				at += take;
				current.remaining -= take;
				if (current.kind === 'file') yield { type: 'data', name: current.name, data };
				else if (current.kind !== 'skip') current.meta.push(data.slice());
				if (current.remaining === 0) {
					if (current.kind === 'file') yield { type: 'fileEnd', name: current.name };
					else if (current.kind === 'longName') nextName = nulTerminated(concat(current.meta));
					else if (current.kind === 'pax') nextName = paxPath(concat(current.meta)) ?? nextName;
				}
				continue;
			}
			if (current && current.padding > 0) {
				const take = Math.min(current.padding, chunk.length - at);
				at += take;
				current.padding -= take;
				continue;
			}
			current = undefined;
			const take = Math.min(BLOCK - headerFill, chunk.length - at);
			header.set(chunk.subarray(at, at + take), headerFill);
			headerFill += take;
			at += take;
			if (headerFill < BLOCK) continue;
			headerFill = 0;

			if (header.every((byte) => byte === 0)) {
				zeroBlocks++;
				if (zeroBlocks === 2) ended = true;
				continue;
			}
			if (zeroBlocks > 0) throw new TarError('a file header after an end-of-archive block');
			const entry = parseHeader(header);
			let kind: Kind;
			if (entry.type === '0' || entry.type === '\0' || entry.type === '7') kind = 'file';
			else if (entry.type === 'L') kind = 'longName';
			else if (entry.type === 'x') kind = 'pax';
			else kind = 'skip';
			if (kind !== 'file' && kind !== 'skip' && entry.size > MAX_META_SIZE) {
				throw new TarError(`an oversized tar extension header (${entry.size} bytes)`);
			}
			const name = kind === 'file' ? (nextName ?? entry.name) : entry.name;
			if (kind === 'file' || kind === 'skip') nextName = undefined;
			current = {
				name,
				kind,
				remaining: entry.size,
				padding: (BLOCK - (entry.size % BLOCK)) % BLOCK,
				meta: [],
			};
			if (kind === 'file') {
				yield { type: 'file', name, size: entry.size };
				if (entry.size === 0) yield { type: 'fileEnd', name };
			}
		}
	}
	if (!ended) {
		if (current && current.remaining > 0) {
			throw new TarError(
				`the tar archive ends inside "${current.name}", ${current.remaining} bytes short`,
			);
		}
		throw new TarError('the tar archive ends without its end-of-archive blocks');
	}
}

function parseHeader(block: Uint8Array): { name: string; size: number; type: string } {
	let sum = 0;
	for (let index = 0; index < BLOCK; index++)
		sum += index >= 148 && index < 156 ? 32 : block[index];
	const stored = octal(block.subarray(148, 156));
	if (stored !== sum)
		throw new TarError('a tar header checksum does not match (the archive is damaged)');
	const magic = text(block.subarray(257, 263));
	const prefix = magic.startsWith('ustar') ? nulTerminated(block.subarray(345, 500)) : '';
	const name = nulTerminated(block.subarray(0, 100));
	return {
		name: prefix ? `${prefix}/${name}` : name,
		size: sizeOf(block.subarray(124, 136)),
		type: String.fromCharCode(block[156]),
	};
}

/** The size field: octal digits, or GNU base-256 (high bit set) for files over 8 GiB. */
function sizeOf(field: Uint8Array): number {
	if (field[0] & 0x80) {
		let value = field[0] & 0x7f;
		for (let index = 1; index < field.length; index++) value = value * 256 + field[index];
		return value;
	}
	return octal(field);
}

function octal(field: Uint8Array): number {
	const digits = text(field).replace(/\0.*$/s, '').trim();
	if (!/^[0-7]+$/.test(digits))
		throw new TarError('a tar header holds a malformed number (the archive is damaged)');
	return parseInt(digits, 8);
}

const text = (bytes: Uint8Array) => new TextDecoder('utf-8').decode(bytes);

function nulTerminated(bytes: Uint8Array): string {
	const end = bytes.indexOf(0);
	return text(end < 0 ? bytes : bytes.subarray(0, end));
}

function concat(parts: Uint8Array[]): Uint8Array {
	const all = new Uint8Array(parts.reduce((total, part) => total + part.length, 0));
	let at = 0;
	for (const part of parts) {
		all.set(part, at);
		at += part.length;
	}
	return all;
}

/** The `path` record of a pax extended header ("<length> path=<name>\n" records). */
function paxPath(bytes: Uint8Array): string | undefined {
	for (const record of text(bytes).split('\n')) {
		const match = /^\d+ path=(.*)$/s.exec(record);
		if (match) return match[1];
	}
	return undefined;
}
