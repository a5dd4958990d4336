import { databaseFileOf, databaseFileName } from '../sandbox/ipDatabases/archives';
import type { DatabaseId, FormatId } from '../sandbox/ipDatabases/records';
import { cacheStats, lookUp, type DatabaseFileSpec } from './ipLookupHelpers';

/**
 * One lookup, the whole answer: the lookup node given the geolocation, ASN and security databases
 * together (from earlier nodes or from the item, MMDB and CSV mixed), through n8n-core.
 */
const file = (
	database: DatabaseId,
	format: FormatId,
	build = 1,
	binaryPropertyName?: string,
): DatabaseFileSpec => ({
	bytes: databaseFileOf(database, format, build),
	fileName: databaseFileName(database, format),
	binaryPropertyName,
});

/** Database File (geolocation, MMDB), ASN File (CSV), Security File (MMDB). */
const threeFiles = (build = 1) => ({
	file: file('ip-geolocation', 'mmdb', build),
	moreFiles: {
		'ASN File': file('ip-asn', 'csv', build),
		'Security File': file('ip-security', 'mmdb', build),
	},
});

const more = (...nodes: string[]) => ({
	databases: nodes.map((name) => ({
		databaseSource: 'fromNode',
		databaseNode: `={{ $('${name}').first() }}`,
		binaryPropertyName: 'data',
	})),
});

const IPS = ['8.8.8.8', '185.220.101.4', '104.16.132.7', '10.0.0.7'];

const NULL_LOCATION = {
	city: null,
	city_geoname_id: null,
	region: null,
	region_iso_code: null,
	region_geoname_id: null,
	postal_code: null,
	country: null,
	country_code: null,
	country_geoname_id: null,
	country_is_eu: null,
	continent: null,
	continent_code: null,
	continent_geoname_id: null,
	longitude: null,
	latitude: null,
	timezone: { name: null },
};
const NO_FLAGS = {
	is_vpn: false,
	is_proxy: false,
	is_tor: false,
	is_hosting: false,
	is_relay: false,
	is_mobile: false,
	is_abuse: false,
};

