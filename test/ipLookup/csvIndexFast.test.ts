/**
 * The CSV index's fast reading (pure library code): networks parsed from their bytes, and records
 * deduplicated by the row's text as written. Oracles: the careful parsers (parseCidr with
 * parseIpAddress, BigInt masks) and csv-parse with recordFromCsv for every row's record.
 */
import { parse as oracleParse } from 'csv-parse/sync';

import { CsvIndexBuilder, parseCidr } from '../../nodes/shared/ipDatabases/csvIndexBuilder';
import { maskedIpv6Halves, plainIpv4Network } from '../../nodes/shared/ipDatabases/csvNetwork';
import { ByteKeys } from '../../nodes/shared/ipDatabases/byteKeys';
import { recordFromCsv } from '../../nodes/shared/ipDatabases/databaseKinds';
import { random32 } from './mmdbCompare';

const utf8 = (text: string) => new TextEncoder().encode(text);

/** parseCidr's answer for an IPv4 network, in plainIpv4Network's form. */
function carefulV4(text: string): number {
	const network = parseCidr(text);
	if (!network || network.bytes.length !== 4) return -1;
	const value =
		((network.bytes[0] << 24) |
			(network.bytes[1] << 16) |
			(network.bytes[2] << 8) |
			network.bytes[3]) >>>
		0;
	const start = network.prefix === 0 ? 0 : (value & (0xffffffff << (32 - network.prefix))) >>> 0;
	return start * 64 + network.prefix;
}

describe('plainIpv4Network', () => {
	test.each([
		'1.2.3.4/24',
		'0.0.0.0/0',
		'255.255.255.255/32',
		'10.0.0.1/8',
		'1.2.3.4/1',
		'128.0.0.0/1',
		'1.2.3.4/024',
		'1.2.3.4/000',
	])('%s: the careful parse', (text) => {
		const plain = plainIpv4Network(utf8(text), 0, text.length);
		expect(plain).toBeGreaterThanOrEqual(0);
		expect(plain).toBe(carefulV4(text));
	});

	test.each([
		'01.2.3.4/24',
		'1.2.3.4/33',
		'1.2.3.4/0033',
		'256.0.0.0/8',
		'1.2.3.4/',
		'1.2.3/24',
		'1.2.3.4.5/24',
		'1234.1.1.1/8',
		'1.2.3.4',
		'',
		'/24',
		'1.2.3.4/2a',
		'1.2.3.4/-1',
		'1..3.4/24',
		'1.2.3.4 /24',
		'a.b.c.d/8',
	])('%j is not plain (and the careful parse is asked)', (text) => {
		expect(plainIpv4Network(utf8(text), 0, text.length)).toBe(-1);
	});

	test('space around a network goes the careful way and gives the same network', () => {
		const text = ' 1.2.3.4/24 ';
		expect(plainIpv4Network(utf8(text), 0, text.length)).toBe(-1);
		expect(carefulV4(text)).toBe(plainIpv4Network(utf8('1.2.3.0/24'), 0, 10));
	});

	test('20,000 random networks read inside a longer buffer: the careful answer', () => {
		const next = random32(8);
		for (let k = 0; k < 20_000; k++) {
			const text = `${next() & 255}.${next() & 255}.${next() & 255}.${next() & 255}/${next() % 34}`;
			const bytes = utf8(`x,${text},y`);
			expect({ text, plain: plainIpv4Network(bytes, 2, 2 + text.length) }).toEqual({
				text,
				plain: carefulV4(text),
			});
		}
	});
});

describe('maskedIpv6Halves', () => {
	test('every prefix of random addresses: the 128-bit BigInt mask', () => {
		const next = random32(9);
		for (let k = 0; k < 40; k++) {
			const address = Uint8Array.from({ length: 16 }, () => next() & 255);
			const value = BigInt(`0x${Buffer.from(address).toString('hex')}`);
			for (let prefix = 0; prefix <= 128; prefix++) {
				const host = (1n << BigInt(128 - prefix)) - 1n;
				const masked = value & (((1n << 128n) - 1n) ^ host);
				expect(maskedIpv6Halves(address, prefix)).toEqual([
					masked >> 64n,
					masked & ((1n << 64n) - 1n),
				]);
			}
		}
	});
});

