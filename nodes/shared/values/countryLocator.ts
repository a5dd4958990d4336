import type {
	ILoadOptionsFunctions,
	INodeListSearchItems,
	INodeListSearchResult,
	INodeProperties,
} from 'n8n-workflow';

import { COUNTRY_OPTIONS } from './countries';

/**
 * A country as a searchable list with expressions allowed: n8n's resource locator, with a `list`
 * mode (the service's countries, filtered as the user types) and a `code` mode (a typed code or
 * an expression). The node still validates the resolved code: an expression can give anything.
 */

/** The name under which a node registers `searchCountries` in `methods.listSearch`. */
export const COUNTRY_SEARCH_METHOD = 'searchCountries';

/**
 * The countries whose name or code contains the filter, case-insensitively. An exact code comes
 * first, then names that start with the filter, then the rest in the list's (alphabetical) order.
 */
export function countriesMatching(filter?: string): INodeListSearchItems[] {
	const wanted = (filter ?? '').trim().toLowerCase();
	if (wanted === '') return COUNTRY_OPTIONS.map(({ name, value }) => ({ name, value }));
	const rank = (name: string, code: string) => {
		if (code.toLowerCase() === wanted) return 0;
		if (name.toLowerCase().startsWith(wanted)) return 1;
		return 2;
	};
	return COUNTRY_OPTIONS.filter(({ name }) => name.toLowerCase().includes(wanted))
		.map(({ name, value }) => ({ name, value, rank: rank(name, String(value)) }))
		.sort((a, b) => a.rank - b.rank)
		.map(({ name, value }) => ({ name, value }));
}

/** The `listSearch` method behind the list mode; it reads nothing but the filter. */
export async function searchCountries(
	this: ILoadOptionsFunctions,
	filter?: string,
): Promise<INodeListSearchResult> {
	return { results: countriesMatching(filter) };
}

/** The country parameter: pick from the searchable list, or type a code (or an expression). */
export function countryLocatorProperty(
	fields: Pick<INodeProperties, 'displayName' | 'name' | 'description'> & Partial<INodeProperties>,
): INodeProperties {
	return {
		type: 'resourceLocator',
		default: { mode: 'list', value: '' },
		required: true,
		hint: 'Pick a country from the list, or give its two-letter code such as US',
		modes: [
			{
				displayName: 'From List',
				name: 'list',
				type: 'list',
				placeholder: 'Select a country...',
				typeOptions: { searchListMethod: COUNTRY_SEARCH_METHOD, searchable: true },
			},
			{
				displayName: 'By Code',
				name: 'id',
				type: 'string',
				placeholder: 'e.g. US',
				hint: 'A two-letter ISO 3166-1 alpha-2 code',
				validation: [
					{
						type: 'regex',
						properties: {
							regex: '^\\s*[A-Za-z]{2}\\s*$',
							errorMessage: 'Enter a two-letter country code, for instance US',
						},
					},
				],
			},
		],
		...fields,
	};
}
