import { bytes, writeTestMmdb } from '../ipLookup/mmdbTestWriter';
import { databaseFileOf } from '../sandbox/ipDatabases/archives';
import { lookUp, type LookupRun, type OnError } from './ipLookupHelpers';

/**
 * Every failed item of the lookup node under each of n8n's three "On Error" settings, through
 * n8n-core's WorkflowExecute: stop the workflow; keep the error item on the regular output; or
 * send it to the node's error output (n8n-core routes an item there when its json is `{ error }`).
 * With a setting that continues, the node must never throw: n8n would then pass the input items
 * on as successes, which the checks below would see as items without `error`.
 */

/** An ip-asn MMDB whose record for 0.0.0.0/1 is damaged (a pointer to itself); 128.0.0.0/1 is fine. */
function damagedAsnMmdb(): Buffer {
	const written = writeTestMmdb(
		[
			{ network: '0.0.0.0/1', record: bytes(new Uint8Array(64)) },
			{
				network: '128.0.0.0/1',
				record: { asn: '64500', autonomous_system_organization: 'Example' },
			},
		],
		{ recordSize: 24, ipVersion: 4, metadata: { database_type: 'svc-ip-asn' } },
	);
	written.file.set([0x20, 0x00], written.dataStart + written.recordOffsets[0]);
	return Buffer.from(written.file);
}

/** How an item fails: its error's message, and its description word for word. */
interface Failure {
	message: string | RegExp;
	description: string;
}

interface Case {
	name: string;
	run: LookupRun;
	/** Per item: how it fails, or undefined when it succeeds. */
	expected: Array<Failure | undefined>;
	/** The error that stops the run, when not the first item's: addresses are all checked before any lookup. */
	stopsWith?: string | RegExp;
}

const asnMmdb = { bytes: databaseFileOf('ip-asn', 'mmdb', 1) };

/** The description of every failure that comes from the database file rather than an item. */
const FILE_NOT_USED =
	'The database file "database" could not be used; nothing was looked up. Give the node the .mmdb or .csv file from the IP Database Download node (Output: Database File).';

const CASES: Case[] = [
	{
		name: 'an invalid or empty address, among good ones',
		run: { file: asnMmdb, ips: ['8.8.8.8', '999.1.1.1', '', '1.1.1.1'] },
		expected: [
			undefined,
			{
				message:
					'Invalid IP Address (ipAddress): "999.1.1.1" is not an IPv4 address (such as 8.8.8.8) or an IPv6 address (such as 2001:4860::8888)',
				description: 'Item 2 was not looked up. Fix IP Address (ipAddress) and run again.',
			},
			{
				message: 'Invalid IP Address (ipAddress): is required: the IPv4 or IPv6 address to look up',
				description: 'Item 3 was not looked up. Fix IP Address (ipAddress) and run again.',
			},
			undefined,
		],
	},
	{
		name: 'a missing database: the node named did not run',
		run: {
			file: asnMmdb,
			ips: ['8.8.8.8', '1.1.1.1'],
			parameters: { databaseNode: "={{ $('Nope').first() }}" },
		},
		expected: [
			{
				message:
					/^Invalid Database Node \(databaseNode\): "Nope" is not a node that ran before this one/,
				description: 'Item 1 was not looked up. Fix Database Node (databaseNode) and run again.',
			},
			{
				message: /"Nope" is not a node/,
				description: 'Item 2 was not looked up. Fix Database Node (databaseNode) and run again.',
			},
		],
	},
	{
		name: 'a missing database: no such binary field',
		run: { file: asnMmdb, ips: ['8.8.8.8'], parameters: { binaryPropertyName: 'db' } },
		expected: [
			{
				message:
					'Invalid Input Binary Field (binaryPropertyName): the first item of node "Database File" has no binary field "db" (it has: data)',
				description:
					'Item 1 was not looked up. Fix Input Binary Field (binaryPropertyName) and run again.',
			},
		],
	},
	{
		name: 'a broken database: a file that is none',
		run: { file: { bytes: Buffer.from('hello,world\r\n1,2\r\n') }, ips: ['8.8.8.8', '1.1.1.1'] },
		expected: [
			{ message: /^The file is neither an MMDB database/, description: FILE_NOT_USED },
			{ message: /^The file is neither an MMDB database/, description: FILE_NOT_USED },
		],
	},
	{
		name: 'a lookup error: the record of one network is damaged, the others answer',
		run: { file: { bytes: damagedAsnMmdb() }, ips: ['1.2.3.4', '200.1.1.1', 'not-an-ip'] },
		expected: [
			{ message: /^The MMDB file is damaged: .*pointer to a pointer/, description: FILE_NOT_USED },
			undefined,
			{
				message: /"not-an-ip" is not an IPv4 address/,
				description: 'Item 3 was not looked up. Fix IP Address (ipAddress) and run again.',
			},
		],
		stopsWith: /"not-an-ip" is not an IPv4 address/,
	},
	{
		name: 'a lookup error alone',
		run: { file: { bytes: damagedAsnMmdb() }, ips: ['200.1.1.1', '1.2.3.4'] },
		expected: [
			undefined,
			{ message: /^The MMDB file is damaged: .*pointer to a pointer/, description: FILE_NOT_USED },
		],
	},
];

