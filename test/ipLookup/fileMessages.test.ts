import { gunzipSync } from 'zlib';

import { parseDatabase } from '../../dist/nodes/shared/ipDatabases/databaseSource';
import { DatabaseFileError } from '../../dist/nodes/shared/ipDatabases/lookupTypes';
import { buildArchive, databaseFileOf } from '../sandbox/ipDatabases/archives';

/**
 * The reader layer's messages for a file it cannot use: a file cut short says that it
 * ends early, with its size, and asks whether the download was cut; a file that is no database
 * says what it looks like. Files reach parseDatabase in chunks, as n8n's binary stream gives them.
 */

const chunksOf = (bytes: Uint8Array, size = 64 * 1024) =>
	async function* () {
		for (let at = 0; at < bytes.length; at += size) yield bytes.subarray(at, at + size);
	};

async function messageOf(
	bytes: Uint8Array,
	options: { size?: number; chunk?: number } = {},
): Promise<string> {
	try {
		await parseDatabase(chunksOf(bytes, options.chunk), options.size);
	} catch (error) {
		expect(error).toBeInstanceOf(DatabaseFileError);
		return (error as Error).message;
	}
	throw new Error('The file was read as a database');
}

const thousands = (value: number) => value.toLocaleString('en-US');

describe('a file cut short says it ends early', () => {
	const mmdb = databaseFileOf('ip-geolocation', 'mmdb', 1);

	test.each([
		['half of it', Math.floor(mmdb.length / 2)],
		[
			'its tree and data, the marker and metadata gone',
			mmdb.lastIndexOf(Buffer.from('abcdef4d61784d696e642e636f6d', 'hex')) - 3,
		],
		['its first 100 bytes', 100],
	])(
		'an MMDB cut to %s: ends early, its size, the missing marker, was the download cut short',
		async (_, length) => {
			for (const chunk of [1024, 64 * 1024]) {
				expect(await messageOf(mmdb.subarray(0, length), { chunk })).toBe(
					`The MMDB file ends early: ${thousands(length)} bytes, and its metadata marker is missing (an MMDB ends with it, "\\xAB\\xCD\\xEFMaxMind.com" and the metadata, in its last 128 KiB): ` +
						'was the download cut short? (If it is no MMDB: it is no database CSV either, whose first line starts with the column "network".)',
				);
			}
		},
	);

	test('an MMDB cut inside its metadata: ends early, inside its metadata', async () => {
		const marker = mmdb.lastIndexOf(Buffer.from('abcdef4d61784d696e642e636f6d', 'hex'));
		const cuts = new Set<string>();
		for (let length = marker + 14; length < mmdb.length; length++) {
			let message: string;
			try {
				await parseDatabase(chunksOf(mmdb.subarray(0, length)));
				continue; // a cut between two metadata entries may leave a complete, smaller map
			} catch (error) {
				message = (error as Error).message;
			}
			if (/past the end of the metadata/.test(message)) {
				expect(message).toMatch(
					new RegExp(
						`^The MMDB file ends early: ${thousands(length)} bytes, inside its metadata \\(MMDB file: .*\\): was the download cut short\\?$`,
					),
				);
			}
			cuts.add(message.replace(/\d[\d,]*/g, 'N'));
		}
		expect(
			[...cuts].some((message) =>
				message.startsWith('The MMDB file ends early: N bytes, inside its metadata'),
			),
		).toBe(true);
	});

	test('fewer bytes than n8n stored for the file: ends early, how many of how many', async () => {
		expect(await messageOf(mmdb.subarray(0, 2000), { size: mmdb.length })).toBe(
			`The database file ends early: 2,000 of the ${thousands(mmdb.length)} bytes n8n stored for it arrived: was the file cut short?`,
		);
	});

	const csv = databaseFileOf('ip-asn', 'csv', 1);
	const text = csv.toString('utf8');

	test('a CSV whose last row is cut: ends early, its size, the line and how many fields it kept', async () => {
		const lineStart = text.indexOf('\n8.8.8.0/24') + 1;
		const cut = Buffer.from(text.slice(0, lineStart + '8.8.8.0/24,15169'.length));
		for (const chunk of [7, 1024]) {
			expect(await messageOf(cut, { chunk })).toBe(
				`The ip-asn CSV file ends early: ${thousands(cut.length)} bytes, and its last row (line 3) has 2 of the header's 4 fields: was the download cut short?`,
			);
		}
	});

	test('a CSV cut inside a quoted field, and one cut inside its last network', async () => {
		const quoted = Buffer.from(text.slice(0, text.indexOf('"Level 3') + 5));
		expect(await messageOf(quoted)).toMatch(
			new RegExp(
				`^The CSV file ends early: ${quoted.length} bytes, inside a quoted field \\(A quoted field opened on line 2 is never closed\\): was the download cut short\\?$`,
			),
		);
		const network = Buffer.from(text.slice(0, text.indexOf('\n8.8.8.0/24') + 6));
		expect(await messageOf(network)).toBe(
			`The ip-asn CSV file ends early: ${network.length} bytes, and its last row (line 3) has 1 of the header's 4 fields: was the download cut short?`,
		);
	});

	test('a whole CSV whose last row has no line end is read: only a row that does not fit the header is called cut', async () => {
		const whole = await parseDatabase(chunksOf(Buffer.from(text.replace(/\r?\n$/, ''))));
		expect(whole.kind).toBe('ip-asn');
		// A row in the middle with too few fields is malformed, not cut: the old message stays.
		const broken = Buffer.from(text.replace('8.8.8.0/24,15169,Google LLC,US', '8.8.8.0/24,15169'));
		expect(await messageOf(broken)).toBe("The ip-asn CSV's line 3 has 2 fields, the header has 4");
	});
});

