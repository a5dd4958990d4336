import { databaseFileOf } from '../sandbox/ipDatabases/archives';
import { lookUp } from '../nodes/ipLookupHelpers';
import { databaseControls } from '../sandbox/services/database';
import {
	carrying,
	keyOfAnotherService,
	lasting,
	nodeRun,
	valueItems,
	type Case,
} from './errorOutputMatrix';

/**
 * The error-output matrix's cases (errorOutput.test.ts runs them) for the nodes whose answers are
 * files or come from files: Image Processing, Avatars, Website Screenshot, IP Database Download
 * and IP Database Lookup. The lookup node's failures are covered one by one in
 * test/nodes/ipLookupErrors.test.ts; here it has one light case, so that the matrix holds all
 * twelve nodes.
 */
const oneAtATime = () => ({ requestsPerSecond: 1 });
const images = {
	type: 'abstractImages',
	service: 'images',
	parameters: { source: 'url', url: '={{ $json.url }}' },
};
const avatars = {
	type: 'abstractAvatars',
	service: 'avatars',
	parameters: { name: '={{ $json.name }}' },
};
const screenshot = {
	type: 'abstractScreenshot',
	service: 'screenshot',
	parameters: { url: '={{ $json.url }}' },
};
const ipDatabase = {
	type: 'abstractIpDatabase',
	service: 'api',
	parameters: { database: '={{ $json.database }}', format: 'csv', output: 'archive' },
};
const ips = ['8.8.8.8', '999.1.1.1', '1.1.1.1'];
/** The description of a lookup whose database file the node cannot read. */
const NOT_A_DATABASE =
	'The database file "database" could not be used; nothing was looked up. Give the node the .mmdb or .csv file from the IP Database Download node (Output: Database File).';

