import { createHash } from 'crypto';
import { gzipSync } from 'zlib';

import fc from 'fast-check';

import {
	ArchiveError,
	databaseFileOf,
	gunzip,
	type ArchiveFacts,
} from '../../nodes/AbstractIpDatabase/archiveCheck';
import { checksumLine } from '../sandbox/ipDatabases/archives';
import { TAR_END, tarEntry } from '../sandbox/ipDatabases/tarWriter';

/**
 * Property-based fuzzing of the download's archive check (gunzip, tar walk, checksum, bounds),
 * shared by the seeded run in `npm test` and the long campaign of bench/archiveFuzz.ts:
 *
 * - any archive: members of any name (folders with either separator, dots, several databases or
 *   none), any bytes (empty too), a checksum file that matches or not, zeros after the end, fed
 *   in chunks of any size. The check returns facts exactly when the archive is sound (one
 *   database file, not empty, its checksum matching), else an ArchiveError; with facts, the
 *   bytes it handed on are the database file's and its name has no folder in it.
 * - a damaged archive: a sound one with bytes flipped, cut, inserted or repeated. The check ends
 *   in an ArchiveError, or in the original's facts and bytes (damage gzip itself ignores, such as
 *   its header's time): never another file, never another error, never a hang.
 */

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

export interface Outcome {
	facts?: ArchiveFacts;
	error?: unknown;
	/** The bytes the check handed on (the database file's, as they came). */
	handed: Buffer;
}

/** The check as the node runs it, fed `bytes` cut at `cuts`. */
export async function checkArchive(bytes: Uint8Array, cuts: number[] = []): Promise<Outcome> {
	const chunks = async function* () {
		let at = 0;
		for (const cut of [...cuts].sort((a, b) => a - b)) {
			if (cut <= at || cut >= bytes.length) continue;
			yield bytes.subarray(at, cut);
			at = cut;
		}
		yield bytes.subarray(at);
	};
	const handed: Buffer[] = [];
	const walk = databaseFileOf(gunzip(chunks(), bytes.length), 'mmdb', {}, bytes.length);
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
	async (data, changes, cuts) => {
		const name = 'svc-ip-geolocation.mmdb';
		const sound = gzipSync(
			tarOf([
				{ name: 'README.md', data: Buffer.from('# build 1\n') },
				{ name, data },
				{ name: `${name}.sha256`, data: checksumLine(sha256(data), name) },
			]),
		);
		const bytes = changes.reduce<Buffer>((archive, change) => damaged(archive, change), sound);
		const outcome = await checkArchive(bytes, cuts);
		if (outcome.error !== undefined) {
			if (!(outcome.error instanceof ArchiveError))
				throw new Error(`not an ArchiveError: ${String(outcome.error)}`);
			return;
		}
		if (outcome.facts?.sha256 !== sha256(data) || !outcome.handed.equals(Buffer.from(data)))
			throw new Error('a damaged archive gave another file');
	},
);

export const PROPERTY_NAMES = ['anyArchive', 'damagedArchive'] as const;

/** One property's run with fast-check's parameters: inputs tried, and a failure's report (its counterexample, shrunk). */
export async function checkProperty(
	name: (typeof PROPERTY_NAMES)[number],
	parameters: { seed: number; numRuns: number },
): Promise<{ numRuns: number; failure?: string }> {
	const details =
		name === 'anyArchive'
			? await fc.check(anyArchiveProperty, parameters)
			: await fc.check(damagedArchiveProperty, parameters);
	return {
		numRuns: details.numRuns,
		failure: details.failed
			? `seed ${details.seed}, path ${details.counterexamplePath}: ${String(details.errorInstance)}; input ${fc.stringify(details.counterexample)}`
			: undefined,
	};
}
