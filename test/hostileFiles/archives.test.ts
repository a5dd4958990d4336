import { execFile } from 'child_process';
import path from 'path';
import { promisify } from 'util';

import { createHash } from 'crypto';

import { checksumLine } from '../sandbox/ipDatabases/archives';
import { TAR_END, tarEntry } from '../sandbox/ipDatabases/tarWriter';
import {
	archiveOfTar,
	craftedArchive,
	databaseMembers,
	paxHeader,
	typedHeader,
	withHeaderCrc,
	withIncompleteCode,
} from './craftedArchives';
import { downloadSandbox, visibleText } from '../nodes/ipDatabaseHelpers';

/**
 * Archives no service builds, served in place of the build: what the download's check tidies
 * (a member's folders, whichever separator) and what it refuses before n8n holds the bytes (an
 * empty database file, a gzip bomb). The bombs run in a child process with a 256 MiB heap.
 */
const { sandbox, db, download } = downloadSandbox();

const README = { name: 'README.md', data: Buffer.from('# crafted\n') };
const MMDB = Buffer.from('bytes that stand for an MMDB file');

describe('IP database download: hostile archives', () => {
	it.each([
		['backslash', '..\\..\\evil.mmdb'],
		['slash', '../../evil.mmdb'],
		['both', 'a/..\\..\\evil.mmdb'],
	])(
		'a database file named with folders (%s) comes out under its base name',
		async (_separator, name) => {
			db().serve(craftedArchive([README, ...databaseMembers(name, MMDB)]));
			const file = await download('databaseFile');
			expect(file.error).toBeUndefined();
			expect(file.items[0].binary?.data.fileName).toBe('evil.mmdb');
			expect(file.items[0].json.sha256).toBeDefined();
			const archive = await download('archive');
			expect(archive.error).toBeUndefined();
			expect(archive.items[0].json.databaseFileName).toBe('evil.mmdb');
		},
	);

	it.each(['archive', 'databaseFile'])(
		'an empty database file is refused though its checksum matches (%s output)',
		async (output) => {
			db().serve(
				craftedArchive([README, ...databaseMembers('svc-ip-geolocation.mmdb', Buffer.alloc(0))]),
			);
			const { items, error } = await download(output);
			expect(items).toEqual([]);
			expect(error?.message).toBe(
				'The downloaded svc-ip-geolocation.tar.gz is broken: its database file svc-ip-geolocation.mmdb is empty',
			);
			expect(error?.description).toMatch(/Nothing was output/);
		},
	);

	// An archive the check lets through must unpack where the user unpacks it (gzip, tar, zlib).
	const sound = () => craftedArchive([README, ...databaseMembers('svc-ip-geolocation.mmdb', MMDB)]);

	it.each(['archive', 'databaseFile'])(
		'gzip that zlib refuses is refused (%s output): a header CRC that does not match',
		async (output) => {
			db().serve(withHeaderCrc(sound(), false));
			const { items, error } = await download(output);
			expect(items).toEqual([]);
			expect(error?.message).toBe(
				'The downloaded svc-ip-geolocation.tar.gz is broken: its gzip data is broken, or it is not a gzip file (header crc mismatch)',
			);
		},
	);

	it('a gzip header CRC that matches is read', async () => {
		db().serve(withHeaderCrc(sound(), true));
		const { items, error } = await download('archive');
		expect(error).toBeUndefined();
		expect(items[0].json.databaseFileName).toBe('svc-ip-geolocation.mmdb');
	});

	it.each(['archive', 'databaseFile'])(
		'gzip that zlib refuses is refused (%s output): an incomplete DEFLATE code set',
		async (output) => {
			db().serve(withIncompleteCode(sound()));
			const { items, error } = await download(output);
			expect(items).toEqual([]);
			expect(error?.message).toBe(
				'The downloaded svc-ip-geolocation.tar.gz is broken: its gzip data is broken, or it is not a gzip file (invalid literal/lengths set)',
			);
		},
	);

	it('zeros after the end of the archive beyond the bound are refused, not walked to the end', async () => {
		const small = databaseMembers('svc-ip-geolocation.mmdb', MMDB);
		db().serve(
			craftedArchive([README, ...small], 'ip-geolocation', 'mmdb', Buffer.alloc(80 * 1024 * 1024)),
		);
		const { items, error } = await download('databaseFile');
		expect(items).toEqual([]);
		expect(error?.message).toMatch(
			/^The downloaded svc-ip-geolocation\.tar\.gz is broken: it unpacks to 64\.\d MiB, more than 64 times the 0\.\d MiB of archive received so far \(at most 64\.0 MiB\): no database compresses that well/,
		);
		expectNoSecret(visibleText(items, error));
	});
});

