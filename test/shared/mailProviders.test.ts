/**
 * The mail provider lists Company Enrichment skips (pure data, tested directly): the common
 * providers of each region are in them, well-known companies' domains are not, relays are their
 * own kind, and the generated data is sorted, without duplicates and without any public suffix.
 */
import { readFileSync } from 'fs';
import path from 'path';

import {
	DISPOSABLE_MAIL_DOMAINS,
	FREE_MAIL_DOMAINS,
	RELAY_MAIL_DOMAINS,
} from '../../nodes/shared/values/mailProviderLists';
import { mailProviderOf } from '../../nodes/shared/values/mailProviders';

/** The providers most leads of a region write from (webmail, and the big internet providers' mailboxes). */
const FREE_BY_REGION: Record<string, string[]> = {
	global: [
		'gmail.com',
		'googlemail.com',
		'outlook.com',
		'hotmail.com',
		'live.com',
		'msn.com',
		'yahoo.com',
		'ymail.com',
		'aol.com',
		'icloud.com',
		'me.com',
		'mac.com',
		'proton.me',
		'protonmail.com',
		'zoho.com',
		'mail.com',
		'gmx.com',
	],
	northAmerica: ['comcast.net', 'att.net', 'verizon.net', 'sbcglobal.net', 'shaw.ca', 'rogers.com'],
	unitedKingdom: ['hotmail.co.uk', 'yahoo.co.uk', 'btinternet.com', 'sky.com', 'virginmedia.com'],
	germanSpeaking: [
		'gmx.de',
		'gmx.net',
		'web.de',
		't-online.de',
		'freenet.de',
		'gmx.at',
		'bluewin.ch',
	],
	france: ['orange.fr', 'laposte.net', 'free.fr', 'sfr.fr', 'wanadoo.fr', 'hotmail.fr', 'yahoo.fr'],
	italy: ['libero.it', 'virgilio.it', 'tiscali.it', 'alice.it', 'hotmail.it'],
	easternEurope: [
		'mail.ru',
		'yandex.ru',
		'rambler.ru',
		'bk.ru',
		'list.ru',
		'inbox.ru',
		'ukr.net',
		'seznam.cz',
		'wp.pl',
		'onet.pl',
		'interia.pl',
		'o2.pl',
		'abv.bg',
	],
	china: ['qq.com', '163.com', '126.com', 'sina.com', 'yeah.net', 'foxmail.com'],
	koreaJapan: ['naver.com', 'daum.net', 'hanmail.net', 'yahoo.co.jp'],
	brazil: ['uol.com.br', 'bol.com.br', 'terra.com.br', 'ig.com.br', 'yahoo.com.br'],
	india: ['rediffmail.com', 'yahoo.co.in'],
	oceania: ['bigpond.com', 'optusnet.com.au', 'xtra.co.nz'],
};

const DISPOSABLE = [
	'mailinator.com',
	'yopmail.com',
	'10minutemail.com',
	'guerrillamail.com',
	'temp-mail.org',
	'sharklasers.com',
	'trashmail.com',
];

const RELAYS = [
	'duck.com',
	'mozmail.com',
	'relay.firefox.com',
	'privaterelay.appleid.com',
	'simplelogin.com',
	'aleeas.com',
	'slmail.me',
	'addy.io',
	'anonaddy.me',
	'passmail.net',
];

