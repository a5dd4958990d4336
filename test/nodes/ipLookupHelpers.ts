import path from 'path';

import { NodeConnectionTypes } from 'n8n-workflow';
import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeType } from 'n8n-workflow';

import { NodeTypes, PACKAGE_NAME, ROOT } from '../harness/nodeTypes';
import { describeNodeType } from '../harness/baseNodes';
import {
	chainConnections,
	runWorkflow,
	workflowNode as node,
	type RunResult,
	type WorkflowJson,
} from '../harness/run';
import { databaseFileName, databaseFileOf } from '../sandbox/ipDatabases/archives';
import { bitAt, ipBytes, parseCidr } from '../sandbox/ipDatabases/network';
import type { DatabaseId, FormatId } from '../sandbox/ipDatabases/records';

/**
 * Workflows for the IP database lookup node, run through n8n-core: a test-only node that outputs
 * a database file (as a download or a file read would) and one that outputs the items to look up.
 */
interface PendingFile {
	bytes: Buffer;
	fileName: string;
	mimeType: string;
	json: IDataObject;
	/** The binary field it goes into (default data). */
	binaryPropertyName: string;
}
/** The file each database file node outputs, by node name. */
const pendingFiles = new Map<string, PendingFile>();
let pendingItems: IDataObject[] = [];
let filePerItem = false;
/** The CSV file the Addresses node outputs in its one item (binary field csv), instead of items. */
let pendingCsv: { bytes: Buffer; fileName: string } | undefined;

class DatabaseFileSource implements INodeType {
	description = describeNodeType('databaseFile', 'Database File', {
		group: ['input'],
		version: 1,
		description: 'Outputs the database file a test gives',
	});

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const pendingFile = pendingFiles.get(this.getNode().name);
		if (!pendingFile) return [[]];
		const binary = await this.helpers.prepareBinaryData(
			pendingFile.bytes,
			pendingFile.fileName,
			pendingFile.mimeType,
		);
		// The files of the nodes before it stay on the item, so that the last one carries them all.
		const before = this.getInputData()[0]?.binary ?? {};
		return [
			[
				{
					json: pendingFile.json,
					binary: { ...before, [pendingFile.binaryPropertyName]: binary },
					pairedItem: { item: 0 },
				},
			],
		];
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
		if (pendingCsv) {
			const csv = await this.helpers.prepareBinaryData(
				pendingCsv.bytes,
				pendingCsv.fileName,
				'text/csv',
			);
			return [[{ json: {}, binary: { ...binary, csv }, pairedItem: { item: 0 } }]];
		}
		return [
			pendingItems.map((json) => ({
				json,
				...(binary ? { binary } : {}),
				pairedItem: { item: 0 },
			})),
		];
	}
}

NodeTypes.register('harness.databaseFile', new DatabaseFileSource());
NodeTypes.register('harness.addresses', new AddressSource());

export interface DatabaseFileSpec {
	bytes: Buffer;
	fileName?: string;
	mimeType?: string;
	json?: IDataObject;
	binaryPropertyName?: string;
}

/** A database file as IP Database Download outputs it: the sandbox's bytes and file name. */
export const file = (database: DatabaseId, format: FormatId, build = 1): DatabaseFileSpec => ({
	bytes: databaseFileOf(database, format, build),
	fileName: databaseFileName(database, format),
});

export type OnError = 'stopWorkflow' | 'continueRegularOutput' | 'continueErrorOutput';

export interface LookupRun {
	/** The file of the node "Database File". */
	file?: DatabaseFileSpec;
	/** More database file nodes, by name, run after "Database File" in this order. */
	moreFiles?: Record<string, DatabaseFileSpec>;
	ips: string[];
	/** Other JSON of each item to look up (the same for every item). */
	itemJson?: IDataObject;
	parameters?: IDataObject;
	continueOnFail?: boolean;
	/** n8n's "On Error" setting of the lookup node (continueOnFail: continueRegularOutput). */
	onError?: OnError;
	/** Every item carries the file (Database Source: This Item). */
	filePerItem?: boolean;
	/**
	 * Input "CSV File": one item carries this file in its binary field `csv` (and `ips` is not
	 * used); the Lookup node reads the address column given in `parameters`.
	 */
	csvFile?: { bytes: Buffer | string; fileName?: string };
}