/**
 * What the check verifies must be what tar unpacks: each of these archives passed the check with
 * the first file's SHA-256 while GNU tar 1.34 (`tar -xzf`, exit 0) unpacked another file in its
 * place, or a link to any path.
 */
describe('IP database download: archives read as tar unpacks them', () => {
	const NAME = 'svc-ip-geolocation.mmdb';
	const verified = Buffer.alloc(512, 'A');
	const other = Buffer.alloc(512, 'E');
	const entries = (name: string, data: Buffer) =>
		databaseMembers(name, data).map((member) => tarEntry(member.name, member.data, 0));
	const broken = (reason: string) =>
		`The downloaded svc-ip-geolocation.tar.gz is broken: ${reason}`;
	/** A sound archive whose database file and its .sha256 are named by pax headers (any name). */
	const paxNamed = (name: string) =>
		archiveOfTar(
			Buffer.concat([
				...databaseMembers(name, verified).flatMap((member) => [
					paxHeader({ path: member.name }),
					tarEntry('placeholder', member.data, 0),
				]),
				TAR_END,
			]),
		);

	it.each(['archive', 'databaseFile'])(
		"a pax size is the member's size, as tar reads it (%s output)",
		async (output) => {
			// tar reads the database file through the .sha256 member that the size field alone leaves out.
			const [database, checksum] = entries(NAME, verified);
			db().serve(
				archiveOfTar(
					Buffer.concat([
						paxHeader({ size: String(database.length - 512 + checksum.length) }),
						database,
						checksum,
						TAR_END,
					]),
				),
			);
			const { items, error } = await download(output);
			expect(items).toEqual([]);
			expect(error?.message).toBe(
				broken(`it holds no checksum file ${NAME}.sha256 for its database file`),
			);
		},
	);

	it.each([
		['a symbolic link', typedHeader(NAME, 0, '2', '/etc/hostname')],
		['a hard link', typedHeader(NAME, 0, '1', 'README.md')],
		['a FIFO', typedHeader(NAME, 0, '6')],
		[
			"an entry of unknown type 'Z', which tar extracts as a file",
			Buffer.concat([typedHeader(NAME, 512, 'Z'), other]),
		],
	])('%s after the database file, under its name, is refused', async (kind, entry) => {
		db().serve(archiveOfTar(Buffer.concat([...entries(NAME, verified), entry, TAR_END])));
		const { items, error } = await download('archive');
		expect(items).toEqual([]);
		expect(error?.message).toBe(
			broken(`it holds ${kind} (${NAME}), where a database archive holds files and folders only`),
		);
	});

	it("a folder under the database file's name, after it, is refused", async () => {
		db().serve(
			archiveOfTar(Buffer.concat([...entries(NAME, verified), typedHeader(NAME, 0, '5'), TAR_END])),
		);
		const { items, error } = await download('archive');
		expect(items).toEqual([]);
		expect(error?.message).toBe(
			broken(
				`it holds a folder named like its files (${NAME}), which tar would unpack in place of the file`,
			),
		);
	});

	it('a folder entry stating data (which tar does not skip) is refused', async () => {
		db().serve(
			archiveOfTar(
				Buffer.concat([
					...entries(NAME, verified),
					typedHeader('d', 1024, '5'),
					tarEntry(NAME, other, 0),
					TAR_END,
				]),
			),
		);
		const { items, error } = await download('archive');
		expect(items).toEqual([]);
		expect(error?.message).toBe(
			broken(
				'its tar content is broken: a folder "d" states 1024 bytes of data, which tar does not read',
			),
		);
	});

	it('a database file named in a pax header (a long name) is read, under its base name', async () => {
		db().serve(paxNamed(`${'folder/'.repeat(20)}${NAME}`));
		const { items, error } = await download('databaseFile');
		expect(error).toBeUndefined();
		expect(items[0].binary?.data.fileName).toBe(NAME);
		expect(items[0].json.sha256).toBe(createHash('sha256').update(verified).digest('hex'));
	});

	it.each([
		['over 255 bytes', `${'x'.repeat(300)}.mmdb`],
		['a control character', 'svc\nip.mmdb'],
	])('a database file whose base name is not a file name (%s) is refused', async (_why, name) => {
		db().serve(paxNamed(name));
		const { items, error } = await download('archive');
		expect(items).toEqual([]);
		expect(error?.message).toMatch(/is broken: its database file's name is not a file name/);
	});

	it('a drive before the name (C:evil.mmdb) is dropped with the folders', async () => {
		db().serve(craftedArchive([README, ...databaseMembers('C:evil.mmdb', MMDB)]));
		const { items, error } = await download('databaseFile');
		expect(error).toBeUndefined();
		expect(items[0].binary?.data.fileName).toBe('evil.mmdb');
	});

	it('an archive of many members with long names: the error lists a few, not all', async () => {
		// 300 members named by 60,000-character pax paths: 18 MB of names from a small download.
		const members = Array.from({ length: 300 }, (_, index) =>
			Buffer.concat([
				paxHeader({ path: `${index}`.padEnd(60_000, 'n') }),
				tarEntry('member.md', Buffer.alloc(0), 0),
			]),
		);
		db().serve(archiveOfTar(Buffer.concat([...members, TAR_END])));
		const { items, error } = await download('archive');
		expect(items).toEqual([]);
		expect(error?.message).toMatch(/it holds no \.mmdb database file \(it holds: 0n+\.\.\., /);
		expect(error?.message).toMatch(/ and 280 more\)$/);
		expect(error!.message.length).toBeLessThan(6000);
	});
});

function expectNoSecret(text: string) {
	expect(text).not.toContain(sandbox().keys.api);
	for (const link of db().links()) expect(text).not.toContain(link);
}

/** The bomb's child: the node against a 1 GiB bomb, with the heap n8n Cloud's small plans leave. */
async function bombRun(where: string, output: string, fault?: string) {
	const { stdout } = await promisify(execFile)(
		process.execPath,
		[
			'--max-old-space-size=256',
			'-r',
			path.join(__dirname, '../harness/register.js'),
			path.join(__dirname, 'archiveBombRunner.ts'),
			where,
			output,
			...(fault ? [fault] : []),
		],
		{ maxBuffer: 16 * 1024 * 1024 },
	);
	return JSON.parse(stdout.trim().split('\n').pop()!) as {
		archiveBytes: number;
		maxRssMiB: number;
		items: unknown[];
		error?: { message: string; description: string };
	};
}

describe('IP database download: a gzip bomb within a 256 MiB heap', () => {
	it.each([
		[
			'databaseFile',
			'databaseFile',
			/its database file svc-ip-geolocation\.mmdb states it unpacks to 1024\.0 MiB, more than 64 times the archive's 1\.0 MiB/,
		],
		[
			'databaseFile',
			'archive',
			/its database file svc-ip-geolocation\.mmdb states it unpacks to 1024\.0 MiB, more than 64 times/,
		],
		[
			'afterTheEnd',
			'databaseFile',
			/it unpacks to 64\.\d MiB, more than 64 times the \d\.\d MiB of archive received so far/,
		],
	])(
		'1 GiB of zeros (%s), %s output: the package refuses it, no item',
		async (where, output, message) => {
			const run = await bombRun(where, output);
			expect(run.archiveBytes).toBeLessThan(1.1 * 1024 * 1024);
			expect(run.items).toEqual([]);
			expect(run.error?.message).toMatch(/^The downloaded svc-ip-geolocation\.tar\.gz is broken: /);
			expect(run.error?.message).toMatch(message);
			expect(run.error?.description).toMatch(/Nothing was output/);
		},
		// Before the bound held, the run waited for the socket's 120 s timeout.
		180_000,
	);
});

describe('IP database download: a gzip bomb behind a Content-Length it overstates', () => {
	// The bound is a multiple of the bytes that came, not of the length a host states: a host
	// that announces 100 MB and sends the 1 MB bomb must not raise the bound to 6.4 GB.
	it.each(['databaseFile', 'archive'])(
		'1 GiB of zeros in the database file, %s output: refused at the bound, not handed to n8n',
		async (output) => {
			const run = await bombRun('databaseFile', output, 'overstatedLength');
			expect(run.items).toEqual([]);
			expect(run.error?.message).toMatch(
				/^The downloaded svc-ip-geolocation\.tar\.gz is broken: it unpacks to 64\.\d MiB, more than 64 times the \d\.\d MiB of archive received so far/,
			);
			// n8n-core and the sandbox take about 200 MiB; the bomb's gibibyte must not be added.
			expect(run.maxRssMiB).toBeLessThan(600);
		},
		// Before the bound held, the run waited for the socket's 120 s timeout.
		180_000,
	);
});
