/**
 * Writes the value corpora of test/values/ (test/values/corpora/*.json): small samples of public,
 * independently written test sets, each entry with the outcome the node must give, so that the
 * tests read values and expectations and compute neither with the node's own code.
 *
 * - phoneExamples.json: libphonenumber's example mobile number of every region that has an ISO
 *   3166-1 code (libphonenumber-js's examples.mobile.json, a devDependency).
 * - domains.json: `example.<tld>` for every internationalised top-level domain of the root zone
 *   (the `tlds` package), in Unicode and in punycode (the `punycode` package, RFC 3492, not the
 *   URL parser under test); the names RFC 2606 and RFC 6761 reserve, which no company can have.
 * - addresses.json: email addresses from the RFCs, written below with the section each comes
 *   from: RFC 5322's Appendix A address fields, RFC 3696 section 3's local parts (as its erratum
 *   246 corrects them, and as printed), internationalised addresses as RFC 6531 and RFC 6532 allow
 *   them, the names RFC 2606 and RFC 6761 reserve, and forms RFC 5322's grammar and DNS's limits
 *   allow or refuse; each with the domain Company Enrichment looks up, or null when it refuses it.
 *
 * `npm run refresh:test-corpora` writes all three again.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

const CORPORA = join(__dirname, '..', '..', 'test', 'values', 'corpora');

function load<T>(name: string): T {
	// The packages are devDependencies: this script runs in the project, never in n8n.
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	return require(name) as T;
}

const version = (name: string) => load<{ version: string }>(`${name}/package.json`).version;
const write = (file: string, data: unknown) =>
	writeFileSync(join(CORPORA, file), JSON.stringify(data, null, '\t') + '\n');

function phoneExamples(): void {
	const examples = load<Record<string, string>>('libphonenumber-js/examples.mobile.json');
	const iso = new Set(
		Object.keys(
			load<{ getAlpha2Codes(): Record<string, string> }>('i18n-iso-countries').getAlpha2Codes(),
		),
	);
	// AC (Ascension) and TA (Tristan da Cunha) are numbering regions without an ISO 3166-1 code of their own.
	const numbers = Object.entries(examples)
		.filter(([region]) => iso.has(region))
		.map(([region, number]) => ({ region, number }));
	write('phoneExamples.json', {
		source: `libphonenumber-js ${version('libphonenumber-js')}, examples.mobile.json (libphonenumber's example mobile number per region)`,
		numbers,
	});
}

function domains(): void {
	const punycode = load<{ toASCII(domain: string): string }>('punycode');
	const tlds = load<string[]>('tlds');
	const unicode = tlds.filter((tld) => /[^a-z\d-]/.test(tld)).sort();
	write('domains.json', {
		source: `tlds ${version('tlds')} (IANA's root zone list), punycode ${version('punycode')} (RFC 3492)`,
		internationalised: unicode.map((tld) => ({
			unicode: `example.${tld}`,
			ascii: punycode.toASCII(`example.${tld}`),
		})),
		// RFC 2606 section 2 and RFC 6761 section 6: top-level names reserved for tests, examples, invalid names and loopback.
		reserved: ['acme.test', 'acme.example', 'acme.invalid', 'acme.localhost'],
	});
}

/** One address and the outcome the nodes must give it, by the rule its source states. */
interface AddressCase {
	/** Where the value comes from, in words a reader can follow. */
	source: string;
	value: string;
	/** The domain Company Enrichment looks up (lower-case ASCII), or null when it refuses the value. */
	domain: string | null;
	/** The address Email Reputation sends when the value holds it in angle brackets (every other value is sent as typed). */
	address?: string;
}

const RFC5322 =
	'RFC 5322 (Internet Message Format), Appendix A.1, A.4 and A.5: address fields of its example messages';
const RFC3696 =
	'RFC 3696 section 3 (Checking and Transformation of Names), as corrected by its verified erratum 246';
const RFC3696_AS_WRITTEN =
	"RFC 3696 section 3's examples as printed, which erratum 246 says are wrong: a backslash quotes only inside a quoted string (RFC 5322 section 3.2.4)";
