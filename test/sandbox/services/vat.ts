import { createHash } from 'crypto';

import { badRequest } from '../errorBody';
import type { SandboxRequest, SandboxResponse, ServiceModule } from '../types';
import { CATEGORY_DESCRIPTIONS, EU_VAT, VAT_PREFIXES } from './vatRates';
import type { CountryVat } from './vatRates';

/**
 * VAT: GET /v1/categories, /v1/validate and /v1/calculate, paths
 * without a trailing slash as written. VAT data covers the EU member states: any other country
 * code answers 400 naming the country, rather than an empty list, so a lookup for a country
 * without VAT data fails visibly instead of silently giving no items.
 */
export const vat: ServiceModule = {
	name: 'vat',
	keyFrom: ['query'],
	handle(request) {
		if (request.method !== 'GET') return badRequest('Use GET.');
		if (request.path === '/v1/categories') return categories(request);
		if (request.path === '/v1/validate') return validate(request);
		if (request.path === '/v1/calculate') return calculate(request);
		return badRequest('Use GET /v1/categories, /v1/validate or /v1/calculate.');
	},
};

/** The EU country of `country_code`, or the 400 that says why there is none. */
function countryOf(request: SandboxRequest): { code: string; vat: CountryVat } | SandboxResponse {
	const code = request.query.country_code;
	if (!code) return badRequest('Parameter country_code is required.');
	if (!/^[A-Za-z]{2}$/.test(code))
		return badRequest('Parameter country_code must be a two-letter ISO 3166-1 alpha-2 code.');
	const data = EU_VAT[code.toUpperCase()];
	if (!data)
		return badRequest(
			`No VAT data for country "${code}": VAT categories cover the EU member states.`,
		);
	return { code, vat: data };
}

const isResponse = (value: object): value is SandboxResponse => 'status' in value;

function categories(request: SandboxRequest): SandboxResponse {
	const country = countryOf(request);
	if (isResponse(country)) return country;
	const records = [
		{
			country_code: country.code,
			rate: country.vat.standard,
			category: 'standard',
			description: '',
		},
		...Object.entries(country.vat.reduced).map(([category, rate]) => ({
			country_code: country.code,
			rate,
			category,
			description: CATEGORY_DESCRIPTIONS[category],
		})),
	];
	return { status: 200, json: records };
}

const NAMES = [
	'Nordlicht',
	'Alpenblick',
	'Vega Systems',
	'Lumen Trading',
	'Kestrel Foods',
	'Blue Harbour',
];
const LEGAL_FORMS: Record<string, string> = {
	DE: 'GmbH',
	AT: 'GmbH',
	FR: 'SAS',
	SE: 'AB',
	NL: 'B.V.',
	IT: 'S.r.l.',
	ES: 'S.L.',
	PL: 'Sp. z o.o.',
};

function validate(request: SandboxRequest): SandboxResponse {
	const submitted = request.query.vat_number;
	if (!submitted || submitted.trim() === '') return badRequest('Parameter vat_number is required.');
	return { status: 200, json: vatValidation(submitted) };
}

/** A plausible, deterministic answer: valid when the prefix is an EU one and the rest has its form. */
export function vatValidation(submitted: string) {
	const compact = submitted.replace(/\s+/g, '').toUpperCase();
	const code = VAT_PREFIXES[compact.slice(0, 2)];
	const valid = code !== undefined && /^\d[\dA-Z]{7,11}$/.test(compact.slice(2));
	const country = { code: code ?? '', name: code ? EU_VAT[code].name : '' };
	if (!valid)
		return { vat_number: submitted, valid: false, company: { name: '', address: '' }, country };
	const hash = createHash('sha256').update(compact).digest();
	const company = {
		name: `${NAMES[hash[0] % NAMES.length]} ${LEGAL_FORMS[code] ?? 'Ltd'}`,
		address: `Harbour Road ${1 + (hash[1] % 120)}, ${1000 + (hash.readUInt16BE(2) % 9000)} ${country.name}`,
	};
	return { vat_number: submitted, valid: true, company, country };
}

function calculate(request: SandboxRequest): SandboxResponse {
	const {
		amount: amountText,
		is_vat_incl: includedText,
		vat_category: categoryText,
	} = request.query;
	if (amountText === undefined || amountText.trim() === '')
		return badRequest('Parameter amount is required.');
	const amount = Number(amountText);
	if (!Number.isFinite(amount) || amount <= 0)
		return badRequest('Parameter amount must be a number greater than 0.');
	const country = countryOf(request);
	if (isResponse(country)) return country;
	if (includedText !== undefined && includedText !== 'true' && includedText !== 'false') {
		return badRequest('Parameter is_vat_incl must be true or false.');
	}
	const category = categoryText ?? 'standard';
	const rateText = category === 'standard' ? country.vat.standard : country.vat.reduced[category];
	if (rateText === undefined)
		return badRequest(`Unknown vat_category "${category}" for ${country.code}.`);

	const rate = Number(rateText);
	const excluded = includedText === 'true' ? amount / (1 + rate) : amount;
	const included = includedText === 'true' ? amount : amount * (1 + rate);
	return {
		status: 200,
		json: {
			amount_excl_vat: excluded.toFixed(2),
			amount_incl_vat: included.toFixed(2),
			vat_amount: (included - excluded).toFixed(2),
			vat_category: category,
			vat_rate: rateText,
			country: { code: country.code.toUpperCase(), name: country.vat.name },
		},
	};
}