/** Companies whose people write from their own domain, several of which the popular free lists carry. */
const COMPANIES = [
	'facebook.com',
	'comcast.com',
	'easypost.com',
	'name.com',
	'clerk.com',
	'google.com',
	'microsoft.com',
	'apple.com',
	'amazon.com',
	'meta.com',
	'alibaba.com',
	'go.com',
	'about.com',
	'verizon.com',
	'att.com',
	'orange.com',
	'telekom.de',
	'bt.com',
	'telstra.com',
	'ibm.com',
	'oracle.com',
	'salesforce.com',
	'stripe.com',
	'shopify.com',
	'github.com',
	'slack.com',
	'atlassian.com',
	'hubspot.com',
	'dropbox.com',
	'n8n.io',
	'abstractapi.com',
	'tencent.com',
	'baidu.com',
	'samsung.com',
	'sony.com',
	'siemens.com',
	'sap.com',
	'nestle.com',
	'ikea.com',
	'hsbc.com',
	'visa.com',
	'nytimes.com',
	'bbc.co.uk',
	'reuters.com',
	'harvard.edu',
	'ox.ac.uk',
	'nasa.gov',
	'mozilla.org',
	'wikipedia.org',
	'cloudflare.com',
	'twilio.com',
	'godaddy.com',
	'wix.com',
	'saudia.com',
	'nus.edu.sg',
	'medscape.com',
];

describe('The mail provider lists', () => {
	it.each(Object.entries(FREE_BY_REGION))(
		'hold the common free providers of each region (%s)',
		(_region, domains) => {
			expect(domains.filter((domain) => mailProviderOf(domain) !== 'free')).toEqual([]);
		},
	);

	it('hold the common disposable providers, as disposable', () => {
		expect(DISPOSABLE.filter((domain) => mailProviderOf(domain) !== 'disposable')).toEqual([]);
	});

	it('hold the privacy relays as their own kind: a real person, at a domain that is not their company', () => {
		expect(RELAYS.filter((domain) => mailProviderOf(domain) !== 'relay')).toEqual([]);
	});

	it('hold no well-known company domain, in any list', () => {
		expect(COMPANIES.filter((domain) => mailProviderOf(domain) !== undefined)).toEqual([]);
	});

	it("count a provider's subdomains as the provider's, and nothing above a domain as a match", () => {
		expect(mailProviderOf('x1y2.mozmail.com')).toBe('relay');
		expect(mailProviderOf('eu.mailinator.com')).toBe('disposable');
		expect(mailProviderOf('mail.acme.com')).toBeUndefined();
		expect(mailProviderOf('com')).toBeUndefined();
	});

	it.each([
		['free', FREE_MAIL_DOMAINS],
		['disposable', DISPOSABLE_MAIL_DOMAINS],
		['relay', RELAY_MAIL_DOMAINS],
	])(
		'are generated sorted, lower-case, without duplicates or public suffixes (%s)',
		(_kind, list) => {
			const domains = list.split('\n');
			expect(domains).toEqual([...new Set(domains)].sort());
			expect(
				domains.filter(
					(domain) => domain !== domain.toLowerCase() || !/^[^\s.]+(\.[^\s.]+)+$/.test(domain),
				),
			).toEqual([]);
			// A suffix under which anyone registers (co.uk, com.br) would make every company there a provider.
			expect(
				domains.filter((domain) => /^(com?|net|org|gov|edu|ac|ne|or)\.[a-z]{2}$/.test(domain)),
			).toEqual([]);
		},
	);

	it('are in no two lists at once, and no relay (nor its subdomain) is in another list', () => {
		const free = new Set(FREE_MAIL_DOMAINS.split('\n'));
		const disposable = new Set(DISPOSABLE_MAIL_DOMAINS.split('\n'));
		const both = [...disposable].filter((domain) => free.has(domain));
		const relays = RELAY_MAIL_DOMAINS.split('\n');
		const relayed = [...free, ...disposable].filter((domain) =>
			relays.some((relay) => domain === relay || domain.endsWith(`.${relay}`)),
		);
		expect([...both, ...relayed]).toEqual([]);
	});

	it('carry their sources and licences into the built package (the file n8n loads)', () => {
		const built = readFileSync(
			path.join(__dirname, '..', '..', 'dist', 'nodes', 'shared', 'values', 'mailProviderLists.js'),
			'utf8',
		);
		for (const notice of [
			'free-email-domains',
			'(MIT',
			'email-providers',
			'(ISC',
			'disposable-email-domains-js',
			'(CC0-1.0',
		])
			expect(built).toContain(notice);
	});
});
