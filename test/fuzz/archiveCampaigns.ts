import { createHash } from 'crypto';
import { constants, gzipSync, inflateRawSync } from 'zlib';

import fc from 'fast-check';

import {
	ArchiveError,
	databaseFileOf,
	gunzip,
	type ArchiveFacts,
} from '../../nodes/AbstractIpDatabase/archiveCheck';
import { checksumLine } from '../sandbox/ipDatabases/archives';
import { TAR_END, tarEntry } from '../sandbox/ipDatabases/tarWriter';
import { deflateStream, gzipMember } from './deflateStreams';

/**
 * Property-based fuzzing of the download's archive check (gunzip, tar walk, checksum, bounds),
 * shared by the seeded run in `npm test` and the long campaign of bench/archiveFuzz.ts:
 *
 * - any archive: members of any name (folders with either separator, dots, several databases or
 *   none), any bytes (empty too), a checksum file that matches or not, zeros after the end, fed
 *   in chunks of any size. The check returns facts exactly when the archive is sound (one
 *   database file, not empty, its checksum matching), else an ArchiveError; with facts, the
 *   bytes it handed on are the database file's and its name has no folder in it.
 * - gunzip alone: any bytes through any gzip zlib writes (every level, strategy and window, one
 *   member or two) come out the same, whatever the chunks.
 * - a damaged archive: a sound one with bytes flipped, cut, inserted or repeated. The check ends
 *   in an ArchiveError, or in the original's facts and bytes (damage gzip itself ignores, such as
 *   its header's time): never another file, never another error, never a hang.
 * - gunzip against zlib's decoder on DEFLATE streams no compressor writes (deflateStreams.ts:
 *   incomplete and over-subscribed codes, repeat codes at the edges, stored blocks of any length,
 *   far and invalid distances...): accepted exactly when zlib accepts them, with zlib's bytes.
 */

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

export interface Outcome {
	facts?: ArchiveFacts;
	error?: unknown;
	/** The bytes the check handed on (the database file's, as they came). */
	handed: Buffer;
}

/** `bytes` as a download delivers them, cut at `cuts`. */
async function* chunked(bytes: Uint8Array, cuts: number[]): AsyncGenerator<Uint8Array> {
	let at = 0;
	for (const cut of [...cuts].sort((a, b) => a - b)) {
		if (cut <= at || cut >= bytes.length) continue;
		yield bytes.subarray(at, cut);
		at = cut;
	}
	yield bytes.subarray(at);
}

/** The check as the node runs it, fed `bytes` cut at `cuts`. */
export async function checkArchive(
	bytes: Uint8Array,
	cuts: number[] = [],
	checkCrc = true,
): Promise<Outcome> {
	const handed: Buffer[] = [];
	const walk = databaseFileOf(gunzip(chunked(bytes, cuts), checkCrc), 'mmdb', {}, bytes.length);
	try {
		for (;;) {
			const step = await walk.next();
			if (step.done) return { facts: step.value, handed: Buffer.concat(handed) };
			handed.push(Buffer.from(step.value));
		}
	} catch (error) {
		return { error, handed: Buffer.concat(handed) };
	}
}

const segment = fc.constantFrom('..', '.', 'a', 'db', 'C:', '', 'svc-ip-geolocation');
const memberName = fc
	.tuple(
		fc.array(fc.tuple(segment, fc.constantFrom('/', '\\')), { maxLength: 3 }),
		fc.constantFrom('svc-ip-geolocation', 'evil', 'x', ''),
		fc.constantFrom('.mmdb', '.MMDB', '.mmdb.sha256', '.csv', '.md', ''),
	)
	.map(([folders, stem, extension]) =>
		`${folders.map(([name, separator]) => name + separator).join('')}${stem}${extension}`.slice(
			0,
			100,
		),
	);

interface Member {
	name: string;
	data: Uint8Array;
}

const database = fc.record({
	name: memberName.filter((name) => name.toLowerCase().endsWith('.mmdb')),
	data: fc.uint8Array({ maxLength: 3000 }),
	checksum: fc.constantFrom('matching', 'other', 'none'),
});

const anyArchive = fc.record({
	databases: fc.array(database, { maxLength: 2 }),
	others: fc.array(fc.record({ name: memberName, data: fc.uint8Array({ maxLength: 600 }) }), {
		maxLength: 2,
	}),
	trailer: fc.nat(2048),
	cuts: fc.array(fc.nat(4000), { maxLength: 6 }),
});

function tarOf(members: Member[], trailer = 0): Buffer {
	return Buffer.concat([
		...members.map((member) => tarEntry(member.name, Buffer.from(member.data), 0)),
		TAR_END,
		Buffer.alloc(trailer),
	]);
}

const baseName = (name: string) => name.replace(/^.*[/\\]/, '');

