import type { ServiceModule } from '../types';
import { lookedUpValue } from './lookupParams';
import { dateDaysAgo, seeded, timestampDaysAgo, type Seeded } from './seeded';

/**
 * Email reputation: the same three request forms as phone. A malformed
 * address is not an error: 200 with status_detail invalid_format. Otherwise the record is derived from the
 * address: known providers, disposable and typo domains behave as they would live, a hash
 * decides the rest.
 */
export const email: ServiceModule = {
	name: 'email',
	keyFrom: ['bearer', 'form', 'query'],
	handle(request) {
		const found = lookedUpValue(request, 'email');
		if ('reject' in found) return found.reject;
		return { status: 200, json: emailRecord(found.value) };
	},
};

/** Whether an address has the shape user@domain.tld; anything else gets the 2.2.2 result. */
export function isWellFormed(address: string): boolean {
	return /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)+$/.test(address);
}

/** The result for an address whose format is invalid: undeliverable, invalid_format, every other check skipped (null). */
export function malformedEmailRecord(address: string) {
	return {
		email_address: address,
		suggested_correction: null,
		email_deliverability: {
			status: 'undeliverable',
			status_detail: 'invalid_format',
			is_format_valid: false,
			is_smtp_valid: false,
			is_mx_valid: false,
			mx_records: [],
		},
		email_quality: {
			score: null,
			is_free_email: null,
			is_username_suspicious: null,
			is_disposable: null,
			is_catchall: null,
			is_subaddress: null,
			is_role: null,
			is_dmarc_enforced: null,
			is_spf_strict: null,
			minimum_age: null,
		},
		email_sender: {
			first_name: null,
			last_name: null,
			email_provider_name: null,
			organization_name: null,
			organization_type: null,
		},
		email_domain: {
			domain: null,
			domain_age: null,
			is_live_site: null,
			registrar: null,
			registrar_url: null,
			date_registered: null,
			date_last_renewed: null,
			date_expires: null,
			is_risky_tld: null,
		},
		email_risk: {
			address_risk_status: null,
			domain_risk_status: null,
		},
		email_breaches: {
			total_breaches: null,
			date_first_breached: null,
			date_last_breached: null,
			breached_domains: [],
		},
	};
}

interface Provider {
	name: string;
	mx: string[];
	registrar: [name: string, url: string];
	registeredDaysAgo: number;
}

const FREE_PROVIDERS: Record<string, Provider> = {
	'gmail.com': {
		name: 'Google',
		mx: [
			'gmail-smtp-in.l.google.com',
			'alt1.gmail-smtp-in.l.google.com',
			'alt2.gmail-smtp-in.l.google.com',
		],
		registrar: ['MarkMonitor, Inc.', 'http://www.markmonitor.com'],
		registeredDaysAgo: 11_416,
	},
	'outlook.com': {
		name: 'Microsoft',
		mx: ['outlook-com.olc.protection.outlook.com'],
		registrar: ['MarkMonitor, Inc.', 'http://www.markmonitor.com'],
		registeredDaysAgo: 10_640,
	},
	'yahoo.com': {
		name: 'Yahoo',
		mx: ['mta5.am0.yahoodns.net', 'mta6.am0.yahoodns.net', 'mta7.am0.yahoodns.net'],
		registrar: ['MarkMonitor, Inc.', 'http://www.markmonitor.com'],
		registeredDaysAgo: 10_902,
	},
	'proton.me': {
		name: 'Proton',
		mx: ['mail.protonmail.ch', 'mailsec.protonmail.ch'],
		registrar: ['Gandi SAS', 'http://www.gandi.net'],
		registeredDaysAgo: 2_210,
	},
};

const DISPOSABLE = new Set([
	'mailinator.com',
	'guerrillamail.com',
	'10minutemail.com',
	'yopmail.com',
]);

/** Common misspellings of free providers: no MX, and the service suggests the corrected address. */
const TYPOS: Record<string, string> = {
	'gmial.com': 'gmail.com',
	'gmai.com': 'gmail.com',
	'gnail.com': 'gmail.com',
	'yaho.com': 'yahoo.com',
	'outlok.com': 'outlook.com',
	'hotmial.com': 'hotmail.com',
};

const ROLES = new Set([
	'info',
	'support',
	'sales',
	'admin',
	'contact',
	'hello',
	'billing',
	'noreply',
	'no-reply',
	'office',
]);
const RISKY_TLDS = new Set(['xyz', 'top', 'click', 'zip', 'tk', 'gq', 'work']);

const REGISTRARS: ReadonlyArray<[name: string, url: string]> = [
	['GoDaddy.com, LLC', 'http://www.godaddy.com'],
	['NameCheap, Inc.', 'http://www.namecheap.com'],
	['Cloudflare, Inc.', 'https://www.cloudflare.com'],
	['Gandi SAS', 'http://www.gandi.net'],
	['Tucows Domains Inc.', 'http://www.tucows.com'],
];

const BREACH_SOURCES: ReadonlyArray<{ domain: string; daysAgo: number }> = [
	{ domain: 'linkedin.com', daysAgo: 5_300 },
	{ domain: 'adobe.com', daysAgo: 4_780 },
	{ domain: 'dropbox.com', daysAgo: 5_180 },
	{ domain: 'canva.com', daysAgo: 2_740 },
	{ domain: 'wattpad.com', daysAgo: 2_340 },
	{ domain: 'dailymotion.com', daysAgo: 3_310 },
	{ domain: 'zynga.com', daysAgo: 2_630 },
	{ domain: 'myfitnesspal.com', daysAgo: 3_100 },
];

const titleCase = (word: string) => word.charAt(0).toUpperCase() + word.slice(1).toLowerCase();