export const FILE_CASES: Case[] = [
	{
		name: 'Image Processing: an empty image URL',
		path: 'invalid input',
		service: 'images',
		foundInInput: true,
		units: [
			{ item: 0 },
			{
				item: 1,
				fails: /^Invalid Image URL \(url\)/,
				describedAs:
					'Item 2 was not sent, so it cost no credit. Fix Image URL (url) and run again.',
			},
			{ item: 2 },
		],
		run: nodeRun(
			images,
			valueItems('url', ['https://cdn.example.com/a.jpg', '', 'https://cdn.example.com/b.png']),
		),
	},
	{
		name: 'Image Processing: one credit left for three images',
		path: 'plan exhausted',
		service: 'images',
		arrange: (box) => box.setQuota('images', 1),
		units: [
			{ item: 0 },
			{
				item: 1,
				fails: /used up \(422\)/,
				describedAs: 'The service said: "Insufficient API credits for this request."',
			},
			{
				item: 2,
				fails: /^Item 3 was not sent: the plan's API credits/,
				describedAs:
					'Item 3 was not sent, so it cost nothing. Add credits or upgrade the plan, then run again for what was not sent.',
			},
		],
		run: nodeRun(
			{ ...images, credential: oneAtATime },
			valueItems('url', [
				'https://cdn.example.com/a.jpg',
				'https://cdn.example.com/b.png',
				'https://cdn.example.com/c.jpg',
			]),
		),
	},
	{
		name: 'Avatars: an empty name',
		path: 'invalid input',
		service: 'avatars',
		foundInInput: true,
		units: [
			{ item: 0 },
			{
				item: 1,
				fails: /^Invalid Name \(name\): is required/,
				describedAs: 'Item 2 was not sent, so it cost no credit. Fix Name (name) and run again.',
			},
			{ item: 2 },
		],
		run: nodeRun(avatars, valueItems('name', ['Ada Lovelace', '', 'Grace Hopper'])),
	},
	{
		name: 'Avatars: a key of another service',
		path: 'refused key',
		service: 'avatars',
		units: [0, 1, 2].map((item) => ({
			item,
			fails: /API key was rejected \(401\)/,
			describedAs: 'The service said: "Invalid API key provided."',
		})),
		run: nodeRun(
			{ ...avatars, credential: keyOfAnotherService('screenshot') },
			valueItems('name', ['Ada Lovelace', 'Alan Turing', 'Grace Hopper']),
		),
	},
	{
		name: 'Website Screenshot: a value that is not a URL',
		path: 'invalid input',
		service: 'screenshot',
		foundInInput: true,
		units: [
			{ item: 0 },
			{
				item: 1,
				fails: /^Invalid URL \(url\)/,
				describedAs: 'Item 2 was not sent, so it cost no credit. Fix URL (url) and run again.',
			},
			{ item: 2 },
		],
		run: nodeRun(
			screenshot,
			valueItems('url', ['https://example.com/pricing', 'not a url', 'https://example.com/']),
		),
	},
	{
		name: 'Website Screenshot: the service fails on one page for as long as it is retried (500)',
		path: 'service error after retries',
		service: 'screenshot',
		arrange: (box) =>
			box.faultWhen('screenshot', carrying('https://example.com/broken'), lasting(500)),
		units: [
			{ item: 0 },
			{ item: 1, fails: /\(500\)/, describedAs: 'The service said: "Internal server error."' },
			{ item: 2 },
		],
		run: nodeRun(
			screenshot,
			valueItems('url', [
				'https://example.com/pricing',
				'https://example.com/broken',
				'https://example.com/',
			]),
		),
	},
	{
		name: 'IP Database Download: an unknown database',
		path: 'invalid input',
		service: 'api',
		foundInInput: true,
		units: [
			{ item: 0 },
			{
				item: 1,
				fails: /^Invalid Database \(database\)/,
				describedAs:
					'Item 2 was not sent, so it cost no credit. Fix Database (database) and run again.',
			},
			{ item: 2 },
		],
		run: nodeRun(ipDatabase, valueItems('database', ['ip-asn', 'ip-nothing', 'ip-security'])),
	},
	{
		name: 'IP Database Download: a key of another service',
		path: 'refused key',
		service: 'api',
		// The download service answers one 403 for an unknown key and a missing entitlement alike.
		units: [0, 1].map((item) => ({
			item,
			fails: /^The IP database download was refused \(403\)/,
			describedAs: 'The service said: "Forbidden: this key may not download this database."',
		})),
		run: nodeRun(
			{ ...ipDatabase, credential: keyOfAnotherService('vat') },
			valueItems('database', ['ip-asn', 'ip-security']),
		),
	},
	{
		name: 'IP Database Download: the first of three archives arrives broken',
		path: 'broken or missing database',
		service: 'api',
		arrange: (box) => databaseControls(box).failNextDownload('corrupted'),
		units: [
			{
				item: 0,
				fails: /is broken: its gzip data is broken/,
				describedAs:
					'Nothing was output, so no broken file reaches the next step. Run the node again to download a fresh copy; the link is asked for anew each time.',
			},
			{ item: 1 },
			{ item: 2 },
		],
		// One download at a time, so that the broken link is the first item's.
		run: nodeRun(
			{ ...ipDatabase, credential: oneAtATime },
			valueItems('database', ['ip-asn', 'ip-security', 'ip-geolocation']),
		),
	},
	{
		name: 'IP Database Lookup: an invalid address (the other failures: test/nodes/ipLookupErrors.test.ts)',
		path: 'invalid input',
		service: 'none',
		units: [
			{ item: 0 },
			{
				item: 1,
				fails: /^Invalid IP Address \(ipAddress\): "999.1.1.1" is not an IPv4 address/,
				describedAs: 'Item 2 was not looked up. Fix IP Address (ipAddress) and run again.',
			},
			{ item: 2 },
		],
		// Its items come from a node of the test's own: n8n merges each one's address and mark.
		inputJson: (item) => ({ ip: ips[item], mark: 'kept' }),
		run: async (_sandbox, onError) => {
			const result = await lookUp({
				file: { bytes: databaseFileOf('ip-asn', 'mmdb', 1) },
				ips,
				itemJson: { mark: 'kept' },
				onError,
			});
			return { ...result, errorItems: result.errors };
		},
	},
	{
		name: 'IP Database Lookup: a file that is no database',
		path: 'broken or missing database',
		service: 'none',
		units: [0, 1, 2].map((item) => ({
			item,
			fails: /^The file is neither an MMDB database/,
			describedAs: NOT_A_DATABASE,
		})),
		stopsWith: /"999.1.1.1" is not an IPv4 address|The file is neither an MMDB database/,
		inputJson: (item) => ({ ip: ['8.8.8.8', '1.1.1.1', '9.9.9.9'][item] }),
		run: async (_sandbox, onError) => {
			const result = await lookUp({
				file: { bytes: Buffer.from('hello,world\r\n1,2\r\n') },
				ips: ['8.8.8.8', '1.1.1.1', '9.9.9.9'],
				onError,
			});
			return { ...result, errorItems: result.errors };
		},
	},
];