describe('IP Database Lookup: three databases, one answer', () => {
	it('Like the API: location, connection and security together; a database that does not list the address leaves its part null (flags false)', async () => {
		const run = await lookUp({
			...threeFiles(),
			ips: IPS,
			parameters: { outputShape: 'likeTheApi', moreDatabases: more('ASN File', 'Security File') },
		});
		expect(run.error).toBeUndefined();
		expect(run.items.map((item) => item.pairedItem)).toEqual(IPS.map((_ip, item) => ({ item })));
		expect(run.items[0].json).toEqual({
			ip_address: '8.8.8.8',
			city: 'Mountain View',
			city_geoname_id: 5375480,
			region: 'California',
			region_iso_code: 'CA',
			region_geoname_id: 5332921,
			postal_code: '94043',
			country: 'United States',
			country_code: 'US',
			country_geoname_id: 6252001,
			country_is_eu: false,
			continent: 'North America',
			continent_code: 'NA',
			continent_geoname_id: 6255149,
			longitude: -122.0775,
			latitude: 37.4056,
			timezone: { name: 'America/Los_Angeles' },
			connection: { autonomous_system_number: 15169, autonomous_system_organization: 'Google LLC' },
			security: NO_FLAGS,
		});
		expect(run.items[1].json).toEqual({
			ip_address: '185.220.101.4',
			...NULL_LOCATION,
			connection: { autonomous_system_number: null, autonomous_system_organization: null },
			security: { ...NO_FLAGS, is_tor: true, is_abuse: true },
		});
		expect(run.items[2].json.security).toEqual({ ...NO_FLAGS, is_hosting: true, is_proxy: true });
		expect(run.items[3].json).toEqual({
			ip_address: '10.0.0.7',
			...NULL_LOCATION,
			connection: { autonomous_system_number: null, autonomous_system_organization: null },
			security: NO_FLAGS,
			found: false,
			reason: 'No network of the ip-geolocation, ip-asn, ip-security databases covers 10.0.0.7',
		});
	});

	it('the same answers whichever formats and order the databases come in (CSV geolocation, MMDB ASN, CSV security, security first)', async () => {
		const mmdbFirst = await lookUp({
			...threeFiles(),
			ips: IPS,
			parameters: { outputShape: 'likeTheApi', moreDatabases: more('ASN File', 'Security File') },
		});
		const mixed = await lookUp({
			file: file('ip-security', 'csv'),
			moreFiles: { 'Geo File': file('ip-geolocation', 'csv'), 'ASN File': file('ip-asn', 'mmdb') },
			ips: IPS,
			parameters: { outputShape: 'likeTheApi', moreDatabases: more('Geo File', 'ASN File') },
		});
		expect(mixed.error).toBeUndefined();
		expect(mixed.items.map((item) => item.json)).toEqual(mmdbFirst.items.map((item) => item.json));
	});

	it('a database not given is null in the API shape: geolocation and ASN only leave every security flag null', async () => {
		const run = await lookUp({
			file: file('ip-geolocation', 'mmdb'),
			moreFiles: { 'ASN File': file('ip-asn', 'mmdb') },
			ips: ['81.2.69.160'],
			parameters: { outputShape: 'likeTheApi', moreDatabases: more('ASN File') },
		});
		expect(run.items[0].json).toMatchObject({
			city: 'London',
			connection: {
				autonomous_system_number: 20712,
				autonomous_system_organization: 'Andrews & Arnold Ltd',
			},
			security: Object.fromEntries(Object.keys(NO_FLAGS).map((flag) => [flag, null])),
		});
	});

	it("As Stored: each database's record, with its network, under its own key; a miss under its key says so", async () => {
		const run = await lookUp({
			...threeFiles(),
			ips: ['8.8.8.8', '10.0.0.7'],
			parameters: { moreDatabases: more('ASN File', 'Security File') },
		});
		expect(run.error).toBeUndefined();
		expect(run.items[0].json).toEqual({
			ip_address: '8.8.8.8',
			geolocation: expect.objectContaining({
				network: '8.8.8.0/24',
				city: 'Mountain View',
				region_iso_code: 'US-CA',
				country_is_eu: 'False',
			}),
			asn: {
				network: '8.8.8.0/24',
				asn: '15169',
				autonomous_system_organization: 'Google LLC',
				asn_country: 'US',
			},
			security: {
				found: false,
				reason:
					'No network of the ip-security database covers 8.8.8.8: it carries none of the seven flags',
			},
		});
		expect(Object.keys(run.items[1].json)).toEqual([
			'ip_address',
			'geolocation',
			'asn',
			'security',
		]);
		expect(run.items[1].json.asn).toMatchObject({ found: false });
	});

	it('each file is parsed once for all items, and not again on the next run', async () => {
		const before = cacheStats().parses;
		const first = await lookUp({
			...threeFiles(12),
			ips: IPS,
			parameters: { moreDatabases: more('ASN File', 'Security File') },
		});
		expect(first.error).toBeUndefined();
		expect(cacheStats().parses).toBe(before + 3);
		await lookUp({
			...threeFiles(12),
			ips: IPS,
			parameters: { moreDatabases: more('ASN File', 'Security File') },
		});
		expect(cacheStats().parses).toBe(before + 3);
	});

	it('from the item (This Item) and from a node, mixed: the item carries geolocation and ASN files, a node the security one', async () => {
		const run = await lookUp({
			file: file('ip-geolocation', 'csv', 1, 'geo'),
			moreFiles: {
				'ASN File': file('ip-asn', 'mmdb', 1, 'asn'),
				'Security File': file('ip-security', 'csv', 1, 'security'),
			},
			ips: ['8.8.8.8', '185.220.101.4'],
			filePerItem: true,
			parameters: {
				databaseSource: 'thisItem',
				binaryPropertyName: 'geo',
				outputShape: 'likeTheApi',
				moreDatabases: {
					databases: [
						{ databaseSource: 'thisItem', binaryPropertyName: 'asn' },
						{
							databaseSource: 'fromNode',
							databaseNode: "={{ $('Security File').first() }}",
							binaryPropertyName: 'security',
						},
					],
				},
			},
		});
		expect(run.error).toBeUndefined();
		expect(
			run.items.map((item) => [
				item.json.city,
				(item.json.connection as { autonomous_system_number: unknown }).autonomous_system_number,
				(item.json.security as { is_tor: boolean }).is_tor,
			]),
		).toEqual([
			['Mountain View', 15169, false],
			[null, null, true],
		]);
	});
});

