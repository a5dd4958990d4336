import { NodeConnectionTypes, NodeOperationError } from 'n8n-workflow';
import type {
	IBinaryData,
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';

import { parseIpAddress } from '../shared/ipAddress';
import { likeTheApi } from './apiShape';
import { databaseOf, type DatabaseFile } from '../shared/ipDatabases/databaseSource';
import type { IpDatabase } from '../shared/ipDatabases/lookupTypes';
import { jsonRecord } from '../shared/ipDatabases/storedValues';
import { missItem } from './misses';

/**
 * Local lookups in a downloaded IP database (contract 2.11: "for local lookups"): no credential,
 * no request, no credit. The database arrives as n8n binary data, either once, in the first item
 * of an earlier node (the download node in the same run, or a node that read the stored file),
 * or on each input item; it is parsed once and reused while its content is the same.
 */

type Source = 'fromNode' | 'thisItem';
type Shape = 'asStored' | 'likeTheApi';

interface PreparedItem {
	ipAddress: string;
	address: Uint8Array;
	file: DatabaseFile;
	/** The same file for many items (one node's first item, or one binary shared by items). */
	fileKey: string;
}

const FIELD = {
	ipAddress: 'IP Address (ipAddress)',
	databaseNode: 'Database Node (databaseNode)',
	binaryPropertyName: 'Input Binary Field (binaryPropertyName)',
};

function inputError(ctx: IExecuteFunctions, itemIndex: number, field: string, rule: string): NodeOperationError {
	return new NodeOperationError(ctx.getNode(), `Invalid ${field}: ${rule}`, {
		itemIndex,
		description: `Item ${itemIndex + 1} was not looked up. Fix ${field} and run again.`,
	});
}

function text(value: unknown): string {
	return value === undefined || value === null ? '' : String(value).trim();
}

/** The binary field of the first item of an earlier node, read through n8n's expression data. */
function fileFromNode(ctx: IExecuteFunctions, itemIndex: number, nodeName: string, property: string): DatabaseFile {
	let item: INodeExecutionData | undefined;
	try {
		const proxy = ctx.getWorkflowDataProxy(itemIndex) as unknown as {
			$: (name: string, fullItem?: boolean) => { first: () => INodeExecutionData | undefined };
		};
		item = proxy.$(nodeName, true).first();
	} catch (error) {
		throw inputError(
			ctx,
			itemIndex,
			FIELD.databaseNode,
			`"${nodeName}" is not a node that ran before this one in this execution (${(error as Error).message}). Give the name of the node whose first item holds the database file, as the canvas shows it`,
		);
	}
	if (!item) throw inputError(ctx, itemIndex, FIELD.databaseNode, `node "${nodeName}" output no items, so there is no database file to read`);
	return { binary: binaryOf(ctx, itemIndex, item, property, `the first item of node "${nodeName}"`), json: item.json };
}

function binaryOf(ctx: IExecuteFunctions, itemIndex: number, item: INodeExecutionData, property: string, where: string): IBinaryData {
	const binary = item.binary?.[property];
	if (binary) return binary;
	const present = Object.keys(item.binary ?? {});
	throw inputError(
		ctx,
		itemIndex,
		FIELD.binaryPropertyName,
		`${where} has no binary field "${property}"${present.length ? ` (it has: ${present.join(', ')})` : ' (it has no binary data)'}`,
	);
}

/**
 * The items of a run, checked: the node and field of "From a Node" are read through n8n's
 * expression data once per distinct (node, field) pair, not once per item.
 */
function prepare(ctx: IExecuteFunctions, itemIndex: number, source: Source, fromNodes: Map<string, DatabaseFile>): PreparedItem {
	const ipAddress = text(ctx.getNodeParameter('ipAddress', itemIndex, ''));
	if (ipAddress === '') throw inputError(ctx, itemIndex, FIELD.ipAddress, 'is required: the IPv4 or IPv6 address to look up');
	const address = parseIpAddress(ipAddress);
	if (!address) {
		throw inputError(ctx, itemIndex, FIELD.ipAddress, `"${ipAddress}" is not an IPv4 address (such as 8.8.8.8) or an IPv6 address (such as 2001:4860::8888)`);
	}
	const property = text(ctx.getNodeParameter('binaryPropertyName', itemIndex, 'data'));
	if (property === '') throw inputError(ctx, itemIndex, FIELD.binaryPropertyName, 'is required: the name of the binary field that holds the database file, for instance data');
	if (source === 'thisItem') {
		const item = ctx.getInputData()[itemIndex];
		const file = { binary: binaryOf(ctx, itemIndex, item, property, `input item ${itemIndex + 1}`), json: item.json };
		return { ipAddress, address, file, fileKey: file.binary.id ?? file.binary.data };
	}
	const nodeName = text(ctx.getNodeParameter('databaseNode', itemIndex, ''));
	if (nodeName === '') {
		throw inputError(ctx, itemIndex, FIELD.databaseNode, 'is required: the name of an earlier node whose first item holds the database file, for instance IP Database Download');
	}
	const key = `${nodeName}\u0000${property}`;
	let file = fromNodes.get(key);
	if (!file) {
		file = fileFromNode(ctx, itemIndex, nodeName, property);
		fromNodes.set(key, file);
	}
	return { ipAddress, address, file, fileKey: file.binary.id ?? file.binary.data };
}

function output(database: IpDatabase, item: PreparedItem, shape: Shape): IDataObject {
	if (database.kind === undefined) {
		// A file of another schema (GeoLite2, DB-IP ...): its record as stored, whichever the shape.
		const found = database.lookup(item.address);
		return found ? { ip_address: item.ipAddress, network: found.network, ...jsonRecord(found.record) } : { ip_address: item.ipAddress, found: false };
	}
	const match = database.lookup(item.address);
	if (!match) return missItem(database.kind, item.ipAddress, shape);
	if (shape === 'likeTheApi') return likeTheApi(database.kind, item.ipAddress, match.record);
	return { ip_address: item.ipAddress, network: match.network, ...match.record };
}

export class AbstractIpLookup implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Abstract IP Database Lookup',
		name: 'abstractIpLookup',
		icon: { light: 'file:abstractIpLookup.svg', dark: 'file:abstractIpLookup.dark.svg' },
		group: ['transform'],
		version: 1,
		subtitle: '={{$parameter["outputShape"] === "likeTheApi" ? "Look up, like the API" : "Look up, as stored"}}',
		description:
			'Look IP addresses up in a downloaded IP geolocation, ASN or security database (MMDB or CSV): no key, no request, no credit',
		documentationUrl: 'https://docs.abstractapi.com/ip-intelligence',
		defaults: { name: 'IP Database Lookup' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		properties: [
			{
				displayName: 'IP Address',
				name: 'ipAddress',
				type: 'string',
				default: '',
				required: true,
				placeholder: '={{ $json.ip }}',
				description: 'The IPv4 or IPv6 address to look up, usually an expression that reads it from the item',
				hint: 'An IPv4 or IPv6 address, such as 8.8.8.8 or 2001:4860::8888; anything else is an error before any lookup',
			},
			{
				displayName: 'Database Source',
				name: 'databaseSource',
				type: 'options',
				default: 'fromNode',
				options: [
					{
						name: 'From a Node',
						value: 'fromNode',
						description: 'The file in the first item of an earlier node, read once for all items',
					},
					{ name: 'This Item', value: 'thisItem', description: 'The file in each input item' },
				],
				description: 'Where the database file (.mmdb or .csv) comes from',
			},
			{
				displayName: 'Database Node',
				name: 'databaseNode',
				type: 'string',
				default: '',
				required: true,
				placeholder: 'IP Database Download',
				description:
					'The name of an earlier node (as the canvas shows it) whose first item holds the database file, for instance the IP Database Download node or a Read/Write Files from Disk node',
				hint: 'The exact name of an earlier node that runs before this one in the same execution',
				displayOptions: { show: { databaseSource: ['fromNode'] } },
			},
			{
				displayName: 'Input Binary Field',
				name: 'binaryPropertyName',
				type: 'string',
				default: 'data',
				required: true,
				description: 'The name of the binary field that holds the database file',
				hint: 'The name of the input binary field holding the .mmdb or .csv file',
			},
			{
				displayName: 'Output Shape',
				name: 'outputShape',
				type: 'options',
				default: 'asStored',
				options: [
					{
						name: 'As Stored',
						value: 'asStored',
						description: 'The record as the database stores it, plus the matched network',
					},
					{
						name: 'Like the IP Geolocation API',
						value: 'likeTheApi',
						description: 'The live API\'s field names and types (numbers, booleans, timezone.name)',
					},
				],
				description: 'How each found record is output; an address the database does not cover gives found: false either way',
			},
		],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const items = this.getInputData();
		const continueOnFail = this.continueOnFail();
		const source = this.getNodeParameter('databaseSource', 0, 'fromNode') as Source;
		const shape = this.getNodeParameter('outputShape', 0, 'asStored') as Shape;

		// Every item is checked before any lookup: a bad address is named before work is done.
		const prepared: Array<PreparedItem | Error> = [];
		const fromNodes = new Map<string, DatabaseFile>();
		for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
			try {
				prepared.push(prepare(this, itemIndex, source, fromNodes));
			} catch (error) {
				if (!continueOnFail) throw asNodeError(this, error, itemIndex);
				prepared.push(error as Error);
			}
		}

		// One parse (or cache hit) per distinct file in this run, shared by its items.
		const databases = new Map<string, Promise<IpDatabase>>();
		const results: INodeExecutionData[] = [];
		for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
			const entry = prepared[itemIndex];
			try {
				if (entry instanceof Error) throw entry;
				let database = databases.get(entry.fileKey);
				if (!database) {
					database = databaseOf(this, entry.file);
					databases.set(entry.fileKey, database);
				}
				results.push({ json: output(await database, entry, shape), pairedItem: { item: itemIndex } });
			} catch (error) {
				if (!continueOnFail) throw asNodeError(this, error, itemIndex);
				const failure = asNodeError(this, error, itemIndex);
				const json: IDataObject = { error: failure.message };
				if (failure.description) json.description = failure.description;
				results.push({ json, pairedItem: { item: itemIndex } });
			}
		}
		return [results];
	}
}

function asNodeError(ctx: IExecuteFunctions, error: unknown, itemIndex: number): NodeOperationError {
	if (error instanceof NodeOperationError) return error;
	return new NodeOperationError(ctx.getNode(), (error as Error).message ?? String(error), {
		itemIndex,
		description: 'The database file could not be used; nothing was looked up. Give the node the .mmdb or .csv file from the IP Database Download node (Output: Database File).',
	});
}
