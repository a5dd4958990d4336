/**
 * A streaming tar reader (POSIX ustar, with the GNU long-name and pax `path` and `size` extensions),
 * without dependencies: 512-byte blocks, every header's checksum checked, and the archive must end
 * with its zero blocks. A cut or damaged archive is an error, never a shorter list of files.
 *
 * It reads an archive as GNU tar extracts it, so that what the check verified is what a user
 * unpacks: a pax `size` sets the member's size; a member that is neither a file nor a folder (a
 * link, a device, a sparse file, a type tar extracts as a plain file although this reader does not
 * know it) is reported as `other`, for the caller to refuse; a folder or link entry stating data is
 * an error (tar reads no data after it, so the two would disagree on where the next member starts).
 */

const BLOCK = 512;

export type TarEvent =
	| { type: 'file'; name: string; size: number }
	| { type: 'data'; name: string; data: Uint8Array }
	| { type: 'fileEnd'; name: string }
	| { type: 'folder'; name: string }
	/** A member that is neither a file nor a folder; `kind` says what, in words. */
	| { type: 'other'; name: string; kind: string };

export class TarError extends Error {}

/** Member metadata larger than this is not a name: the archive is not what it claims. */
const MAX_META_SIZE = 64 * 1024;

type Kind = 'file' | 'skip' | 'longName' | 'pax' | 'globalPax';

/** Entries that carry no data of their own in GNU tar, whatever their size field says. */
const NO_DATA: Record<string, string> = { '1': 'a hard link', '5': 'a folder' };
/** Entries whose data GNU tar skips (or reads as metadata) without extracting a file of it. */
const METADATA = new Set(['x', 'g', 'L', 'K']);
/** Members tar unpacks as something other than a file or a folder, in words. */
const OTHER_KINDS: Record<string, string> = {
	'1': 'a hard link',
	'2': 'a symbolic link',
	'3': 'a character device',
	'4': 'a block device',
	'6': 'a FIFO',
	S: 'a sparse file',
};

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
	let nextSize: number | undefined;

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
					else if (current.kind === 'pax') {
						const records = paxRecords(concat(current.meta));
						nextName = records.get('path') ?? nextName;
						if (records.has('size')) nextSize = paxSize(records.get('size')!);
					} else if (current.kind === 'globalPax') {
						// Its records would rename or resize every later member, which this reader does not do.
						const records = paxRecords(concat(current.meta));
						if (records.has('path') || records.has('size'))
							throw new TarError('a global pax header that names or sizes every member');
					}
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
			const metadata = METADATA.has(entry.type);
			// A pax header's path and size are the next real entry's, whatever its type (GNU tar).
			const name = metadata ? entry.name : (nextName ?? entry.name);
			const size = metadata ? entry.size : (nextSize ?? entry.size);
			if (!metadata) nextName = nextSize = undefined;
			let kind: Kind;
			if (entry.type === '0' || entry.type === '\0' || entry.type === '7') kind = 'file';
			else if (entry.type === 'L') kind = 'longName';
			else if (entry.type === 'x') kind = 'pax';
			else if (entry.type === 'g') kind = 'globalPax';
			else kind = 'skip';
			if (metadata && size > MAX_META_SIZE) {
				throw new TarError(`an oversized tar extension header (${size} bytes)`);
			}
			if (NO_DATA[entry.type] && size > 0) {
				throw new TarError(
					`${NO_DATA[entry.type]} "${shortName(name)}" states ${size} bytes of data, which tar does not read`,
				);
			}
			if (entry.type === '5') yield { type: 'folder', name };
			else if (kind === 'skip' && !metadata) {
				yield {
					type: 'other',
					name,
					kind:
						OTHER_KINDS[entry.type] ??
						`an entry of unknown type '${entry.type}', which tar extracts as a file`,
				};
			}
			current = {
				name,
				kind,
				remaining: size,
				padding: (BLOCK - (size % BLOCK)) % BLOCK,
				meta: [],
			};
			if (kind === 'file') {
				yield { type: 'file', name, size };
				if (size === 0) yield { type: 'fileEnd', name };
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

/**
 * The records of a pax extended header: "<length> <key>=<value>\n", each `length` bytes long,
 * its own digits and newline included (a value may hold newlines). A later record of a key wins.
 */
function paxRecords(bytes: Uint8Array): Map<string, string> {
	const records = new Map<string, string>();
	for (let at = 0; at < bytes.length; ) {
		const space = bytes.indexOf(0x20, at);
		const digits = space > at ? text(bytes.subarray(at, space)) : '';
		const length = /^[0-9]{1,6}$/.test(digits) ? Number(digits) : 0;
		const end = at + length;
		if (length <= space - at + 1 || end > bytes.length || bytes[end - 1] !== 0x0a)
			throw new TarError('a pax extended header is malformed (the archive is damaged)');
		const record = text(bytes.subarray(space + 1, end - 1));
		const equals = record.indexOf('=');
		if (equals <= 0)
			throw new TarError('a pax extended header is malformed (the archive is damaged)');
		records.set(record.slice(0, equals), record.slice(equals + 1));
		at = end;
	}
	return records;
}

/** A pax `size` record: decimal digits only. */
function paxSize(value: string): number {
	if (!/^[0-9]{1,15}$/.test(value))
		throw new TarError(`a pax extended header states a malformed size (${value.slice(0, 40)})`);
	return Number(value);
}

/** A member's name as a message shows it: at most 200 characters. */
export const shortName = (name: string) => (name.length > 200 ? `${name.slice(0, 200)}...` : name);