/**
 * Trigger -> Database File (-> more database file nodes) -> Addresses -> IP Database Lookup
 * (database from the node "Database File" unless the parameters say otherwise).
 */
export async function lookUp(
	spec: LookupRun,
): Promise<RunResult & { items: INodeExecutionData[]; errors: INodeExecutionData[] }> {
	pendingFiles.clear();
	const fileNodes = ['Database File', ...Object.keys(spec.moreFiles ?? {})];
	const specs: Array<DatabaseFileSpec | undefined> = [
		spec.file,
		...Object.values(spec.moreFiles ?? {}),
	];
	specs.forEach((file, index) => {
		if (!file) return;
		pendingFiles.set(fileNodes[index], {
			bytes: file.bytes,
			fileName: file.fileName ?? 'database',
			mimeType: file.mimeType ?? 'application/octet-stream',
			json: file.json ?? {},
			binaryPropertyName: file.binaryPropertyName ?? 'data',
		});
	});
	pendingItems = spec.ips.map((ip) => ({ ...spec.itemJson, ip }));
	filePerItem = spec.filePerItem ?? false;
	pendingCsv = spec.csvFile && {
		bytes: Buffer.isBuffer(spec.csvFile.bytes)
			? spec.csvFile.bytes
			: Buffer.from(spec.csvFile.bytes, 'utf8'),
		fileName: spec.csvFile.fileName ?? 'log.csv',
	};
	const csvParameters = spec.csvFile ? { input: 'csvFile', csvBinaryPropertyName: 'csv' } : {};
	const onError = spec.onError ?? (spec.continueOnFail ? 'continueRegularOutput' : undefined);
	const chain = ['Start', ...fileNodes, 'Addresses', 'Lookup'];
	const workflow: WorkflowJson = {
		nodes: [
			node('Start', 'n8n-nodes-base.manualTrigger', 0),
			...fileNodes.map((name, index) => node(name, 'harness.databaseFile', 200 * (index + 1))),
			node('Addresses', 'harness.addresses', 200 * (fileNodes.length + 1)),
			node(
				'Lookup',
				`${PACKAGE_NAME}.abstractIpLookup`,
				200 * (fileNodes.length + 2),
				{
					ipAddress: '={{ $json.ip }}',
					...csvParameters,
					databaseSource: 'fromNode',
					databaseNode: 'Database File',
					binaryPropertyName: 'data',
					outputShape: 'asStored',
					...spec.parameters,
				},
				onError ? { onError } : {},
			),
		],
		connections: chainConnections(chain),
	};
	const result = await runWorkflow(workflow, { credentials: [] });
	return { ...result, items: result.output('Lookup'), errors: result.output('Lookup', 1) };
}

/** The node's parse counter and cache, from the built module n8n loaded (the same instance). */
export function cacheStats(): { parses: number; cached: Array<{ sha256: string; kind?: string }> } {
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	const cache = require(path.join(ROOT, 'dist/nodes/shared/ipDatabases/databaseCache.js')) as {
		cacheStats: () => ReturnType<typeof cacheStats>;
	};
	return cache.cacheStats();
}

/** Address text of a 16-byte value (IPv4 networks sit in ::/96, as in network.ts). */
function addressText(bytes: Uint8Array, v4: boolean): string {
	if (v4) return Array.from(bytes.subarray(12)).join('.');
	const groups: string[] = [];
	for (let index = 0; index < 16; index += 2)
		groups.push(((bytes[index] << 8) | bytes[index + 1]).toString(16));
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
	const around = [add(first, -1), first, middle, last, add(last, 1)].filter(
		(value): value is Uint8Array => value !== undefined,
	);
	// IPv4 edges that leave ::/96 are not IPv4 addresses
	return around
		.filter((value) => !v4 || value.subarray(0, 12).every((byte) => byte === 0))
		.map((value) => addressText(value, v4));
}

/** Whether a CIDR covers an address (test-side arithmetic, independent of the node's). */
export function covers(cidr: string, address: string): boolean {
	const { bytes, bits } = parseCidr(cidr);
	if (cidr.includes(':') !== address.includes(':')) return false;
	const target = ipBytes(address);
	for (let bit = 0; bit < bits; bit++) if (bitAt(bytes, bit) !== bitAt(target, bit)) return false;
	return true;
}