const anyArchiveProperty = fc.asyncProperty(anyArchive, async (input) => {
	const members: Member[] = [...input.others];
	for (const db of input.databases) {
		members.push(db);
		const stated = db.checksum === 'matching' ? sha256(db.data) : 'ab'.repeat(32);
		if (db.checksum !== 'none')
			members.push({ name: `${db.name}.sha256`, data: checksumLine(stated, baseName(db.name)) });
	}
	const outcome = await checkArchive(gzipSync(tarOf(members, input.trailer)), input.cuts);
	const databases = members.filter((member) => member.name.toLowerCase().endsWith('.mmdb'));
	const only = databases.length === 1 ? databases[0] : undefined;
	const checksums = members.filter((member) => member.name === `${only?.name}.sha256`);
	// The tar walk keeps the last of two checksum files of one name.
	const stated = /^\s*([0-9a-f]{64})/.exec(
		Buffer.from(checksums.at(-1)?.data ?? []).toString(),
	)?.[1];
	const sound = only !== undefined && only.data.length > 0 && stated === sha256(only.data);
	if (!sound) {
		if (!(outcome.error instanceof ArchiveError))
			throw new Error(`accepted or failed oddly: ${String(outcome.error ?? 'facts')}`);
		return;
	}
	if (outcome.error) throw new Error(`a sound archive refused: ${String(outcome.error)}`);
	if (!outcome.handed.equals(Buffer.from(only.data))) throw new Error('other bytes handed on');
	if (outcome.facts?.sha256 !== sha256(only.data)) throw new Error('other checksum');
	if (
		outcome.facts.databaseFileName !== baseName(only.name) ||
		/[/\\]/.test(outcome.facts.databaseFileName)
	)
		throw new Error(`name ${outcome.facts.databaseFileName}`);
});

const damage = fc.oneof(
	fc.record({
		kind: fc.constant('flip' as const),
		at: fc.nat(),
		xor: fc.integer({ min: 1, max: 255 }),
	}),
	fc.record({ kind: fc.constant('cut' as const), at: fc.nat() }),
	fc.record({
		kind: fc.constant('insert' as const),
		at: fc.nat(),
		bytes: fc.uint8Array({ minLength: 1, maxLength: 16 }),
	}),
	fc.record({
		kind: fc.constant('repeat' as const),
		at: fc.nat(),
		length: fc.integer({ min: 1, max: 64 }),
	}),
);

type Damage = typeof damage extends fc.Arbitrary<infer T> ? T : never;

function damaged(bytes: Buffer, change: Damage): Buffer {
	const at = change.at % Math.max(1, bytes.length);
	switch (change.kind) {
		case 'flip': {
			const copy = Buffer.from(bytes);
			copy[at] ^= change.xor;
			return copy;
		}
		case 'cut':
			return bytes.subarray(0, at);
		case 'insert':
			return Buffer.concat([bytes.subarray(0, at), Buffer.from(change.bytes), bytes.subarray(at)]);
		case 'repeat':
			return Buffer.concat([bytes.subarray(0, at + change.length), bytes.subarray(at)]);
	}
}

const damagedArchiveProperty = fc.asyncProperty(
	fc.uint8Array({ minLength: 1, maxLength: 20_000 }),
	fc.array(damage, { minLength: 1, maxLength: 3 }),
	fc.array(fc.nat(30_000), { maxLength: 6 }),
	// Without the gzip CRC-32, as the Database File output reads: the SHA-256 alone guards it.
	fc.boolean(),
	async (data, changes, cuts, checkCrc) => {
		const name = 'svc-ip-geolocation.mmdb';
		const sound = gzipSync(
			tarOf([
				{ name: 'README.md', data: Buffer.from('# build 1\n') },
				{ name, data },
				{ name: `${name}.sha256`, data: checksumLine(sha256(data), name) },
			]),
		);
		const bytes = changes.reduce<Buffer>((archive, change) => damaged(archive, change), sound);
		const outcome = await checkArchive(bytes, cuts, checkCrc);
		if (outcome.error !== undefined) {
			if (!(outcome.error instanceof ArchiveError))
				throw new Error(`not an ArchiveError: ${String(outcome.error)}`);
			return;
		}
		if (outcome.facts?.sha256 !== sha256(data) || !outcome.handed.equals(Buffer.from(data)))
			throw new Error('a damaged archive gave another file');
	},
);