const RFC6532 =
	'RFC 6531 and RFC 6532 (internationalised email): UTF-8 in the local part and the domain (a U-label, RFC 5890)';
const RESERVED =
	'RFC 2606 and RFC 6761: reserved names (example.com/.net/.org are real second-level names; .test, .example, .invalid and .localhost are no top-level domain)';
const RULES =
	"RFC 5322 section 3.2 to 3.4 and DNS's limits (RFC 1035 section 2.3.4, RFC 1123 section 2.1): forms an address may and may not take";

/** RFC 5322 Appendix A: each field value with the address it holds, the part in angle brackets without comments. */
const RFC5322_EXAMPLES: Array<[value: string, address: string, domain: string | null]> = [
	['John Doe <jdoe@machine.example>', 'jdoe@machine.example', null], // A.1.1
	['Mary Smith <mary@example.net>', 'mary@example.net', 'example.net'], // A.1.1
	['"Joe Q. Public" <john.q.public@example.com>', 'john.q.public@example.com', 'example.com'], // A.1.3
	['Mary Smith <mary@x.test>', 'mary@x.test', null], // A.1.3
	['Who? <one@y.test>', 'one@y.test', null], // A.1.3
	['<boss@nil.test>', 'boss@nil.test', null], // A.1.3
	['"Giant; \\"Big\\" Box" <sysservices@example.net>', 'sysservices@example.net', 'example.net'], // A.1.3
	['Michael Jones <mjones@machine.example>', 'mjones@machine.example', null], // A.4
	['Pete(A nice \\) chap) <pete(his account)@silly.test(his host)>', 'pete@silly.test', null], // A.5
];

/** RFC 3696 section 3's examples of valid local parts, with erratum 246's corrections of the first three. */
const RFC3696_EXAMPLES = [
	'"Abc\\@def"@example.com',
	'"Fred\\ Bloggs"@example.com',
	'"Joe.\\\\Blow"@example.com',
	'"Abc@def"@example.com',
	'"Fred Bloggs"@example.com',
	'customer/department=shipping@example.com',
	'$A12345@example.com',
	'!def!xyz%abc@example.com',
	'_somename@example.com',
];
/**
 * The three as RFC 3696 prints them: a backslash outside quotes, which RFC 5322's grammar allows
 * nowhere in a local part (a quoted-pair is part of a quoted string only: RFC 5322 section 3.2.4, RFC 5322 section 3.4.1).
 * A later erratum (3563) argues for the printed forms; the grammar decides.
 */
const RFC3696_AS_PRINTED = [
	'Abc\\@def@example.com',
	'Fred\\ Bloggs@example.com',
	'Joe.\\\\Blow@example.com',
];

/** Addresses RFC 6532 section 3.2 allows (UTF-8 local parts) at internationalised domains (RFC 6531 section 3.2). */
const INTERNATIONALISED = [
	'用户@例子.中国',
	'коля@пример.рф',
	'квіточка@пошта.укр',
	'अजय@डाटा.भारत',
	'jürgen@bücher.de',
	'jöran@example.com',
	'θσερ@εχαμπλε.ψομ',
	'dörte@sörensen.example',
];

/** RFC 2606 section 2 and 3, RFC 6761 section 6. */
const RESERVED_EXAMPLES: Array<[value: string, domain: string | null]> = [
	['ada@example.com', 'example.com'],
	['ada@example.net', 'example.net'],
	['ada@example.org', 'example.org'],
	['ada@acme.test', null],
	['ada@acme.example', null],
	['ada@acme.invalid', null],
	['ada@acme.localhost', null],
	['ada@localhost', null],
];

