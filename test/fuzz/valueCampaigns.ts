import { BlockList, isIP } from 'net';

import fc from 'fast-check';

import { defuseFormula, undefuseFormula } from '../../nodes/shared/csv/formulas';
import { readDomainOf } from '../../nodes/shared/values/domain';
import { parseIpAddress } from '../../nodes/shared/values/ipAddress';
import { readMailAddress } from '../../nodes/shared/values/mailAddress';
import { timed, type Campaign } from './campaign';

/**
 * The value parsers (IP addresses, email addresses, domains and websites) and the result file's
 * formula guard under generated text: what a cell of a lead list may hold, valid forms and
 * near-misses, long runs of the characters their patterns repeat.
 */

/** Text made of what the parsers look at, in runs (a pattern that backtracks shows on runs). */
const ADDRESS_PIECES = [
	'1',
	'25',
	'255',
	'256',
	'0',
	'00',
	'.',
	':',
	'::',
	'a',
	'ffff',
	'%',
	'eth0',
	'/',
	' ',
	'-',
];
const MAIL_PIECES = [
	'a',
	'.',
	'@',
	'"',
	'\\',
	'<',
	'>',
	'(',
	')',
	' ',
	'\r\n',
	'\t',
	'-',
	'xn--',
	'é',
	'😀',
	'[',
	']',
	'mailto:',
	'http://',
	'www.',
	'com',
	':',
	'/',
	'?',
	'#',
];

const textOf = (pieces: string[], maxLength: number) =>
	fc
		.array(
			fc
				.tuple(fc.constantFrom(...pieces), fc.integer({ min: 1, max: 40 }))
				.map(([piece, times]) => piece.repeat(times)),
			{ maxLength },
		)
		.map((runs) => runs.join(''));

const ipLike = fc.oneof(
	fc.ipV4(),
	fc.ipV6(),
	fc.ipV4Extended(),
	textOf(ADDRESS_PIECES, 12),
	fc.string({ maxLength: 40 }),
);

/** IPv6 bytes in the full form Node's own parser (BlockList's) reads without any doubt. */
const fullIpv6 = (bytes: Uint8Array) =>
	Array.from({ length: 8 }, (_, group) =>
		((bytes[group * 2] << 8) | bytes[group * 2 + 1]).toString(16),
	).join(':');

export const ipAddressCampaign: Campaign = {
	name: 'IP address parser',
	holds:
		"an address exactly when Node's parser (net.isIP) reads one, the same bytes as Node's BlockList; never an exception",
	testRuns: 20_000,
	property: ({ slowMs } = {}) =>
		fc.property(ipLike, (text) => {
			const parsed = timed(slowMs, `parseIpAddress(${JSON.stringify(text)})`, () =>
				parseIpAddress(text),
			);
			// A zone (fe80::1%eth0) is the package's to ignore: Node takes a narrower set of them.
			if (text.includes('%')) return;
			const node = isIP(text);
			if ((parsed !== undefined) !== (node !== 0))
				throw new Error(
					`parseIpAddress ${parsed ? 'reads' : 'refuses'} "${text}", Node ${node ? 'reads' : 'refuses'} it`,
				);
			if (!parsed) return;
			if (parsed.length !== (node === 4 ? 4 : 16))
				throw new Error(`"${text}": ${parsed.length} bytes`);
			const list = new BlockList();
			list.addAddress(text, node === 4 ? 'ipv4' : 'ipv6');
			const same =
				node === 4
					? list.check([...parsed].join('.'), 'ipv4')
					: list.check(fullIpv6(parsed), 'ipv6');
			if (!same) throw new Error(`"${text}": parsed as other bytes than Node's`);
		}),
};

export const mailAndDomainCampaign: Campaign = {
	name: 'Email address and domain readers',
	holds:
		'no exception; an address read is its local part, @ and domain, and reads again as itself; a domain read is lower-case ASCII',
	testRuns: 5000,
	property: ({ slowMs } = {}) =>
		fc.property(
			fc.oneof(
				fc.emailAddress(),
				fc.domain(),
				textOf(MAIL_PIECES, 16),
				fc.string({ maxLength: 60 }),
			),
			(text) => {
				const address = timed(slowMs, `readMailAddress(${JSON.stringify(text)})`, () =>
					readMailAddress(text),
				);
				if (address) {
					if (address.address !== `${address.local}@${address.domain}`)
						throw new Error(`"${text}": ${address.address}`);
					const again = readMailAddress(address.address);
					if (again?.address !== address.address)
						throw new Error(`"${text}": ${address.address} reads again as ${again?.address}`);
				}
				const domain = timed(slowMs, `readDomainOf(${JSON.stringify(text)})`, () =>
					readDomainOf(text),
				);
				if ('domain' in domain && !/^[a-z0-9.-]+$/.test(domain.domain))
					throw new Error(`"${text}": domain "${domain.domain}"`);
			},
		),
};

/** What a spreadsheet may take for a formula's start, and where a cell may start. */
const TRIGGERS = new Set(['=', '+', '-', '@', '\0']);
const LEADING = new Set([...TRIGGERS, '\t', '\r', '\n']);
const SEPARATORS = new Set([',', ';', '\t', '|', '\r', '\n']);
/** The rule's own exceptions, as docs/bulk-csv.md states them: signed amounts and phone numbers. */
const SIGNED_AMOUNT = /^[+-] ?(?:\p{Sc} ?)?[\d.,][\d., ]*(?:%|\p{Sc})?$/u;
const PLUS_PHONE = /^\+[\d .()/-]*$/;

const FORMULA_PIECES = [
	'=',
	'+',
	'-',
	'@',
	'\0',
	'\t',
	'\r',
	'\n',
	',',
	';',
	'|',
	"'",
	'1',
	'2.5',
	'A1',
	' ',
	'€',
	'%',
	'(',
	')',
	'SUM(',
	'x',
];

export const formulaCampaign: Campaign = {
	name: 'Formula guard',
	holds:
		'no cell start (the first character, or after a separator) of a written cell opens a formula unless it is a signed number or a phone number; undefuse gives the cell back exactly',
	testRuns: 20_000,
	property: ({ slowMs } = {}) =>
		fc.property(fc.oneof(textOf(FORMULA_PIECES, 10), fc.string({ maxLength: 30 })), (cell) => {
			const written = timed(slowMs, `defuseFormula(${JSON.stringify(cell)})`, () =>
				defuseFormula(cell),
			);
			if (undefuseFormula(written) !== cell)
				throw new Error(
					`${JSON.stringify(cell)} written ${JSON.stringify(written)} reads back otherwise`,
				);
			for (let at = 0; at < written.length; at++) {
				const start = at === 0 || SEPARATORS.has(written[at - 1]);
				if (!start) continue;
				const char = written[at];
				if (!(at === 0 ? LEADING : TRIGGERS).has(char)) continue;
				let end = at;
				while (end < written.length && !SEPARATORS.has(written[end])) end++;
				const piece = written.slice(at, end);
				const leftAlone =
					(char === '+' || char === '-') &&
					/\d/.test(piece) &&
					(SIGNED_AMOUNT.test(piece) || PLUS_PHONE.test(piece));
				if (!leftAlone)
					throw new Error(
						`${JSON.stringify(cell)} written ${JSON.stringify(written)}: a formula at ${at}`,
					);
			}
		}),
};
