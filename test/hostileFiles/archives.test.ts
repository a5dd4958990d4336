import { execFile } from 'child_process';
import path from 'path';
import { promisify } from 'util';

import {
	craftedArchive,
	databaseMembers,
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