/** Bytes of any kind: random (stored blocks), text with repeats, runs; up to 3 MiB (past the window's slides). */
const content = fc.oneof(
	fc.uint8Array({ maxLength: 70_000 }),
	fc
		.record({
			words: fc.array(fc.string({ minLength: 1, maxLength: 12 }), { minLength: 1, maxLength: 40 }),
			seed: fc.nat(),
			length: fc.integer({ min: 1, max: 3 * 1024 * 1024 }),
		})
		.map(({ words, seed, length }) => {
			const parts: string[] = [];
			let total = 0;
			for (let at = seed; total < length; at = (at * 1103515245 + 12345) >>> 0) {
				const word = words[at % words.length];
				parts.push(word, at % 7 === 0 ? '\n' : ',');
				total += word.length + 1;
			}
			return Buffer.from(parts.join('')).subarray(0, length);
		}),
	fc
		.record({ byte: fc.nat(255), length: fc.nat(2_000_000) })
		.map(({ byte, length }) => Buffer.alloc(length, byte)),
);

const gzipOptions = fc.record({
	level: fc.integer({ min: 0, max: 9 }),
	memLevel: fc.integer({ min: 1, max: 9 }),
	windowBits: fc.integer({ min: 9, max: 15 }),
	strategy: fc.constantFrom(
		constants.Z_DEFAULT_STRATEGY,
		constants.Z_FILTERED,
		constants.Z_HUFFMAN_ONLY,
		constants.Z_RLE,
		constants.Z_FIXED,
	),
});

/** gunzip alone against zlib's: the same bytes out of any gzip zlib writes, in one member or two, in any chunks. */
const gunzipProperty = fc.asyncProperty(
	content,
	gzipOptions,
	fc.boolean(),
	fc.array(fc.nat(4_000_000), { maxLength: 8 }),
	async (data, options, twoMembers, cuts) => {
		const half = twoMembers ? Math.floor(data.length / 2) : data.length;
		const bytes = Buffer.concat([
			gzipSync(data.subarray(0, half), options),
			...(twoMembers ? [gzipSync(data.subarray(half), options)] : []),
		]);
		const out: Buffer[] = [];
		for await (const view of gunzip(chunked(bytes, cuts))) out.push(Buffer.from(view));
		if (!Buffer.concat(out).equals(Buffer.from(data)))
			throw new Error(`other bytes out (${Buffer.concat(out).length} of ${data.length})`);
	},
);

/**
 * gunzip against zlib's decoder on a stream deflateStreams.ts writes, in any chunks, with and
 * without the CRC-32: zlib's bytes where zlib accepts it, an ArchiveError where zlib refuses it.
 * A refused stream's trailer states the bytes its symbols stand for, so that a decoder that
 * accepts it anyway shows (its output matches the trailer).
 */
const deflateStreamsProperty = fc.asyncProperty(
	fc.nat(),
	fc.array(fc.nat(100_000), { maxLength: 4 }),
	fc.boolean(),
	async (seed, cuts, checkCrc) => {
		const { raw, intended } = deflateStream(seed);
		let expected: Buffer | undefined;
		let stream = raw;
		try {
			// zlib stops at the last block: the bytes after it are not the stream's.
			const inflated = inflateRawSync(raw, { info: true }) as unknown as {
				buffer: Buffer;
				engine: { bytesWritten: number };
			};
			expected = inflated.buffer;
			stream = raw.subarray(0, inflated.engine.bytesWritten);
		} catch {
			expected = undefined;
		}
		const bytes = gzipMember(stream, expected ?? intended ?? Buffer.alloc(0));
		const out: Buffer[] = [];
		let error: unknown;
		try {
			for await (const view of gunzip(chunked(bytes, cuts), checkCrc)) out.push(Buffer.from(view));
		} catch (failure) {
			error = failure;
		}
		if (expected) {
			if (error !== undefined) throw new Error(`a stream zlib accepts refused: ${String(error)}`);
			if (!Buffer.concat(out).equals(expected)) throw new Error("other bytes than zlib's");
		} else if (!(error instanceof ArchiveError)) {
			throw new Error(
				error === undefined
					? `a stream zlib refuses accepted (${Buffer.concat(out).length} bytes out)`
					: `not an ArchiveError: ${String(error)}`,
			);
		}
	},
);

export const PROPERTY_NAMES = ['anyArchive', 'damagedArchive', 'gunzip', 'deflateStreams'] as const;

/** One property's run with fast-check's parameters: inputs tried, and a failure's report (its counterexample, shrunk). */
export async function checkProperty(
	name: (typeof PROPERTY_NAMES)[number],
	parameters: { seed: number; numRuns: number },
): Promise<{ numRuns: number; failure?: string }> {
	const details =
		name === 'anyArchive'
			? await fc.check(anyArchiveProperty, parameters)
			: name === 'damagedArchive'
				? await fc.check(damagedArchiveProperty, parameters)
				: name === 'gunzip'
					? await fc.check(gunzipProperty, parameters)
					: await fc.check(deflateStreamsProperty, parameters);
	return {
		numRuns: details.numRuns,
		failure: details.failed
			? `seed ${details.seed}, path ${details.counterexamplePath}: ${String(details.errorInstance)}; input ${fc.stringify(details.counterexample)}`
			: undefined,
	};
}
