import { isIP } from 'net';

import {
	formatNetwork,
	isIpv4,
	isIpv6,
	parseIpAddress,
} from '../../dist/nodes/shared/values/ipAddress';
import { random32 } from './mmdbCompare';

/** The address parser the lookups use (and the IP checks of validate.ts), against Node's own. */

const hex = (bytes: Uint8Array | undefined) =>
	bytes ? Buffer.from(bytes).toString('hex') : undefined;

describe('parseIpAddress', () => {
	test.each([
		['0.0.0.0', '00000000'],
		['8.8.8.8', '08080808'],
		['255.255.255.255', 'ffffffff'],
		['::', '00000000000000000000000000000000'],
		['::1', '00000000000000000000000000000001'],
		['1::', '00010000000000000000000000000000'],
		['2001:db8::1', '20010db8000000000000000000000001'],
		['2001:DB8:0:0:0:0:0:1', '20010db8000000000000000000000001'],
		['2001:0db8:0000:0000:0000:ff00:0042:8329', '20010db8000000000000ff0000428329'],
		['1:2:3:4:5:6:7::', '00010002000300040005000600070000'],
		['::2:3:4:5:6:7:8', '00000002000300040005000600070008'],
		['::ffff:1.2.3.4', '00000000000000000000ffff01020304'],
		['::1.2.3.4', '00000000000000000000000001020304'],
		['64:ff9b::192.0.2.33', '0064ff9b0000000000000000c0000221'],
		['1:2:3:4:5:6:1.2.3.4', '00010002000300040005000601020304'],
		['fe80::1%eth0', 'fe800000000000000000000000000001'],
	])('%s', (text, bytes) => {
		expect(hex(parseIpAddress(text))).toBe(bytes);
	});

	test.each([
		'',
		' 8.8.8.8',
		'8.8.8.8 ',
		'8.8.8',
		'8.8.8.8.8',
		'256.1.1.1',
		'01.2.3.4',
		'1.2.3.-4',
		'1..2.3',
		'1.2.3.4/24',
		':',
		':::',
		'1:',
		':1',
		'1:::2',
		'1::2::3',
		'12345::',
		'1:2:3:4:5:6:7:8:9',
		'1:2:3:4:5:6:7:8::',
		'::1:2:3:4:5:6:7:8',
		'1:2:3:4:5:6:7',
		'g::1',
		'::ffff:1.2.3',
		'::ffff:256.1.1.1',
		'1:2:3:4:5:6:7:1.2.3.4',
		'::1.2.3.4:5',
		'fe80::1%',
		'fe80::1%a b',
		'localhost',
		'example.com',
	])('refuses %j', (text) => {
		expect(parseIpAddress(text)).toBeUndefined();
		expect(isIpv4(text) || isIpv6(text)).toBe(false);
	});

	test('agrees with Node on 20,000 generated strings (addresses, near-addresses and noise)', () => {
		const next = random32(42);
		const pieces = [
			'',
			':',
			'::',
			'.',
			'0',
			'1',
			'00',
			'ff',
			'FFFF',
			'12345',
			'255',
			'256',
			'1.2.3.4',
			'g',
			'%eth0',
			'0db8',
		];
		const mismatches: string[] = [];
		for (let index = 0; index < 20_000; index++) {
			let text = '';
			const length = 1 + (next() % 12);
			for (let piece = 0; piece < length; piece++) text += pieces[next() % pieces.length];
			// Node accepts zones with any characters; the package's rule is the narrower one tested above.
			if (text.includes('%')) continue;
			const node = isIP(text);
			const ours = parseIpAddress(text);
			const kind = ours === undefined ? 0 : ours.length === 4 ? 4 : 6;
			if (kind !== node && mismatches.length < 10)
				mismatches.push(`${text}: node ${node}, package ${kind}`);
		}
		expect(mismatches).toEqual([]);
	});
});

describe('formatNetwork', () => {
	const parse = (text: string) => parseIpAddress(text)!;

	test.each([
		['1.2.3.4', 24, '1.2.3.0/24'],
		['1.2.3.4', 32, '1.2.3.4/32'],
		['255.255.255.255', 1, '128.0.0.0/1'],
		['8.8.8.8', 0, '0.0.0.0/0'],
		['2001:0db8:0000:0000:0000:0000:0000:0001', 32, '2001:db8::/32'],
		['2001:db8::1', 128, '2001:db8::1/128'],
		['2001:db8:0:1:1:1:1:1', 128, '2001:db8:0:1:1:1:1:1/128'], // a single zero group stays
		['2001:0:0:1:0:0:0:1', 128, '2001:0:0:1::1/128'], // the longest run is compressed
		['2001:db8:0:0:1:0:0:1', 128, '2001:db8::1:0:0:1/128'], // the first of two equal runs
		['::', 0, '::/0'],
		['::1', 128, '::1/128'],
		['ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 10, 'ffc0::/10'],
		['::ffff:1.2.3.4', 120, '::ffff:1.2.3.0/120'],
		['::ffff:1.2.3.4', 96, '::ffff:0.0.0.0/96'],
	])('%s/%i is %s', (address, prefix, network) => {
		expect(formatNetwork(parse(address), prefix)).toBe(network);
	});

	test('refuses a prefix past the address', () => {
		expect(() => formatNetwork(parse('1.2.3.4'), 33)).toThrow(RangeError);
		expect(() => formatNetwork(new Uint8Array(5), 8)).toThrow(RangeError);
	});
});
