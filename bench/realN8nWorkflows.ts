import type { Workflow, WorkflowNode } from '../scripts/n8n/examples';
import { exampleCredentialId, exampleCredentialName } from '../test/harness/sandboxCredentials';

/**
 * The workflows the real-n8n bench imports: n8n's own nodes (Manual Trigger or Webhook,
 * Read/Write Files from Disk, Edit Fields, Split Out) around the package's node, as a user
 * builds them. Files are read from and written to `~/.n8n-files`, n8n 2.x's only file folder.
 */

type Start = { kind: 'manual' } | { kind: 'webhook'; path: string };

const node = (
	name: string,
	type: string,
	typeVersion: number,
	x: number,
	parameters: Record<string, unknown>,
	extra: Partial<WorkflowNode> = {},
): WorkflowNode => ({
	name,
	type,
	typeVersion,
	position: [x, 0],
	parameters,
	...extra,
});

function startNode(start: Start): WorkflowNode {
	if (start.kind === 'manual') return node('Run', 'n8n-nodes-base.manualTrigger', 1, 0, {});
	// Answers once the last node is done, with its first item only (the answer stays small).
	return node(
		'Run',
		'n8n-nodes-base.webhook',
		2,
		0,
		{
			httpMethod: 'POST',
			path: start.path,
			responseMode: 'lastNode',
			responseData: 'firstEntryJson',
			options: {},
		},
		{ webhookId: start.path },
	);
}

const readFile = (name: string, file: string, x: number) =>
	node(name, 'n8n-nodes-base.readWriteFile', 1, x, {
		operation: 'read',
		fileSelector: `.n8n-files/${file}`,
		options: {},
	});

function chain(workflow: { id: string; name: string; nodes: WorkflowNode[] }): Workflow {
	const connections: Record<string, unknown> = {};
	workflow.nodes.slice(0, -1).forEach((from, index) => {
		connections[from.name] = {
			main: [[{ node: workflow.nodes[index + 1].name, type: 'main', index: 0 }]],
		};
	});
	return { ...workflow, connections, settings: { executionOrder: 'v1' } };
}

export const LOOKUP_NODE = 'IP Database Lookup';

/** The Email Reputation credential the bench imports (at the sandbox), as a node references it. */
const EMAIL_CREDENTIAL: Partial<WorkflowNode> = {
	credentials: {
		abstractEmailApi: {
			id: exampleCredentialId('abstractEmailApi'),
			name: exampleCredentialName('abstractEmailApi'),
		},
	},
};
export const EMAIL_NODE = 'Email Reputation';

/**
 * Start -> Read Database (the file from ~/.n8n-files) -> Addresses (Edit Fields, the addresses
 * as one JSON array) -> One item per address (Split Out) -> IP Database Lookup, the database
 * chosen by the expression n8n keeps on rename.
 */
export function lookupWorkflow(
	id: string,
	databaseFile: string,
	addresses: string[],
	start: Start = { kind: 'manual' },
): Workflow {
	return chain({
		id,
		name: `Bench: ${addresses.length} lookups in ${databaseFile}`,
		nodes: [
			startNode(start),
			readFile('Read Database', databaseFile, 200),
			node('Addresses', 'n8n-nodes-base.set', 3.4, 400, {
				mode: 'raw',
				jsonOutput: JSON.stringify({ ips: addresses }),
				options: {},
			}),
			node('One item per address', 'n8n-nodes-base.splitOut', 1, 600, {
				fieldToSplitOut: 'ips',
				options: {},
			}),
			node(LOOKUP_NODE, 'n8n-nodes-abstractapi.abstractIpLookup', 1, 800, {
				ipAddress: '={{ $json.ips }}',
				databaseSource: 'fromNode',
				databaseNode: "={{ $('Read Database').first() }}",
				binaryPropertyName: 'data',
				outputShape: 'asStored',
			}),
		],
	});
}

/** How the Email node outputs a CSV file's answers. */
export type OutputMode = 'items' | 'resultFile';

/**
 * Run -> Read Leads (the CSV from ~/.n8n-files) -> Email Reputation (Input: CSV File) and, in
 * Result File mode, -> Write Result (the result file back to ~/.n8n-files). In item mode the
 * node's 50,000 items are the workflow's end (what a user would turn into a file next is left out).
 * `resultFileParameters` are the Email node's parameters that select Result File mode.
 */
export function bulkEmailWorkflow(
	id: string,
	leadsFile: string,
	mode: OutputMode,
	resultFileParameters: Record<string, unknown>,
): Workflow {
	const nodes: WorkflowNode[] = [
		startNode({ kind: 'manual' }),
		readFile('Read Leads', leadsFile, 200),
		node(
			EMAIL_NODE,
			'n8n-nodes-abstractapi.abstractEmail',
			1,
			400,
			{
				input: 'csvFile',
				binaryPropertyName: 'data',
				emailColumn: 'email',
				...(mode === 'resultFile' ? resultFileParameters : {}),
				options: {},
			},
			EMAIL_CREDENTIAL,
		),
	];
	if (mode === 'resultFile') {
		nodes.push(
			node('Write Result', 'n8n-nodes-base.readWriteFile', 1, 600, {
				operation: 'write',
				fileName: `.n8n-files/result-${leadsFile}`,
				dataPropertyName: 'data',
				options: {},
			}),
		);
	}
	return chain({ id, name: `Bench: ${leadsFile} as ${mode}`, nodes });
}

export const FLOOR_NODE = 'HTTP Floor';

/**
 * Run -> HTTP Floor (bench/n8nFloor): `requests` Email Reputation requests through n8n's helper
 * and nothing else, the bulk figures' floor.
 */
export function floorWorkflow(id: string, requests: number): Workflow {
	return chain({
		id,
		name: `Bench: ${requests} requests through n8n's helper only`,
		nodes: [
			startNode({ kind: 'manual' }),
			node(FLOOR_NODE, 'CUSTOM.httpFloor', 1, 200, { requests }, EMAIL_CREDENTIAL),
		],
	});
}

/**
 * Run -> Read Database -> Read Log (a CSV of client addresses from ~/.n8n-files) -> IP Database
 * Lookup (Input: CSV File, Output: Result File; the database from Read Database) -> Write Result
 * (the result file back to ~/.n8n-files), as the log example builds it.
 */
export function logLookupWorkflow(id: string, databaseFile: string, logFile: string): Workflow {
	return chain({
		id,
		name: `Bench: ${logFile} looked up in ${databaseFile}`,
		nodes: [
			startNode({ kind: 'manual' }),
			readFile('Read Database', databaseFile, 200),
			readFile('Read Log', logFile, 400),
			node(LOOKUP_NODE, 'n8n-nodes-abstractapi.abstractIpLookup', 1, 600, {
				input: 'csvFile',
				csvBinaryPropertyName: 'data',
				addressColumn: 'ip',
				databaseSource: 'fromNode',
				databaseNode: "={{ $('Read Database').first() }}",
				binaryPropertyName: 'data',
				output: 'resultFile',
				resultBinaryPropertyName: 'data',
				outputShape: 'asStored',
			}),
			node('Write Result', 'n8n-nodes-base.readWriteFile', 1, 800, {
				operation: 'write',
				fileName: `.n8n-files/${logFile.replace(/\.csv$/, '')}-results.csv`,
				dataPropertyName: 'data',
				options: {},
			}),
		],
	});
}
