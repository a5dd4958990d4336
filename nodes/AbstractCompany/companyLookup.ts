import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';

import type { ServiceRequest } from '../shared/engine/types';
import { domainOfValue, readDomainOf } from '../shared/values/domain';
import {
	MAIL_PROVIDER_LABELS,
	mailProviderOf,
	type MailProviderKind,
} from '../shared/values/mailProviders';

/**
 * What Company Enrichment does with one value (the Domain field, or a file's cell): the request
 * for the domain it holds, or no request at all for an email address at a webmail provider.
 */

/** The key of an output item that says which domain was looked up, when the value was an email address, a website, or a domain sent in another form than typed (the record's own `domain` is the service's). */
export const LOOKUP_DOMAIN_KEY = 'lookupDomain';

/** A lookup to send: the request, and the domain to name in its output (the same for every unit sharing the request). */
export interface CompanyRequest {
	request: ServiceRequest;
	/** Set when the domain came out of an email address or a website, or is sent in another form than typed: the output item names it. */
	lookupDomain?: string;
}

/**
 * A value that is not looked up: an email address at a free, disposable or relay provider,
 * whose "company" would be the provider. It has no request, so the node's request key
 * (companyRequestKey) gives it none: it is never counted among the requests of a run, nor
 * shared as an answer.
 */
export interface SkippedLookup {
	/** The provider's domain, named in the output (lookupDomain). */
	domain: string;
	kind: MailProviderKind;
}

export type CompanyLookup = CompanyRequest | SkippedLookup;

export const skipWebmailOption: INodeProperties = {
	displayName: 'Skip Webmail Addresses',
	name: 'skipWebmail',
	type: 'boolean',
	default: true,
	description:
		"Whether an email address at a free, disposable or relay email provider (gmail.com, a throwaway inbox, duck.com) is answered with an item that says so, at no credit, instead of looked up: that domain's company is the provider. A domain typed as a domain (gmail.com) is always looked up.",
};

export interface LookupSetup {
	/** Builds the request for a domain (the `fields` option). */
	request(domain: string): ServiceRequest;
	skipWebmail: boolean;
	/** Whether the output names the domain looked up (not in a result file: its row and answer say it). */
	nameDomain: boolean;
}

/** The lookup for a value; an input error naming `field` for a value that is no domain, email address or website. */
export function companyLookup(
	ctx: IExecuteFunctions,
	itemIndex: number,
	field: string,
	value: unknown,
	setup: LookupSetup,
): CompanyLookup {
	const { domain, form, asTyped } = domainOfValue(ctx, itemIndex, field, value);
	if (form === 'email' && setup.skipWebmail) {
		const kind = mailProviderOf(domain);
		if (kind) return { domain: domain, kind };
	}
	const request = setup.request(domain);
	// A bare domain sent as typed needs no naming; one the URL parser rewrote (punycode, full-width letters) does.
	return (form === 'domain' && asTyped) || !setup.nameDomain
		? { request }
		: { request, lookupDomain: domain };
}

/**
 * The item of a skipped lookup, `{ skipped: 'free email provider', lookupDomain: 'gmail.com' }`;
 * undefined for a lookup to send (the engine's answerWithoutRequest).
 */
export function skippedItems(lookup: CompanyLookup): INodeExecutionData[] | undefined {
	if ('request' in lookup) return undefined;
	return [
		{
			json: {
				skipped: MAIL_PROVIDER_LABELS[lookup.kind],
				[LOOKUP_DOMAIN_KEY]: lookup.domain,
			},
		},
	];
}

/** For a file's header detection: a first-row cell that reads as a domain, email address or website is data, not a column name. */
export const looksLikeCompanyValue = (cell: string) =>
	cell.includes('.') && !('refused' in readDomainOf(cell));

/** A result file row's status for a skipped lookup: "free email provider (gmail.com)". */
export function skippedStatus(record: IDataObject): string {
	return `${String(record.skipped)} (${String(record[LOOKUP_DOMAIN_KEY])})`;
}

/**
 * An info hint above the output when addresses were skipped, so that a person who expected a
 * company for each lead sees why some have none, and how to look them up anyway.
 */
export function addSkippedHint(ctx: IExecuteFunctions, output: INodeExecutionData[][]): void {
	let skipped = 0;
	for (const item of output[0] ?? []) {
		const { json } = item;
		if (typeof json.skipped === 'string' && json[LOOKUP_DOMAIN_KEY] !== undefined) skipped++;
		// A result file's summary counts its own.
		else if (typeof json.skipped === 'number' && item.binary) skipped += json.skipped;
	}
	// n8n 1.x before execution hints has no addExecutionHints.
	if (skipped === 0 || typeof ctx.addExecutionHints !== 'function') return;
	ctx.addExecutionHints({
		message: `${skipped.toLocaleString('en-US')} ${skipped === 1 ? 'email address was' : 'email addresses were'} skipped at no credit: at a free, disposable or relay email provider, the company would be the provider (turn Skip Webmail Addresses off in Options to look them up)`,
		type: 'info',
		location: 'outputPane',
	});
}
