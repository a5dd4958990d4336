import {
	DISPOSABLE_MAIL_DOMAINS,
	FREE_MAIL_DOMAINS,
	RELAY_MAIL_DOMAINS,
} from './mailProviderLists';

/**
 * Which kind of email provider a domain belongs to, for the addresses whose domain says nothing
 * about the person's company (Company Enrichment skips them): a free provider (webmail, an
 * internet provider's mailbox), a disposable (throwaway) one, or a privacy relay. The lists and
 * how they are curated: mailProviderLists.ts and scripts/refreshMailProviders.ts.
 */
export type MailProviderKind = 'free' | 'disposable' | 'relay';

/** How an item names the kind when it skips a lookup ("skipped: free email provider"). */
export const MAIL_PROVIDER_LABELS: Readonly<Record<MailProviderKind, string>> = {
	free: 'free email provider',
	disposable: 'disposable email provider',
	relay: 'email relay service',
};

let kinds: Map<string, MailProviderKind> | undefined;

/**
 * The lists as one map, made the first time an address is checked: a node run that never
 * reads an email address never holds them (n8n Cloud's smallest plan has 320 MiB for everything).
 * Relay wins over disposable, and disposable over free, where lists overlap.
 */
function kindsByDomain(): Map<string, MailProviderKind> {
	if (kinds) return kinds;
	const map = new Map<string, MailProviderKind>();
	const add = (list: string, kind: MailProviderKind) => {
		for (const domain of list.split('\n')) if (domain) map.set(domain, kind);
	};
	add(FREE_MAIL_DOMAINS, 'free');
	add(DISPOSABLE_MAIL_DOMAINS, 'disposable');
	add(RELAY_MAIL_DOMAINS, 'relay');
	kinds = map;
	return map;
}

/**
 * The kind of provider `domain` (lower-case, as domainOfValue gives it) belongs to, or undefined
 * for any other domain. A subdomain counts as its parent's (`x.mozmail.com`, `mail.yahoo.co.uk`
 * as yahoo.co.uk): providers hand out addresses under their subdomains.
 */
export function mailProviderOf(domain: string): MailProviderKind | undefined {
	const map = kindsByDomain();
	let at = 0;
	let rest = domain;
	while (rest.includes('.')) {
		const kind = map.get(rest);
		if (kind) return kind;
		at = rest.indexOf('.');
		rest = rest.slice(at + 1);
	}
	return undefined;
}
