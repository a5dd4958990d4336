import path from 'path';

import { NodeConnectionTypes } from 'n8n-workflow';
import type { IDataObject, IExecuteFunctions, INode, INodeExecutionData, INodeType } from 'n8n-workflow';

import { NodeTypes, PACKAGE_NAME, ROOT } from '../harness/nodeTypes';
import { runWorkflow, type RunResult, type WorkflowJson } from '../harness/run';
import { bitAt, ipBytes, parseCidr } from '../sandbox/ipDatabases/network';

/**
 * Workflows for the IP database lookup node, run through n8n-core: a test-only node that outputs
 * a database file (as a download or a file read would) and one that outputs the items to look up.
 */
let pendingFile: { bytes: Buffer; fileName: string; mimeType: string; json: IDataObject } | undefined;
let pendingItems: IDataObject[] = [];
let filePerItem = false;

class DatabaseFileSource implements INodeType {
	description = {
		displayName: 'Database File',
		name: 'databaseFile',
		group: ['input'],
		version: 1,
		description: 'Outputs the database file a test gives',
		defaults: { name: 'Database File' },
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		properties: [],
	} as INodeType['description'];

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		if (!pendingFile) return [[]];
		const binary = await this.helpers.prepareBinaryData(pendingFile.bytes, pendingFile.fileName, pendingFile.mimeType);
		return [[{ json: pendingFile.json, binary: { data: binary }, pairedItem: { item: 0 } }]];
	}
}

class AddressSource implements INodeType {
	description = {
		displayName: 'Addresses',
		name: 'addresses',
		group: ['transform'],
		version: 1,
		description: 'Outputs the items a test gives',
		defaults: { name: 'Addresses' },
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		properties: [],
	} as INodeType['description'];

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const input = this.getInputData()[0];
		// "This Item": each item carries the database file, as items after a Merge would.
		const binary = filePerItem ? input?.binary : undefined;
		return [pendingItems.map((json) => ({ json, ...(binary ? { binary } : {}), pairedItem: { item: 0 } }))];
	}
}

NodeTypes.register('harness.databaseFile', new DatabaseFileSource());
NodeTypes.register('harness.addresses', new AddressSource());

const node = (name: string, type: string, x: number, parameters: IDataObject = {}, extra: Partial<INode> = {}): INode => ({
	id: name,
	name,
	type,
	typeVersion: 1,
	position: [x, 0],
	parameters: parameters as INode['parameters'],
	...extra,
});

export interface LookupRun {
	file?: { bytes: Buffer; fileName?: string; mimeType?: string; json?: IDataObject };
	ips: string[];
	parameters?: IDataObject;
	continueOnFail?: boolean;
	/** Every item carries the file (Database Source: This Item). */
	filePerItem?: boolean;
}

/** Trigger -> Database File -> Addresses -> IP Database Lookup (database from the node "Database File"). */
export async function lookUp(spec: LookupRun): Promise<RunResult & { items: INodeExecutionData[] }> {
	pendingFile = spec.file && {
		bytes: spec.file.bytes,
		fileName: spec.file.fileName ?? 'database',
		mimeType: spec.file.mimeType ?? 'application/octet-stream',
		json: spec.file.json ?? {},
	};
	pendingItems = spec.ips.map((ip) => ({ ip }));
	filePerItem = spec.filePerItem ?? false;
	const workflow: WorkflowJson = {
		nodes: [
			node('Start', 'n8n-nodes-base.manualTrigger', 0),
			node('Database File', 'harness.databaseFile', 200),
			node('Addresses', 'harness.addresses', 400),
			node(
				'Lookup',
				`${PACKAGE_NAME}.abstractIpLookup`,
				600,
				{ ipAddress: '={{ $json.ip }}', databaseSource: 'fromNode', databaseNode: 'Database File', binaryPropertyName: 'data', outputShape: 'asStored', ...spec.parameters },
				spec.continueOnFail ? { onError: 'continueRegularOutput' } : {},
			),
		],
		connections: {
			Start: { main: [[{ node: 'Database File', type: NodeConnectionTypes.Main, index: 0 }]] },
			'Database File': { main: [[{ node: 'Addresses', type: NodeConnectionTypes.Main, index: 0 }]] },
			Addresses: { main: [[{ node: 'Lookup', type: NodeConnectionTypes.Main, index: 0 }]] },
		},
	};
	const result = await runWorkflow(workflow, { credentials: [] });
	return { ...result, items: result.output('Lookup') };
}

/** The node's parse counter and cache, from the built module n8n loaded (the same instance). */
export function cacheStats(): { parses: number; cached: Array<{ sha256: string; kind?: string }> } {
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	const cache = require(path.join(ROOT, 'dist/nodes/shared/ipDatabases/databaseCache.js')) as { cacheStats: () => ReturnType<typeof cacheStats> };
	return cache.cacheStats();
}

/** Address text of a 16-byte value (IPv4 networks sit in ::/96, as in network.ts). */
function addressText(bytes: Uint8Array, v4: boolean): string {
	if (v4) return Array.from(bytes.subarray(12)).join('.');
	const groups: string[] = [];
	for (let index = 0; index < 16; index += 2) groups.push(((bytes[index] << 8) | bytes[index + 1]).toString(16));
	return groups.join(':');
}

function add(bytes: Uint8Array, delta: 1 | -1): Uint8Array | undefined {
	const out = Uint8Array.from(bytes);
	for (let index = 15; index >= 0; index--) {
		const value = out[index] + delta;
		out[index] = value & 0xff;
		if (value >= 0 && value <= 0xff) return out;
	}
	return undefined;
}

/** A network's first and last address, one before and one after, and one inside. */
export function edgeAddresses(cidr: string): string[] {
	const v4 = !cidr.includes(':');
	const { bytes, bits } = parseCidr(cidr);
	const first = Uint8Array.from(bytes);
	const last = Uint8Array.from(bytes);
	for (let bit = bits; bit < 128; bit++) last[bit >> 3] |= 1 << (7 - (bit & 7));
	const middle = Uint8Array.from(first);
	if (bits < 127) middle[15] |= 0x05;
	const around = [add(first, -1), first, middle, last, add(last, 1)].filter((value): value is Uint8Array => value !== undefined);
	// IPv4 edges that leave ::/96 are not IPv4 addresses
	return around.filter((value) => !v4 || value.subarray(0, 12).every((byte) => byte === 0)).map((value) => addressText(value, v4));
}

/** Whether a CIDR covers an address (test-side arithmetic, independent of the node's). */
export function covers(cidr: string, address: string): boolean {
	const { bytes, bits } = parseCidr(cidr);
	if (cidr.includes(':') !== address.includes(':')) return false;
	const target = ipBytes(address);
	for (let bit = 0; bit < bits; bit++) if (bitAt(bytes, bit) !== bitAt(target, bit)) return false;
	return true;
}