describe('IP Database Lookup: several databases, wrong choices', () => {
	it('two databases of one kind are an error for the item that names both', async () => {
		const run = await lookUp({
			file: file('ip-asn', 'mmdb'),
			moreFiles: { 'ASN CSV': file('ip-asn', 'csv') },
			ips: ['8.8.8.8'],
			parameters: { moreDatabases: more('ASN CSV') },
		});
		expect(run.error?.message).toBe(
			'Invalid More Databases (moreDatabases): Database (ip-asn) and More Databases › Database 2 (ip-asn) are both asn databases; give at most one geolocation, one ASN and one security database',
		);
	});

	it('more than three databases are refused, naming the rule', async () => {
		const run = await lookUp({
			...threeFiles(),
			ips: ['8.8.8.8'],
			parameters: { moreDatabases: more('ASN File', 'Security File', 'ASN File') },
		});
		expect(run.error?.message).toBe(
			'Invalid More Databases (moreDatabases): holds 3 databases; the node takes at most 3 in all (one geolocation, one ASN and one security database)',
		);
	});

	it("a missing node or binary field of a further database names that database's field", async () => {
		const noNode = await lookUp({
			...threeFiles(),
			ips: ['8.8.8.8'],
			parameters: { moreDatabases: more('ASN File', 'Nope') },
		});
		expect(noNode.error?.message).toContain(
			'Invalid More Databases › Database 3 › Database Node (databaseNode): "Nope" is not a node that ran before this one',
		);
		const noField = await lookUp({
			...threeFiles(),
			ips: ['8.8.8.8'],
			parameters: {
				moreDatabases: {
					databases: [
						{ databaseSource: 'fromNode', databaseNode: 'ASN File', binaryPropertyName: 'db' },
					],
				},
			},
		});
		expect(noField.error?.message).toBe(
			'Invalid More Databases › Database 2 › Input Binary Field (binaryPropertyName): the first item of node "ASN File" has no binary field "db" (it has: data)',
		);
	});

	it('a file that is no database says which of the databases it is', async () => {
		const run = await lookUp({
			...threeFiles(),
			moreFiles: { 'ASN File': { bytes: Buffer.from('hello,world\r\n1,2\r\n') } },
			ips: ['8.8.8.8'],
			parameters: { moreDatabases: more('ASN File') },
		});
		expect(run.error?.message).toMatch(
			/^More Databases › Database 2: The file is neither an MMDB database/,
		);
	});
});

describe('IP Database Lookup: how Database Node names the node', () => {
	const asn = file('ip-asn', 'mmdb');
	const asnOf = async (databaseNode: string, itemJson?: Record<string, string>) => {
		const run = await lookUp({
			file: asn,
			ips: ['8.8.8.8', '1.1.1.1'],
			itemJson,
			parameters: { databaseNode },
		});
		return { error: run.error?.message, asns: run.items.map((item) => item.json.asn) };
	};

	it.each([
		['the new default form', "={{ $('Database File').first() }}"],
		['without .first()', "={{ $('Database File') }}"],
		['double quotes', '={{ $("Database File").first() }}'],
		['$node[…]', '={{ $node["Database File"] }}'],
		['a plain name (version 1)', 'Database File'],
		['an expression giving a name', '={{ $json.databaseNode }}'],
		['an expression giving the item', "={{ $('Database File').last() }}"],
		['an expression giving a name, built', "={{ 'Database ' + 'File' }}"],
	])('%s: %s', async (_form, databaseNode) => {
		expect(await asnOf(databaseNode, { databaseNode: 'Database File' })).toEqual({
			error: undefined,
			asns: ['15169', '13335'],
		});
	});

	it('an expression giving neither a name nor an item says what it gave and what to write', async () => {
		expect((await asnOf('={{ 42 }}')).error).toBe(
			"Invalid Database Node (databaseNode): the expression gives number, not a node's name or an item with the database file; use {{ $('Node name').first() }}",
		);
		expect((await asnOf('={{ $json.missing }}')).error).toMatch(
			/^Invalid Database Node \(databaseNode\): the expression gives nothing/,
		);
	});
});