describe('a file that is no database says what it looks like', () => {
	const archive = buildArchive('ip-asn', 'mmdb', 1).bytes;
	const neither = 'The file is neither an MMDB database nor a database CSV: ';

	test.each([
		[
			"the download's .tar.gz",
			() => archive,
			/^The file is neither an MMDB database nor a database CSV: it is a gzip archive \([\d,]+ bytes\): unpack it first, or set the IP Database Download node's Output to "Database File"/,
		],
		[
			'the tar inside it',
			() => gunzipSync(archive),
			/it is a tar archive \([\d,]+ bytes\): unpack it first/,
		],
		[
			'a ZIP archive',
			() => Buffer.concat([Buffer.from('PK\x03\x04\x14\x00\x00\x00', 'latin1'), Buffer.alloc(200)]),
			/it is a ZIP archive \(208 bytes\): unzip it and give the lookup the \.mmdb or \.csv inside$/,
		],
		[
			'an HTML page',
			() =>
				Buffer.from(
					'\n  <!DOCTYPE html>\n<html><head><title>Sign in</title></head><body>token=abc</body></html>',
				),
			/it is an HTML page \(\d+ bytes\): a web page \(a sign-in or error page\?\) was saved instead of the database file$/,
		],
		[
			'an XML document',
			() => Buffer.from('<?xml version="1.0"?><Error><Code>AccessDenied</Code></Error>'),
			/it is an XML document \(\d+ bytes\)$/,
		],
		[
			'JSON',
			() => Buffer.from('{"url":"https://storage.example/db?signature=secret","expires":"x"}'),
			/it is JSON \(\d+ bytes\): an API's answer was saved instead of the database file/,
		],
		[
			'plain text',
			() => Buffer.from('This is not a database.\nNor is this line.\n'),
			/it is plain text \(\d+ bytes\) whose first line has no "network" column first \(a database CSV starts with it\)$/,
		],
		[
			'a CSV of another layout',
			() => Buffer.from('ip_range_start,ip_range_end,country\r\n1.0.0.0,1.0.0.255,AU\r\n'),
			/it is a CSV whose first column is "ip_range_start", not "network": a database CSV starts with the network column$/,
		],
		['white space', () => Buffer.from(' \r\n\t\n'), /it holds only white space \(5 bytes\)$/],
	])('%s', async (_, make, expected) => {
		const message = await messageOf(make());
		expect(message.startsWith(neither)).toBe(true);
		expect(message).toMatch(expected);
		// Nothing of the content is quoted: a saved answer or page may hold a signed link or a key.
		expect(message).not.toMatch(/secret|token=|signature|Sign in/);
	});

	test('an empty file', async () => {
		expect(await messageOf(new Uint8Array(0))).toBe(
			'The database file is empty (0 bytes): it is neither an MMDB nor a CSV database, was the download or the file read cut short?',
		);
	});
});
