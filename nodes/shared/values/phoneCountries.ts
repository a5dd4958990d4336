import type { INodePropertyOptions } from 'n8n-workflow';

import { ISO_COUNTRY_CODES } from './isoCountryCodes';

/**
 * The countries Phone Intelligence's Country option offers: every ISO 3166-1 alpha-2 code (the
 * phone service takes "the ISO country code of the number"), not the holidays service's list,
 * which files Russia under RE and the Bahamas under BH. Each name is the platform's own English
 * name for the code (`Intl.DisplayNames`, from the ICU data Node ships), so no list of names is
 * kept here to go stale.
 */
export const PHONE_COUNTRY_CODES: ReadonlySet<string> = new Set(ISO_COUNTRY_CODES.split(' '));

const regionNames = new Intl.DisplayNames(['en'], { type: 'region', fallback: 'code' });

/** The English name of a code ("Russia" for RU), the code itself where the platform has none. */
export const countryName = (code: string): string => regionNames.of(code) ?? code;

/** A name without its accents ("Reunion" for "Réunion"): the editor's list filter matches typed text letter for letter. */
const withoutAccents = (name: string) => name.normalize('NFD').replace(/\p{M}/gu, '');

/**
 * An option's label: the name and the code, "Russia (RU)"; a name with accents also shows them
 * left out, "Réunion (Reunion, RE)", so that typing "reunion" or "aland" in the list finds it.
 */
export function countryLabel(code: string): string {
	const name = countryName(code);
	const plain = withoutAccents(name);
	return plain === name ? `${name} (${code})` : `${name} (${plain}, ${code})`;
}

/** The codes as n8n options, sorted by name, each showing its code: "Russia (RU)". */
export const PHONE_COUNTRY_OPTIONS: INodePropertyOptions[] = [...PHONE_COUNTRY_CODES]
	.map((code) => ({ name: countryLabel(code), value: code }))
	.sort((a, b) => a.name.localeCompare(b.name, 'en'));
