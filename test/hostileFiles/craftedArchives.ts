import { createHash } from 'crypto';
import { crc32, createGzip, gunzipSync, gzipSync } from 'zlib';

import type { DatabaseArchive } from '../sandbox/ipDatabases/archives';
import { archiveFileName, buildEpoch, checksumLine } from '../sandbox/ipDatabases/archives';
import type { DatabaseId, FormatId } from '../sandbox/ipDatabases/records';
import { TAR_END, tarEntry, tarHeader, tarPadding } from '../sandbox/ipDatabases/tarWriter';
import { gzipMember, literalsWithIncompleteCode } from '../fuzz/deflateStreams';

/**
 * Archives no service builds, for the tests of what the download's check refuses: members of any
 * name and content, and gzip bombs (a small archive that unpacks to a gibibyte). Served in place
 * of a build with the sandbox's `serve`.
 */
export interface Member {
	name: string;
	data: Buffer;
}

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** A database file and its `.sha256` (a matching one), under `name`. */
export const databaseMembers = (name: string, data: Buffer): Member[] => [
	{ name, data },
	{ name: `${name}.sha256`, data: checksumLine(sha256(data), name.replace(/^.*[/\\]/, '')) },
];

export function craftedArchive(
	members: Member[],
	database: DatabaseId = 'ip-geolocation',
	format: FormatId = 'mmdb',
	trailer: Buffer = Buffer.alloc(0),
): DatabaseArchive {
	const mtime = buildEpoch(1);
	const tar = Buffer.concat([
		...members.map((member) => tarEntry(member.name, member.data, mtime)),
		TAR_END,
		trailer,
	]);
	const database0 = members.find((member) => member.name.endsWith(`.${format}`));
	return {
		database,
		format,
		build: 1,
		fileName: archiveFileName(database, format),
		databaseFileName: database0?.name ?? '',
		databaseFileSize: database0?.data.length ?? 0,
		sha256: database0 ? sha256(database0.data) : '',
		bytes: gzipSync(tar, { level: 9 }),
	};
}

/** A tar header of any type (`typeflag`), with a link target for links. */
export function typedHeader(name: string, size: number, type: string, linkTarget = ''): Buffer {
	const header = tarHeader(name, size, buildEpoch(1));
	header[156] = type.charCodeAt(0);
	header.write(linkTarget, 157, 100, 'utf8');
	header.write('        ', 148, 'ascii');
	let sum = 0;
	for (const byte of header) sum += byte;
	header.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'ascii');
	return header;
}

/** A pax extended header (type x) with its records, each "<length> <key>=<value>\n". */
export function paxHeader(records: Record<string, string>): Buffer {
	const text = Object.entries(records)
		.map(([key, value]) => {
			const body = ` ${key}=${value}\n`;
			let length = Buffer.byteLength(body) + 1;
			while (Buffer.byteLength(`${length}${body}`) !== length) length++;
			return `${length}${body}`;
		})
		.join('');
	const data = Buffer.from(text);
	return Buffer.concat([
		typedHeader('PaxHeaders/member', data.length, 'x'),
		data,
		tarPadding(data.length),
	]);
}

/** An archive of these tar bytes as they are (the end blocks the caller's), for the database given. */
export function archiveOfTar(tar: Buffer): DatabaseArchive {
	return { ...craftedArchive([]), bytes: gzipSync(tar, { level: 9 }) };
}

/** The tar inside a crafted archive (gunzipped with zlib). */
const tarOf = (archive: DatabaseArchive) => gunzipSync(archive.bytes);

/**
 * The same archive with a gzip header CRC (FHCRC), matching or not. zlib, gzip and tar refuse a
 * header whose CRC does not match.
 */
export function withHeaderCrc(archive: DatabaseArchive, matching: boolean): DatabaseArchive {
	const header = Buffer.from(archive.bytes.subarray(0, 10));
	header[3] |= 2;
	const crc = Buffer.alloc(2);
	crc.writeUInt16LE((crc32(header) & 0xffff) ^ (matching ? 0 : 1));
	return { ...archive, bytes: Buffer.concat([header, crc, archive.bytes.subarray(10)]) };
}

/**
 * The same archive's tar in one DEFLATE block whose literal code leaves one code unused (an
 * incomplete code set): its symbols decode, but zlib, gzip and tar refuse the stream.
 */
export function withIncompleteCode(archive: DatabaseArchive): DatabaseArchive {
	const tar = tarOf(archive);
	return { ...archive, bytes: gzipMember(literalsWithIncompleteCode(tar), tar) };
}

export const GIB = 1024 * 1024 * 1024;

/**
 * A gzip bomb of about 1 MB: `where` says what unpacks to `bytes` zeros: the database file
 * itself (its tar header states the size, its `.sha256` matches), or zeros after the archive's
 * end blocks (which tar writers pad with), behind a valid small database.
 */
export async function gzipBomb(
	where: 'databaseFile' | 'afterTheEnd',
	bytes = GIB,
): Promise<DatabaseArchive> {
	const name = 'svc-ip-geolocation.mmdb';
	const mtime = buildEpoch(1);
	const gzip = createGzip({ level: 9 });
	const compressed: Buffer[] = [];
	gzip.on('data', (chunk: Buffer) => compressed.push(chunk));
	const done = new Promise<void>((resolve, reject) => {
		gzip.on('end', resolve);
		gzip.on('error', reject);
	});
	const write = async (chunk: Buffer) => {
		if (!gzip.write(chunk)) await new Promise((resolve) => gzip.once('drain', resolve));
	};
	const zeros = Buffer.alloc(1024 * 1024);
	const writeZeros = async () => {
		for (let left = bytes; left > 0; left -= zeros.length)
			await write(left >= zeros.length ? zeros : zeros.subarray(0, left));
	};
	const small = Buffer.from('not an MMDB, but a database file all the same');
	let hash = '';
	if (where === 'databaseFile') {
		const digest = createHash('sha256');
		for (let left = bytes; left > 0; left -= zeros.length)
			digest.update(left >= zeros.length ? zeros : zeros.subarray(0, left));
		hash = digest.digest('hex');
		await write(tarHeader(name, bytes, mtime));
		await writeZeros();
		await write(tarPadding(bytes));
		await write(tarEntry(`${name}.sha256`, checksumLine(hash, name), mtime));
		await write(TAR_END);
	} else {
		hash = sha256(small);
		for (const member of databaseMembers(name, small))
			await write(tarEntry(member.name, member.data, mtime));
		await write(TAR_END);
		await writeZeros();
	}
	gzip.end();
	await done;
	return {
		database: 'ip-geolocation',
		format: 'mmdb',
		build: 1,
		fileName: archiveFileName('ip-geolocation', 'mmdb'),
		databaseFileName: name,
		databaseFileSize: where === 'databaseFile' ? bytes : small.length,
		sha256: hash,
		bytes: Buffer.concat(compressed),
	};
}