const run = async (testCase: Case, onError: OnError) =>
	await lookUp({ ...testCase.run, itemJson: { lead: 'kept' }, onError });

const firstFailure = (testCase: Case) =>
	testCase.stopsWith ?? testCase.expected.find((failure) => failure !== undefined)!.message;

describe.each(CASES)('IP Database Lookup, $name', (testCase) => {
	it('On Error "Stop Workflow": the run stops with the first failed item\'s error', async () => {
		const result = await run(testCase, 'stopWorkflow');
		expect(result.error?.message).toMatch(firstFailure(testCase));
		expect(result.items).toHaveLength(0);
	});

	it('On Error "Continue (using regular output)": each failed item is a paired error item ({ error, description }), the others answer', async () => {
		const result = await run(testCase, 'continueRegularOutput');
		expect(result.error).toBeUndefined();
		expect(result.items).toHaveLength(testCase.expected.length);
		testCase.expected.forEach((failure, index) => {
			const { json, pairedItem } = result.items[index];
			expect(pairedItem).toEqual({ item: index });
			if (failure === undefined) {
				expect(json.error).toBeUndefined();
				expect(json.asn ?? json.found).toBeDefined();
				return;
			}
			// the package's error item, not the input item n8n would pass on had the node thrown
			expect(Object.keys(json).sort()).toEqual(['description', 'error']);
			expect(json.error).toMatch(failure.message);
			expect(json.description).toBe(failure.description);
		});
	});

	it('On Error "Continue (using error output)": failed items on the error output with their input\'s JSON, only answers on the success output', async () => {
		const result = await run(testCase, 'continueErrorOutput');
		expect(result.error).toBeUndefined();
		const failedAt = testCase.expected.flatMap((failure, index) =>
			failure === undefined ? [] : [index],
		);
		const succeededAt = testCase.expected.flatMap((failure, index) =>
			failure === undefined ? [index] : [],
		);
		expect(result.errors.map((item) => item.pairedItem)).toEqual(
			failedAt.map((item) => ({ item })),
		);
		expect(result.items.map((item) => item.pairedItem)).toEqual(
			succeededAt.map((item) => ({ item })),
		);
		result.errors.forEach((item, position) => {
			const error = item.json.error as { message: string; description?: string };
			const failure = testCase.expected[failedAt[position]]!;
			expect(error.message).toMatch(failure.message);
			expect(error.description).toBe(failure.description);
			// n8n merged the error over the input item (what a user routes on downstream)
			expect(item.json.lead).toBe('kept');
		});
		for (const item of result.items) expect(item.json.error).toBeUndefined();
	});
});
