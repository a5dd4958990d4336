import { badRequest, errorResponse } from '../errorBody';
import type { ServiceModule } from '../types';
import { onlyFields } from './onlyFields';
import { seeded } from './seeded';

/**
 * Company enrichment (API version 2, /v2/): a bare domain in, the full record out (or
 * the keys `fields` names). The record is derived from the domain: its name from the domain's
 * first label, a hash choosing industry, size, headquarters and listing.
 */
export const company: ServiceModule = {
	name: 'company',
	keyFrom: ['query'],
	handle(request) {
		if (request.path !== '/v2/')
			return errorResponse(404, `No endpoint ${request.path}; use /v2/.`, 'not_found');
		if (request.method !== 'GET') return badRequest('Use GET /v2/.');
		const domain = request.query.domain?.trim();
		if (!domain) return badRequest('Parameter domain is required.', { parameter: 'domain' });
		if (!/^[^\s/:?#@]+\.[^\s/:?#@.]+$/.test(domain)) {
			return badRequest('Parameter domain must be a domain such as example.com.', {
				parameter: 'domain',
			});
		}
		return onlyFields(companyRecord(domain), request.query.fields);
	},
};

interface Industry {
	name: string;
	sic: string;
	naics: string;
	tags: string[];
	does: string;
}

const INDUSTRIES: Industry[] = [
	{
		name: 'Computer Software',
		sic: '7372',
		naics: '511210',
		tags: ['SaaS', 'B2B', 'Cloud Software'],
		does: 'builds cloud software that helps teams automate their daily work',
	},
	{
		name: 'Information Technology and Services',
		sic: '7374',
		naics: '518210',
		tags: ['IT Services', 'Consulting', 'B2B'],
		does: 'runs managed IT and data services for mid-sized businesses',
	},
	{
		name: 'Financial Services',
		sic: '6199',
		naics: '522320',
		tags: ['Fintech', 'Payments', 'B2B'],
		does: 'offers payment processing and financial tools for online businesses',
	},
	{
		name: 'Retail',
		sic: '5961',
		naics: '454110',
		tags: ['E-commerce', 'Consumer Goods', 'Retail'],
		does: 'sells consumer goods online and through its own stores',
	},
	{
		name: 'Marketing and Advertising',
		sic: '7311',
		naics: '541810',
		tags: ['Marketing', 'Advertising', 'Agency'],
		does: 'plans and runs digital marketing campaigns for consumer brands',
	},
	{
		name: 'Hospital & Health Care',
		sic: '8011',
		naics: '621111',
		tags: ['Healthcare', 'Clinics', 'Telehealth'],
		does: 'operates outpatient clinics and a telehealth service',
	},
];

interface Headquarters {
	street: string;
	city: string;
	state: string;
	country: string;
	isoCode: string;
	postalCode: string;
	latitude: number;
	longitude: number;
	dialPrefix: string;
	exchange: string;
}

const HEADQUARTERS: Headquarters[] = [
	{
		street: '548 Market St',
		city: 'San Francisco',
		state: 'California',
		country: 'United States',
		isoCode: 'US',
		postalCode: '94104',
		latitude: 37.7897,
		longitude: -122.4011,
		dialPrefix: '+1 415',
		exchange: 'NASDAQ',
	},
	{
		street: '350 5th Ave',
		city: 'New York',
		state: 'New York',
		country: 'United States',
		isoCode: 'US',
		postalCode: '10118',
		latitude: 40.7484,
		longitude: -73.9857,
		dialPrefix: '+1 212',
		exchange: 'NYSE',
	},
	{
		street: '10 Finsbury Square',
		city: 'London',
		state: 'England',
		country: 'United Kingdom',
		isoCode: 'GB',
		postalCode: 'EC2A 1AF',
		latitude: 51.5202,
		longitude: -0.0865,
		dialPrefix: '+44 20',
		exchange: 'LSE',
	},
	{
		street: 'Friedrichstrasse 68',
		city: 'Berlin',
		state: 'Berlin',
		country: 'Germany',
		isoCode: 'DE',
		postalCode: '10117',
		latitude: 52.5096,
		longitude: 13.3896,
		dialPrefix: '+49 30',
		exchange: 'XETRA',
	},
	{
		street: '100 King St W',
		city: 'Toronto',
		state: 'Ontario',
		country: 'Canada',
		isoCode: 'CA',
		postalCode: 'M5X 1A9',
		latitude: 43.6487,
		longitude: -79.3817,
		dialPrefix: '+1 416',
		exchange: 'TSX',
	},
	{
		street: '1 Martin Place',
		city: 'Sydney',
		state: 'New South Wales',
		country: 'Australia',
		isoCode: 'AU',
		postalCode: '2000',
		latitude: -33.8679,
		longitude: 151.2101,
		dialPrefix: '+61 2',
		exchange: 'ASX',
	},
];

const SIZES = [
	{
		employees: 38,
		range: '11-50',
		revenue: '$6M',
		revenueRange: '$1M-$10M',
		ranking: [400_000, 999_999],
	},
	{
		employees: 260,
		range: '201-500',
		revenue: '$45M',
		revenueRange: '$10M-$50M',
		ranking: [60_000, 399_999],
	},
	{
		employees: 1_900,
		range: '1K-5K',
		revenue: '$320M',
		revenueRange: '$250M-$500M',
		ranking: [5_000, 59_999],
	},
	{
		employees: 7_400,
		range: '5K-10K',
		revenue: '$1.4B',
		revenueRange: '$1B-$10B',
		ranking: [100, 4_999],
	},
] as const;

const TECHNOLOGIES = [
	'Google Analytics',
	'Google Tag Manager',
	'HubSpot',
	'Salesforce',
	'Stripe',
	'React',
	'Cloudflare',
	'Amazon Web Services',
	'Zendesk',
	'Intercom',
	'WordPress',
	'Shopify',
	'Segment',
	'Hotjar',
];

const titleCase = (word: string) => word.charAt(0).toUpperCase() + word.slice(1);

/** The company record for a domain. */
export function companyRecord(submitted: string) {
	const domain = submitted.toLowerCase();
	const random = seeded(`company\n${domain}`);
	const stem = domain.replace(/^www\./, '').split('.')[0];
	const industry = random.pick(INDUSTRIES);
	const hq = random.pick(HEADQUARTERS);
	const size = random.pick(SIZES);
	const isPublic = size.employees > 1_000 && random.chance(0.5);
	const name = `${titleCase(stem)}${random.pick(['', ' Inc.', ' Technologies', ' Group', ' Labs'])}`;
	return {
		domain,
		company_name: name,
		description: `${name} ${industry.does}.`,
		logo: `https://logo.abstractapi.com/${domain}.png`,
		year_founded: String(random.between(1975, 2021)),
		street_address: hq.street,
		city: hq.city,
		state: hq.state,
		country: hq.country,
		country_iso_code: hq.isoCode,
		postal_code: hq.postalCode,
		latitude: hq.latitude,
		longitude: hq.longitude,
		sic_code: industry.sic,
		naics_code: industry.naics,
		industry: industry.name,
		employee_count: size.employees,
		employee_range: size.range,
		annual_revenue: size.revenue,
		revenue_range: size.revenueRange,
		phone_numbers: [`${hq.dialPrefix} ${random.between(200, 999)} ${random.between(1000, 9999)}`],
		email_addresses: [
			`info@${domain}`,
			...(random.chance(0.6) ? [`press@${domain}`] : []),
			`sales@${domain}`,
		],
		type: isPublic ? 'public' : 'private',
		ticker: isPublic ? stem.slice(0, 4).toUpperCase() : null,
		exchange: isPublic ? hq.exchange : null,
		global_ranking: String(random.between(size.ranking[0], size.ranking[1])),
		tags: [...industry.tags],
		technologies: random.some(TECHNOLOGIES, random.between(3, 6)),
		linkedin_url: `linkedin.com/company/${stem}`,
		facebook_url: `facebook.com/${stem}`,
		twitter_url: `twitter.com/${stem}`,
		instagram_url: `instagram.com/${stem}`,
		crunchbase_url: `crunchbase.com/organization/${stem}`,
	};
}
