/**
 * VAT rates of the EU member states for the VAT sandbox: the standard rate and a few reduced
 * categories each, as decimal fractions with three decimals (form 0.000, as the service writes them).
 */

export const CATEGORY_DESCRIPTIONS: Record<string, string> = {
	books: 'Books (including via loan from libraries), newspapers and periodicals',
	foodstuffs: 'Foodstuffs for human and animal consumption',
	hotels: 'Accommodation provided in hotels and similar establishments',
	medical: 'Pharmaceutical products used for medical and veterinary purposes',
	newspapers: 'Newspapers and periodicals',
	'passenger transport': 'Transport of passengers and their accompanying luggage',
	restaurants: 'Restaurant and catering services',
	water: 'Supply of water',
};

export interface CountryVat {
	name: string;
	standard: string;
	reduced: Record<string, string>;
}

const entry = (name: string, standard: string, reduced: Record<string, string>): CountryVat => ({
	name,
	standard,
	reduced,
});

export const EU_VAT: Record<string, CountryVat> = {
	AT: entry('Austria', '0.200', {
		foodstuffs: '0.100',
		books: '0.100',
		medical: '0.100',
		hotels: '0.130',
		'passenger transport': '0.100',
	}),
	BE: entry('Belgium', '0.210', {
		foodstuffs: '0.060',
		books: '0.060',
		medical: '0.060',
		hotels: '0.060',
		restaurants: '0.120',
		water: '0.060',
	}),
	BG: entry('Bulgaria', '0.200', { hotels: '0.090', books: '0.090' }),
	HR: entry('Croatia', '0.250', {
		foodstuffs: '0.130',
		books: '0.050',
		medical: '0.050',
		hotels: '0.130',
	}),
	CY: entry('Cyprus', '0.190', {
		foodstuffs: '0.050',
		books: '0.050',
		hotels: '0.090',
		restaurants: '0.090',
	}),
	CZ: entry('Czech Republic', '0.210', { foodstuffs: '0.120', books: '0.000', medical: '0.120' }),
	DK: entry('Denmark', '0.250', { newspapers: '0.000' }),
	EE: entry('Estonia', '0.240', { books: '0.090', medical: '0.090', hotels: '0.130' }),
	FI: entry('Finland', '0.255', {
		foodstuffs: '0.140',
		restaurants: '0.140',
		books: '0.100',
		medical: '0.100',
		'passenger transport': '0.100',
	}),
	FR: entry('France', '0.200', {
		foodstuffs: '0.055',
		books: '0.055',
		medical: '0.021',
		hotels: '0.100',
		restaurants: '0.100',
		water: '0.055',
	}),
	DE: entry('Germany', '0.190', {
		foodstuffs: '0.070',
		books: '0.070',
		hotels: '0.070',
		'passenger transport': '0.070',
		water: '0.070',
	}),
	GR: entry('Greece', '0.240', {
		foodstuffs: '0.130',
		books: '0.060',
		medical: '0.060',
		hotels: '0.130',
		restaurants: '0.130',
	}),
	HU: entry('Hungary', '0.270', {
		foodstuffs: '0.180',
		books: '0.050',
		medical: '0.050',
		hotels: '0.180',
	}),
	IE: entry('Ireland', '0.230', {
		foodstuffs: '0.000',
		books: '0.000',
		medical: '0.000',
		hotels: '0.135',
		restaurants: '0.135',
	}),
	IT: entry('Italy', '0.220', {
		foodstuffs: '0.040',
		books: '0.040',
		medical: '0.100',
		hotels: '0.100',
		restaurants: '0.100',
	}),
	LV: entry('Latvia', '0.210', { books: '0.050', medical: '0.120', hotels: '0.120' }),
	LT: entry('Lithuania', '0.210', {
		books: '0.090',
		medical: '0.050',
		hotels: '0.090',
		'passenger transport': '0.090',
	}),
	LU: entry('Luxembourg', '0.170', {
		foodstuffs: '0.030',
		books: '0.030',
		medical: '0.030',
		hotels: '0.030',
		water: '0.030',
	}),
	MT: entry('Malta', '0.180', {
		foodstuffs: '0.000',
		books: '0.050',
		medical: '0.000',
		hotels: '0.070',
	}),
	NL: entry('Netherlands', '0.210', {
		foodstuffs: '0.090',
		books: '0.090',
		medical: '0.090',
		hotels: '0.090',
		water: '0.090',
	}),
	PL: entry('Poland', '0.230', {
		foodstuffs: '0.050',
		books: '0.050',
		medical: '0.080',
		hotels: '0.080',
		restaurants: '0.080',
	}),
	PT: entry('Portugal', '0.230', {
		foodstuffs: '0.060',
		books: '0.060',
		medical: '0.060',
		hotels: '0.060',
		restaurants: '0.130',
	}),
	RO: entry('Romania', '0.210', {
		foodstuffs: '0.110',
		books: '0.110',
		medical: '0.110',
		hotels: '0.110',
	}),
	SK: entry('Slovakia', '0.230', {
		foodstuffs: '0.050',
		books: '0.050',
		medical: '0.050',
		hotels: '0.050',
	}),
	SI: entry('Slovenia', '0.220', {
		foodstuffs: '0.095',
		books: '0.050',
		medical: '0.095',
		hotels: '0.095',
	}),
	ES: entry('Spain', '0.210', {
		foodstuffs: '0.100',
		books: '0.040',
		medical: '0.040',
		hotels: '0.100',
		restaurants: '0.100',
	}),
	SE: entry('Sweden', '0.250', {
		foodstuffs: '0.120',
		books: '0.060',
		restaurants: '0.120',
		hotels: '0.120',
		'passenger transport': '0.060',
	}),
};

/** VAT numbers carry the ISO code as prefix, except Greece's (EL). */
export const VAT_PREFIXES: Record<string, string> = {
	...Object.fromEntries(
		Object.keys(EU_VAT)
			.filter((code) => code !== 'GR')
			.map((code) => [code, code]),
	),
	EL: 'GR',
};
