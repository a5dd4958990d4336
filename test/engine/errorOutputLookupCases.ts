import { VALID_IBANS } from './ibanRun';
import {
	carrying,
	keyOfAnotherService,
	lasting,
	nodeRun,
	valueItems,
	type Case,
} from './errorOutputMatrix';

/**
 * The error-output matrix's cases (errorOutput.test.ts runs them) for the lookup nodes that take
 * one value per item: Phone and Email (Value input; their CSV input is errorOutputCsvCases.ts's),
 * IP Geolocation, Company, Public Holidays, VAT and IBAN.
 */

/** Paced to one request a second, so one request is in flight at a time and the quota's order is fixed. */
const oneAtATime = () => ({ requestsPerSecond: 1 });

/** The descriptions of the errors that recur: the service's own words, and an item the used-up plan kept back. */
const NO_CREDITS = 'The service said: "Insufficient API credits for this request."';
const ITEM_3_KEPT_BACK =
	'Item 3 was not sent, so it cost nothing. Add credits or upgrade the plan, then run again for what was not sent.';

export const LOOKUP_CASES: Case[] = [
	{
		name: 'Phone (Value): an empty number between two good ones',
		path: 'invalid input',
		service: 'phone',
		foundInInput: true,
		units: [
			{ item: 0 },
			{
				item: 1,
				fails: /^Invalid Phone \(phone\): is required/,
				describedAs: 'Item 2 was not sent, so it cost no credit. Fix Phone (phone) and run again.',
			},
			{ item: 2 },
		],
		run: nodeRun(
			{
				type: 'abstractPhone',
				service: 'phone',
				parameters: { phone: '={{ $json.phone }}', options: {} },
			},
			valueItems('phone', ['+14152007986', '', '+442079460018']),
		),
	},
	{
		name: 'Phone (Value): one credit left for three numbers',
		path: 'plan exhausted',
		service: 'phone',
		arrange: (box) => box.setQuota('phone', 1),
		stopDescribes: /Discarded: 1 item already answered \(and charged\)/,
		units: [
			{ item: 0 },
			{
				item: 1,
				fails: /credits for Phone Intelligence are used up \(422\)/,
				describedAs: NO_CREDITS,
			},
			{
				item: 2,
				fails: /^Item 3 was not sent: the plan's API credits/,
				describedAs: ITEM_3_KEPT_BACK,
			},
		],
		run: nodeRun(
			{
				type: 'abstractPhone',
				service: 'phone',
				credential: oneAtATime,
				parameters: { phone: '={{ $json.phone }}', options: {} },
			},
			valueItems('phone', ['+14152007986', '+442079460018', '+33142685300']),
		),
	},
	{
		name: 'Email (Value): an empty address between two good ones',
		path: 'invalid input',
		service: 'email',
		foundInInput: true,
		units: [
			{ item: 0 },
			{
				item: 1,
				fails: /^Invalid Email \(email\): is required/,
				describedAs: 'Item 2 was not sent, so it cost no credit. Fix Email (email) and run again.',
			},
			{ item: 2 },
		],
		run: nodeRun(
			{
				type: 'abstractEmail',
				service: 'email',
				parameters: { email: '={{ $json.email }}', options: {} },
			},
			valueItems('email', ['ann@acme.io', '', 'bob@acme.io']),
		),
	},
	{
		name: 'Email (Value): the plan runs out and the service answers 403',
		path: 'plan exhausted',
		service: 'email',
		arrange: (box) => box.setQuota('email', 1, 403),
		stopDescribes: /Discarded: 1 item already answered \(and charged\)/,
		units: [
			{ item: 0 },
			{
				item: 1,
				fails: /credits for Email Reputation are used up \(403\)/,
				describedAs: NO_CREDITS,
			},
			{
				item: 2,
				fails: /^Item 3 was not sent: the plan's API credits/,
				describedAs: ITEM_3_KEPT_BACK,
			},
		],
		run: nodeRun(
			{
				type: 'abstractEmail',
				service: 'email',
				credential: oneAtATime,
				parameters: { email: '={{ $json.email }}', options: {} },
			},
			valueItems('email', ['ann@acme.io', 'bob@acme.io', 'cy@acme.io']),
		),
	},
	{
		name: 'IP Geolocation: a value that is not an IP address',
		path: 'invalid input',
		service: 'geo',
		foundInInput: true,
		units: [
			{ item: 0 },
			{
				item: 1,
				fails: /^Invalid IP Address \(ipAddress\): must be an IPv4 address .*; got "not-an-ip"/,
				describedAs:
					'Item 2 was not sent, so it cost no credit. Fix IP Address (ipAddress) and run again.',
			},
			{ item: 2 },
		],
		run: nodeRun(
			{
				type: 'abstractIpGeolocation',
				service: 'geo',
				parameters: { ipAddress: '={{ $json.ip }}', options: {} },
			},
			valueItems('ip', ['8.8.8.8', 'not-an-ip', '1.1.1.1']),
		),
	},
	{
		name: 'IP Geolocation: the service fails on one address for as long as it is retried (500)',
		path: 'service error after retries',
		service: 'geo',
		arrange: (box) => box.faultWhen('geo', carrying('9.9.9.9'), lasting(500)),
		units: [
			{ item: 0 },
			{ item: 1, fails: /\(500\)/, describedAs: 'The service said: "Internal server error."' },
			{ item: 2 },
		],
		run: nodeRun(
			{
				type: 'abstractIpGeolocation',
				service: 'geo',
				parameters: { ipAddress: '={{ $json.ip }}', options: {} },
			},
			valueItems('ip', ['8.8.8.8', '9.9.9.9', '1.1.1.1']),
		),
	},
	{
		name: 'Company: an empty domain',
		path: 'invalid input',
		service: 'company',
		foundInInput: true,
		units: [
			{ item: 0 },
			{
				item: 1,
				fails: /^Invalid Domain \(domain\): is required/,
				describedAs:
					'Item 2 was not sent, so it cost no credit. Fix Domain (domain) and run again.',
			},
			{ item: 2 },
		],
		run: nodeRun(
			{
				type: 'abstractCompany',
				service: 'company',
				parameters: { domain: '={{ $json.domain }}', options: {} },
			},
			valueItems('domain', ['acme.io', '', 'example.com']),
		),
	},
	{
		name: 'Company: a key of another service',
		path: 'refused key',
		service: 'company',
		units: [0, 1, 2].map((item) => ({
			item,
			fails: /API key was rejected \(401\)/,
			describedAs: 'The service said: "Invalid API key provided."',
		})),
		run: nodeRun(
			{
				type: 'abstractCompany',
				service: 'company',
				credential: keyOfAnotherService('vat'),
				parameters: { domain: '={{ $json.domain }}', options: {} },
			},
			valueItems('domain', ['acme.io', 'stripe.com', 'example.com']),
		),
	},
	{
		name: 'Public Holidays: an unknown country between two known ones (several holidays per answer)',
		path: 'invalid input',
		service: 'holidays',
		foundInInput: true,
		// The sandbox's calendars for 2025: 10 holidays in Germany, 13 in the United States.
		units: [
			{ item: 0, answers: 10 },
			{
				item: 1,
				fails: /^Invalid Country \(country\)/,
				describedAs:
					'Item 2 was not sent, so it cost no credit. Fix Country (country) and run again.',
			},
			{ item: 2, answers: 13 },
		],
		run: nodeRun(
			{
				type: 'abstractHolidays',
				service: 'holidays',
				parameters: {
					country: { __rl: true, mode: 'id', value: '={{ $json.country }}' },
					options: { year: '2025' },
				},
			},
			valueItems('country', ['DE', 'XX', 'US']),
		),
	},
	{
		name: 'VAT (Get Categories): an unknown country (several categories per answer)',
		path: 'invalid input',
		service: 'vat',
		foundInInput: true,
		// The sandbox's rates: Germany's standard rate and 5 reduced ones, France's and 6.
		units: [
			{ item: 0, answers: 6 },
			{
				item: 1,
				fails: /^Invalid Country \(countryCode\)/,
				describedAs:
					'Item 2 was not sent, so it cost no credit. Fix Country (countryCode) and run again.',
			},
			{ item: 2, answers: 7 },
		],
		run: nodeRun(
			{
				type: 'abstractVat',
				service: 'vat',
				parameters: { countryCode: { __rl: true, mode: 'id', value: '={{ $json.country }}' } },
			},
			valueItems('country', ['de', 'ZZ', 'FR']),
		),
	},
	{
		name: 'IBAN: a blank IBAN',
		path: 'invalid input',
		service: 'iban',
		foundInInput: true,
		units: [
			{ item: 0 },
			{
				item: 1,
				fails: /^Invalid IBAN \(iban\): is required/,
				describedAs: 'Item 2 was not sent, so it cost no credit. Fix IBAN (iban) and run again.',
			},
			{ item: 2 },
		],
		run: nodeRun(
			{ type: 'abstractIban', service: 'iban', parameters: { iban: '={{ $json.iban }}' } },
			valueItems('iban', [VALID_IBANS[0], '   ', VALID_IBANS[1]]),
		),
	},
	{
		name: 'IBAN: the service is unavailable for one IBAN for as long as it is retried (503)',
		path: 'service error after retries',
		service: 'iban',
		arrange: (box) => box.faultWhen('iban', carrying(VALID_IBANS[2]), lasting(503)),
		units: [
			{ item: 0 },
			{
				item: 1,
				fails: /\(503\)/,
				describedAs: 'The service said: "Service temporarily unavailable."',
			},
			{ item: 2 },
		],
		run: nodeRun(
			{ type: 'abstractIban', service: 'iban', parameters: { iban: '={{ $json.iban }}' } },
			valueItems('iban', [VALID_IBANS[0], VALID_IBANS[2], VALID_IBANS[1]]),
		),
	},
];
