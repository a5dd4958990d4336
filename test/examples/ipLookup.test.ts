import { promises as fs } from 'fs';
import path from 'path';

import { Workflow } from 'n8n-workflow';
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import {
	createN8nFilesFolder,
	N8N_WORKING_DIRECTORY,
	removeN8nFilesFolder,
} from '../harness/n8nFiles';
import { NodeTypes, ROOT } from '../harness/nodeTypes';
import { runWorkflow, type WorkflowJson } from '../harness/run';
import { allSandboxCredentials } from '../harness/sandboxCredentials';
import { placeStoredDatabases } from '../sandbox/ipDatabases/storedFiles';
import { startSandbox, type Sandbox } from '../sandbox/server';

/** The three IP database lookup examples, run through n8n-core as saved, and after renames. */
let sandbox: Sandbox;
beforeAll(async () => {
	sandbox = await startSandbox();
});
afterAll(async () => await sandbox.close());
beforeEach(() => sandbox.reset());

const example = async (file: string) =>
	JSON.parse(await fs.readFile(path.join(ROOT, 'examples', file), 'utf8')) as WorkflowJson;

/** Runs an example as a user would: a stored database file in ~/.n8n-files where its Read node looks. */
async function runExample(workflow: WorkflowJson) {
	await removeN8nFilesFolder();
	await createN8nFilesFolder();
	await placeStoredDatabases(workflow, N8N_WORKING_DIRECTORY);
	const run = await runWorkflow(workflow, { credentials: allSandboxCredentials(sandbox) });
	await removeN8nFilesFolder();
	return run;
}

/**
 * Renames nodes as n8n's editor does: n8n-workflow's own `Workflow.renameNode` on the workflow,
 * which rewrites the node, the connections and `$('…')`-style references inside expressions.
 */
function renamed(workflowJson: WorkflowJson, names: Record<string, string>): WorkflowJson {
	const workflow = new Workflow({
		nodes: structuredClone(workflowJson.nodes),
		connections: structuredClone(workflowJson.connections),
		active: false,
		nodeTypes: new NodeTypes(),
	});
	for (const [from, to] of Object.entries(names)) workflow.renameNode(from, to);
	return {
		...workflowJson,
		nodes: Object.values(workflow.nodes),
		connections: workflow.connectionsBySourceNode,
	};
}

/** The lookup as version 1 saved it: Database Node holding a node's plain name. */
function withPlainNames(workflowJson: WorkflowJson): WorkflowJson {
	const plain = (value: unknown) =>
		/^=\{\{ \$\('(.+)'\)\.first\(\) \}\}$/.exec(String(value))?.[1] ?? value;
	const copy = structuredClone(workflowJson);
	for (const node of copy.nodes) {
		if (!node.type.endsWith('.abstractIpLookup')) continue;
		node.parameters.databaseNode = plain(node.parameters.databaseNode) as string;
		for (const entry of ((node.parameters.moreDatabases as IDataObject | undefined)?.databases as
			| IDataObject[]
			| undefined) ?? []) {
			entry.databaseNode = plain(entry.databaseNode) as string;
		}
	}
	return copy;
}

const answers = (items: INodeExecutionData[]) =>
	items.map((item) => ({ json: item.json, pairedItem: item.pairedItem }));

interface ExampleCase {
	file: string;
	/** The database nodes a user might rename, and new names (with the characters names allow). */
	renames: Record<string, string>;
	check: (items: INodeExecutionData[]) => void;
	requests: { api: number; storage: number };
}