describe('CSV index records (deduplicated by the text as written)', () => {
	const columns = ['network', 'asn', 'autonomous_system_organization', 'asn_country'];
	// Values whose written forms collide if a key were built carelessly (commas, quotes, joins).
	const values = [
		'',
		'x',
		'x,y',
		'y',
		'x,',
		',y',
		'Zoë',
		'"q"',
		'a""b',
		'two\nlines',
		' x',
		'x ',
		'日本',
		'\u0000',
		',',
	];

	function randomFile(next: () => number) {
		const rows: Array<{ network: string; fields: string[] }> = [];
		let text = next() < 0.5 ? '\ufeff' : '';
		text += `${columns.join(',')}\r\n`;
		const count = 50 + (next() % 150);
		for (let row = 0; row < count; row++) {
			const fields = [
				String(next() % 4),
				values[next() % values.length],
				values[next() % values.length],
			];
			// IPv4 /24s, or IPv6 /48s, some networks quoted.
			const network =
				row % 5 === 4 ? `2a00:${row.toString(16)}::/48` : `1.${row >> 8}.${row & 255}.0/24`;
			const written = [network, ...fields].map((value) =>
				/[,"\r\n]/.test(value) || next() % 4 === 0 ? `"${value.replace(/"/g, '""')}"` : value,
			);
			text += written.join(',') + (next() % 2 ? '\n' : '\r\n');
			rows.push({ network, fields });
		}
		return { text, rows };
	}

	test('300 random files in random chunks: every network answers with its own row, never another', () => {
		const next = random32(10);
		for (let file = 0; file < 300; file++) {
			const { text, rows } = randomFile(next);
			const bytes = utf8(text);
			// The oracle's reading of the same text, row by row.
			const parsed = (
				oracleParse(text, { bom: true, record_delimiter: ['\r\n', '\n'] }) as string[][]
			).slice(1);
			expect(parsed.map((fields) => fields.slice(1))).toEqual(rows.map((row) => row.fields));
			const builder = new CsvIndexBuilder();
			let from = 0;
			for (const at of [next() % bytes.length, next() % bytes.length]
				.sort((a, b) => a - b)
				.concat(bytes.length)) {
				builder.push(bytes.subarray(from, at));
				from = at;
			}
			const index = builder.end();
			for (const row of rows) {
				const probe = parseCidr(row.network)!.bytes;
				expect({ file, network: row.network, record: index.lookup(probe)?.record }).toEqual({
					file,
					network: row.network,
					record: recordFromCsv('ip-asn', columns, ['', ...row.fields]),
				});
			}
			// Rows written alike share one record.
			expect(index.recordCount).toBeLessThanOrEqual(rows.length);
		}
	});

	test('one record for rows written alike, over thousands of rows', () => {
		const lines = [columns.join(',')];
		for (let row = 0; row < 5000; row++)
			lines.push(`1.${row >> 8}.${row & 255}.0/24,${row % 3},"Org, ${row % 7}",FR`);
		const builder = new CsvIndexBuilder();
		builder.push(utf8(lines.join('\n') + '\n'));
		const index = builder.end();
		expect(index.rows).toBe(5000);
		expect(index.recordCount).toBe(21);
	});

	test('records are kept as the bytes the file wrote them in: 20,000 distinct records cost about their text, and read back whole', () => {
		const header =
			'network,country,country_code,country_geoname_id,country_is_eu,continent,continent_code,continent_geoname_id,region,region_iso_code,region_geoname_id,city,city_geoname_id,postal_code,latitude,longitude,timezone_name';
		const lines = [header];
		let recordText = 0;
		for (let row = 0; row < 20_000; row++) {
			const fields = [
				`Country ${row % 90}`,
				'AB',
				'100',
				'False',
				'Europe',
				'EU',
				'6255148',
				`Region ${row % 500}`,
				'AB-R',
				'200',
				`Town ${row}, Upper`,
				String(300000 + row),
				String(10000 + row),
				(row / 1000).toFixed(4),
				(-row / 2000).toFixed(4),
				'Europe/Paris',
			];
			const written = fields
				.map((value) => (/[,"]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value))
				.join(',');
			recordText += written.length + 1;
			lines.push(
				`${row >> 8 === 0 ? 1 : 1 + (row >> 16)}.${(row >> 8) & 255}.${row & 255}.0/24,${written}`,
			);
		}
		const builder = new CsvIndexBuilder();
		builder.push(utf8(lines.join('\r\n') + '\r\n'));
		const index = builder.end();
		expect(index.recordCount).toBe(20_000);
		const arrays = index.indexBytesPerRow * index.rows;
		// The text once, its offsets and lengths, and a record id per record: no object per record
		// (a quoted field is read from its bytes too; one with a doubled quote is kept as an object).
		expect(index.retainedBytes - arrays).toBeLessThan(recordText + 20_000 * 16);
		const match = index.lookup(parseCidr('1.78.31.7/32')!.bytes)!;
		expect(match.network).toBe('1.78.31.0/24');
		expect(match.record).toMatchObject({
			city: 'Town 19999, Upper',
			postal_code: '29999',
			latitude: '19.9990',
			longitude: '-9.9995',
			timezone_name: 'Europe/Paris',
		});
	});
});

describe('CSV index sweep over IPv4 (sweepV4.ts)', () => {
	test('200 random sets of nested, disjoint and repeated networks in any order: the innermost, last-listed row answers', () => {
		const next = random32(11);
		for (let file = 0; file < 200; file++) {
			const rows: Array<{ start: number; prefix: number }> = [];
			const count = 1 + (next() % 40);
			for (let row = 0; row < count; row++) {
				// Networks inside 10.0.0.0/16 so that they often nest; sometimes one listed again.
				if (row > 0 && next() % 6 === 0) {
					rows.push(rows[next() % rows.length]);
					continue;
				}
				const prefix = 16 + (next() % 17);
				const start =
					(((10 << 24) | (next() & 0xffff)) >>> 0) &
					(prefix === 0 ? 0 : (0xffffffff << (32 - prefix)) >>> 0);
				rows.push({ start: start >>> 0, prefix });
			}
			const written = rows.map(
				(row, at) =>
					`${[row.start >>> 24, (row.start >> 16) & 255, (row.start >> 8) & 255, row.start & 255].join('.')}/${row.prefix},${at},,`,
			);
			const text = ['network,asn,autonomous_system_organization,asn_country', ...written].join(
				'\n',
			);
			const builder = new CsvIndexBuilder();
			builder.push(utf8(text));
			const index = builder.end();
			for (let probe = 0; probe < 300; probe++) {
				const address = ((10 << 24) | (next() & 0xffff)) >>> 0;
				// Brute force: the longest prefix covering the address; of equal networks, the last row.
				let answer: number | undefined;
				rows.forEach((row, at) => {
					const covers =
						address - row.start >= 0 && address - row.start <= 2 ** (32 - row.prefix) - 1;
					if (covers && (answer === undefined || row.prefix >= rows[answer].prefix)) answer = at;
				});
				const bytes = Uint8Array.from([
					address >>> 24,
					(address >> 16) & 255,
					(address >> 8) & 255,
					address & 255,
				]);
				expect({ file, address, asn: index.lookup(bytes)?.record.asn }).toEqual({
					file,
					address,
					asn: answer === undefined ? undefined : String(answer),
				});
			}
		}
	});
});

describe('ByteKeys (record ids by the bytes of a key)', () => {
	test('keys that differ in one byte anywhere, of every length, at any offset: what a Map of strings answers', () => {
		const next = random32(12);
		const keys = new ByteKeys();
		const oracle = new Map<string, number>();
		// Keys read from inside larger buffers, as from a chunk; many near-equal ones, so the table grows.
		for (let round = 0; round < 20_000; round++) {
			const length = next() % 24;
			const base = Uint8Array.from({ length }, (_, k) => (k * 7) & 255);
			if (length > 0 && next() % 2 === 0) base[next() % length] = next() & 3;
			const offset = next() % 5;
			const buffer = new Uint8Array(offset + length + 3).fill(0xaa);
			buffer.set(base, offset);
			const text = Buffer.from(base).toString('latin1');
			const expected = oracle.get(text) ?? -1;
			const found = keys.get(buffer, offset, offset + length);
			expect({ text, found }).toEqual({ text, found: expected });
			if (found < 0) {
				keys.set(buffer, offset, offset + length, oracle.size);
				oracle.set(text, oracle.size);
			}
		}
		expect(oracle.size).toBeGreaterThan(100);
	});
});