function mxOf(domain: string, random: Seeded): string[] {
	const host = random.int(3);
	if (host === 0)
		return ['aspmx.l.google.com', 'alt1.aspmx.l.google.com', 'alt2.aspmx.l.google.com'];
	if (host === 1) return [`${domain.replace(/\./g, '-')}.mail.protection.outlook.com`];
	return [`mx1.${domain}`, `mx2.${domain}`];
}

function breachesOf(random: Seeded, count: number) {
	const sources = random
		.some(BREACH_SOURCES, count)
		.map((source) => ({
			domain: source.domain,
			date_breached: timestampDaysAgo(source.daysAgo, random.int(86_400)),
		}))
		.sort((a, b) => a.date_breached.localeCompare(b.date_breached));
	return {
		total_breaches: sources.length,
		date_first_breached: sources[0]?.date_breached ?? null,
		date_last_breached: sources[sources.length - 1]?.date_breached ?? null,
		breached_domains: sources,
	};
}

/** The email reputation record for a submitted address. */
export function emailRecord(address: string) {
	if (!isWellFormed(address)) return malformedEmailRecord(address);
	const at = address.lastIndexOf('@');
	const local = address.slice(0, at);
	const domain = address.slice(at + 1).toLowerCase();
	const random = seeded(`email\n${address.toLowerCase()}`);
	const provider = FREE_PROVIDERS[domain];
	const correction = TYPOS[domain];
	const isDisposable = DISPOSABLE.has(domain);
	const base = local.split('+')[0].toLowerCase();
	const isRole = ROLES.has(base);
	const isSuspicious = /\d{4,}/.test(base) || /^[a-z0-9]{14,}$/.test(base);
	const tld = domain.slice(domain.lastIndexOf('.') + 1);
	const mx = correction
		? []
		: provider
			? provider.mx
			: isDisposable
				? [`mx.${domain}`]
				: mxOf(domain, random);

	let status: string;
	let detail: string;
	if (correction) {
		[status, detail] = ['undeliverable', 'dns_record_not_found'];
	} else {
		const draw = random.int(100);
		[status, detail] =
			draw < 72
				? ['deliverable', 'valid_email']
				: draw < 80
					? ['deliverable', 'high_traffic_email']
					: draw < 90
						? ['undeliverable', 'invalid_mailbox']
						: draw < 95
							? ['undeliverable', 'full_mailbox']
							: ['undeliverable', 'unavailable_server'];
	}
	const smtpValid = status === 'deliverable';
	const [first, last] =
		/^[a-z]+\.[a-z]+$/.test(base) && !isRole ? base.split('.') : [undefined, undefined];
	const registeredDaysAgo = provider?.registeredDaysAgo ?? random.between(400, 10_000);
	const renewedDaysAgo = random.between(1, 360);
	const [registrar, registrarUrl] = provider?.registrar ?? random.pick(REGISTRARS);
	const isCompany = !provider && !isDisposable && !correction;
	const stem = domain.split('.').slice(-2, -1)[0];
	const score =
		correction || isDisposable
			? random.between(1, 20) / 100
			: smtpValid
				? random.between(60, 99) / 100
				: random.between(10, 55) / 100;
	const riskOf = (value: number) => (value < 0.3 ? 'high' : value < 0.6 ? 'medium' : 'low');

	return {
		email_address: address,
		suggested_correction: correction ? `${local}@${correction}` : null,
		email_deliverability: {
			status,
			status_detail: detail,
			is_format_valid: true,
			is_smtp_valid: smtpValid,
			is_mx_valid: mx.length > 0,
			mx_records: mx,
		},
		email_quality: {
			score,
			is_free_email: Boolean(provider),
			is_username_suspicious: isSuspicious,
			is_disposable: isDisposable,
			is_catchall: isCompany ? random.chance(0.2) : false,
			is_subaddress: local.includes('+'),
			is_role: isRole,
			// A misspelt domain has no DNS at all, so no mail policy either.
			is_dmarc_enforced: provider ? true : !correction && random.chance(0.5),
			is_spf_strict: provider ? true : !correction && random.chance(0.6),
			minimum_age: correction ? null : random.between(30, 4_000),
		},
		email_sender: {
			first_name: first ? titleCase(first) : null,
			last_name: last ? titleCase(last) : null,
			email_provider_name:
				provider?.name ??
				(mx[0]?.includes('google.com')
					? 'Google'
					: mx[0]?.includes('outlook.com')
						? 'Microsoft'
						: null),
			organization_name: isCompany ? `${titleCase(stem)} Inc.` : null,
			organization_type: isCompany ? 'company' : null,
		},
		email_domain: {
			domain,
			domain_age: correction ? null : registeredDaysAgo,
			is_live_site: !correction && (provider !== undefined || random.chance(0.85)),
			registrar: correction ? null : registrar,
			registrar_url: correction ? null : registrarUrl,
			date_registered: correction ? null : dateDaysAgo(registeredDaysAgo),
			date_last_renewed: correction ? null : dateDaysAgo(renewedDaysAgo),
			date_expires: correction ? null : dateDaysAgo(renewedDaysAgo - 365),
			is_risky_tld: RISKY_TLDS.has(tld),
		},
		email_risk: {
			address_risk_status: riskOf(score),
			domain_risk_status:
				isDisposable || correction || RISKY_TLDS.has(tld)
					? 'high'
					: provider
						? 'low'
						: random.pick(['low', 'low', 'medium']),
		},
		// An address at a misspelt domain cannot have been in a breach.
		email_breaches: breachesOf(random, correction ? 0 : random.between(0, 4)),
	};
}