const EXAMPLES: ExampleCase[] = [
	{
		file: 'ip-lookup-after-download.json',
		renames: { 'IP Database Download': 'Weekly geolocation build (MMDB) $1.x' },
		requests: { api: 1, storage: 1 },
		check: (items) => {
			expect(
				items.map((item) => [
					item.json.ip_address,
					item.json.city ?? null,
					item.json.found ?? true,
				]),
			).toEqual([
				['81.2.69.160', 'London', true],
				['89.160.20.112', 'Linköping', true],
				['2001:4860:4860::8888', 'Mountain View', true],
				['38.100.1.1', 'Washington, D.C.', true],
				['10.0.0.7', null, false],
			]);
			expect(items[0].json).toMatchObject({
				region_iso_code: 'ENG',
				country_is_eu: false,
				latitude: 51.5142,
				timezone: { name: 'Europe/London' },
			});
			expect(items.map((item) => item.pairedItem)).toEqual(
				[0, 1, 2, 3, 4].map((item) => ({ item })),
			);
		},
	},
	{
		file: 'ip-lookup-stored-database.json',
		renames: { 'Read Database File': 'Read "stored" DB' },
		requests: { api: 0, storage: 0 },
		check: (items) => {
			expect(
				items.map((item) => [
					item.json.ip_address,
					item.json.network,
					item.json.country_code,
					item.json.found,
				]),
			).toEqual([
				['81.2.69.160', '81.2.69.0/24', 'GB', undefined],
				['8.8.8.8', '8.8.8.0/24', 'US', undefined],
				['211.234.10.20', '211.234.0.0/16', 'KR', undefined],
				['2a02:26f0::1f', '2a02:26f0::/29', 'FR', undefined],
				['190.185.119.4', '190.185.112.0/20', 'BQ', undefined],
				['192.168.1.20', undefined, undefined, false],
			]);
			expect(items[0].json).toMatchObject({
				city: 'London',
				region_iso_code: 'GB-ENG',
				country_is_eu: 'False',
			});
		},
	},
	{
		file: 'ip-lookup-three-databases.json',
		renames: {
			'Geolocation Database': 'Geo',
			'ASN Database': 'ASN (CSV)',
			'Security Database': 'Flags [weekly]',
		},
		requests: { api: 3, storage: 3 },
		check: (items) => {
			const row = (item: INodeExecutionData) => {
				const { connection, security } = item.json as {
					connection: IDataObject;
					security: IDataObject;
				};
				const flags = Object.keys(security).filter((flag) => security[flag] === true);
				return [
					item.json.ip_address,
					item.json.city,
					item.json.country_code,
					connection.autonomous_system_number,
					flags.join(' '),
					item.json.found ?? true,
				];
			};
			expect(items.map(row)).toEqual([
				['8.8.8.8', 'Mountain View', 'US', 15169, '', true],
				['81.2.69.160', 'London', 'GB', 20712, '', true],
				['185.220.101.4', null, null, null, 'is_tor is_abuse', true],
				['104.16.132.7', null, null, null, 'is_proxy is_hosting', true],
				['2001:4860:4860::8888', 'Mountain View', 'US', 15169, '', true],
				['10.0.0.7', null, null, null, '', false],
			]);
			// The whole record, in the live API's shape, on every item; the lead's own fields stay on the input.
			for (const item of items) {
				expect(Object.keys(item.json)).toEqual(
					expect.arrayContaining([
						'ip_address',
						'city',
						'region_iso_code',
						'country_is_eu',
						'timezone',
						'connection',
						'security',
					]),
				);
			}
			expect(items[1].json).toMatchObject({
				region_iso_code: 'ENG',
				connection: { autonomous_system_organization: 'Andrews & Arnold Ltd' },
			});
			expect(items.map((item) => item.pairedItem)).toEqual(
				[0, 1, 2, 3, 4, 5].map((item) => ({ item })),
			);
		},
	},
];