const LONG_LABEL = 'a'.repeat(64);
/** Forms RFC 5322 and DNS allow or refuse, each with the rule in its comment. */
const RULE_EXAMPLES: Array<[value: string, domain: string | null]> = [
	['ada(sales)@example.com', 'example.com'], // a comment is white space: RFC 5322 section 3.2.2
	['(sales) ada@example.com', 'example.com'],
	['ada@(mail server)example.com', 'example.com'],
	['ADA@EXAMPLE.COM', 'example.com'], // domains are case-insensitive (RFC 1035 section 2.3.3)
	['ada.lovelace@mail.example.com', 'mail.example.com'], // a dot-atom: RFC 5322 section 3.2.3
	['"ada..lovelace"@example.com', 'example.com'], // any dots inside a quoted string: RFC 5322 section 3.2.4
	['"ada@lovelace"@example.com', 'example.com'],
	['ada', null], // without an @ there is no addr-spec: RFC 5322 section 3.4.1
	['@example.com', null], // no local part
	['ada@', null], // no domain
	['ada@lovelace@example.com', null], // an @ outside quotes in the local part
	['.ada@example.com', null], // a dot-atom neither starts nor ends with a dot, nor has two in a row: RFC 5322 section 3.2.3
	['ada.@example.com', null],
	['ada..lovelace@example.com', null],
	['ada lovelace@example.com', null], // two words are no local part: RFC 5322 section 3.4.1
	['ada(x)lovelace@example.com', null], // a comment separates words as white space does: RFC 5322 section 3.2.2
	['"ada@example.com', null], // a quoted string left open
	['ada(sales@example.com', null], // a comment left open
	['ada\nlovelace@example.com', null], // a line break not followed by white space is no folding white space: RFC 5322 section 3.2.2
	['ada@[192.0.2.1]', null], // an address literal names no domain to look up: RFC 5322 section 3.4.1
	['ada@[IPv6:2001:db8::1]', null],
	['ada@-example.com', null], // a label neither starts nor ends with a hyphen (RFC 1123 section 2.1)
	['ada@example-.com', null],
	[`ada@${LONG_LABEL}.com`, null], // a label of at most 63 octets (RFC 1035 section 2.3.4)
	[`ada@${'a'.repeat(63)}.com`, `${'a'.repeat(63)}.com`],
	[`ada@${Array.from({ length: 4 }, () => 'a'.repeat(63)).join('.')}.com`, null], // a name of at most 253 characters
];

function addresses(): void {
	const punycode = load<{ toASCII(domain: string): string }>('punycode');
	const rootZone = new Set(load<string[]>('tlds'));
	// An internationalised domain is looked up in its ASCII form (punycode, RFC 3492), when its top-level domain is in the root zone.
	const idnDomain = (value: string) => {
		const domain = value.slice(value.lastIndexOf('@') + 1).toLowerCase();
		return rootZone.has(domain.split('.').pop() ?? '') ? punycode.toASCII(domain) : null;
	};
	const cases: AddressCase[] = [
		...RFC5322_EXAMPLES.map(([value, address, domain]) => ({
			source: RFC5322,
			value,
			domain,
			address,
		})),
		...RFC3696_EXAMPLES.map((value) => ({ source: RFC3696, value, domain: 'example.com' })),
		// The same in angle brackets (an angle-addr, RFC 5322 section 3.4), as a CRM export writes them after a name.
		...RFC3696_EXAMPLES.map((value) => ({
			source: RFC3696,
			value: `Customer <${value}>`,
			domain: 'example.com',
			address: value,
		})),
		...RFC3696_AS_PRINTED.map((value) => ({ source: RFC3696_AS_WRITTEN, value, domain: null })),
		...INTERNATIONALISED.map((value) => ({ source: RFC6532, value, domain: idnDomain(value) })),
		...RESERVED_EXAMPLES.map(([value, domain]) => ({ source: RESERVED, value, domain })),
		...RULE_EXAMPLES.map(([value, domain]) => ({ source: RULES, value, domain })),
	];
	write('addresses.json', {
		source: `RFC examples and rules (each case names its own), tlds ${version('tlds')}, punycode ${version('punycode')}`,
		cases,
	});
}

function main(): void {
	phoneExamples();
	domains();
	addresses();
	console.log(`Wrote the corpora of ${CORPORA}`);
}

main();