describe.each(EXAMPLES)(
	'IP database lookup example $file',
	({ file, renames, check, requests }) => {
		it('runs as saved: the lookups send no request of their own', async () => {
			const run = await runExample(await example(file));
			expect(run.error).toBeUndefined();
			check(run.output('IP Database Lookup'));
			// Only the downloads' link requests and storage downloads reach the sandbox.
			expect(sandbox.requests('api')).toHaveLength(requests.api);
			expect(sandbox.requests('storage')).toHaveLength(requests.storage);
			expect(sandbox.log).toHaveLength(requests.api + requests.storage);
		});

		it('gives the same answers after the database node(s) are renamed the way the editor renames them', async () => {
			const workflow = await example(file);
			const before = await runExample(workflow);
			const renamedWorkflow = renamed(workflow, renames);
			// n8n rewrote the lookup's references to the new names
			const lookup = JSON.stringify(
				renamedWorkflow.nodes.find((node) => node.name === 'IP Database Lookup')!.parameters,
			);
			for (const [from, to] of Object.entries(renames)) {
				expect(lookup).toContain(JSON.stringify(`$('${to}')`).slice(1, -1));
				expect(lookup).not.toContain(`'${from}'`);
			}
			const after = await runExample(renamedWorkflow);
			expect(after.error).toBeUndefined();
			expect(after.run.data.resultData.runData[Object.values(renames)[0]]).toBeDefined();
			expect(answers(after.output('IP Database Lookup'))).toEqual(
				answers(before.output('IP Database Lookup')),
			);
			check(after.output('IP Database Lookup'));
		});

		it('as version 1 saved it (the plain node name) it runs unchanged; only that form breaks on a rename', async () => {
			const workflow = withPlainNames(await example(file));
			expect(JSON.stringify(workflow)).not.toContain("$('");
			const run = await runExample(workflow);
			expect(run.error).toBeUndefined();
			check(run.output('IP Database Lookup'));

			const [from, to] = Object.entries(renames)[0];
			const broken = await runExample(renamed(workflow, { [from]: to }));
			expect(broken.error?.message).toContain(`"${from}" is not a node that ran before this one`);
		});
	},
);

describe('IP database lookup: Database Node left empty, its default', () => {
	/** The after-download example as a new node saves it: n8n leaves a parameter at its default out. */
	const withDefault = async () => {
		const workflow = await example('ip-lookup-after-download.json');
		delete workflow.nodes.find((node) => node.name === 'IP Database Lookup')!.parameters
			.databaseNode;
		return workflow;
	};

	it('reads the IP Database Download node before it, and still finds it after the editor renames it (no name is stored)', async () => {
		const workflow = await withDefault();
		const asSaved = await runExample(workflow);
		expect(asSaved.error).toBeUndefined();
		EXAMPLES[0].check(asSaved.output('IP Database Lookup'));

		const after = renamed(workflow, { 'IP Database Download': 'Geolocation build' });
		expect(
			after.nodes.find((node) => node.name === 'IP Database Lookup')!.parameters.databaseNode ?? '',
		).toBe('');
		const run = await runExample(after);
		expect(run.error).toBeUndefined();
		expect(answers(run.output('IP Database Lookup'))).toEqual(
			answers(asSaved.output('IP Database Lookup')),
		);
	});

	it('with no download node before it, or two, says what to connect or choose', async () => {
		const workflow = await withDefault();
		const none = renamed(workflow, {});
		none.nodes = none.nodes.filter((node) => node.name !== 'IP Database Download');
		none.connections = {
			...none.connections,
			Run: { main: [[{ node: 'Visitors', type: 'main', index: 0 }]] },
		};
		delete none.connections['IP Database Download'];
		const noDownload = await runExample(none);
		expect(noDownload.error?.message).toBe(
			"Invalid Database Node (databaseNode): is empty, and no IP Database Download node runs before this one: connect one before this node (Output: Database File), or give the node whose first item holds the database file, as {{ $('Read Database File').first() }}",
		);

		const two = await example('ip-lookup-three-databases.json');
		const lookup = two.nodes.find((node) => node.name === 'IP Database Lookup')!;
		delete lookup.parameters.databaseNode;
		const several = await runExample(two);
		expect(several.error?.message).toMatch(
			/^Invalid Database Node \(databaseNode\): is empty, and 3 IP Database Download nodes run before this one \("Geolocation Database", "ASN Database", "Security Database"\): choose one/,
		);
	});
});
