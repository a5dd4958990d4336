import { NodeConnectionTypes, NodeOperationError } from 'n8n-workflow';
import type { IExecuteFunctions, INodeExecutionData, INodeType, INodeTypeDescription } from 'n8n-workflow';

import { errorItem } from '../shared/engine/errorItems';
import { parseIpAddress } from '../shared/values/ipAddress';
import { databaseOf } from '../shared/ipDatabases/databaseSource';
import type { DatabaseFile } from '../shared/ipDatabases/databaseSource';
import type { IpDatabase } from '../shared/ipDatabases/lookupTypes';
import { answer, checkShape, ShapeError, type Looked, type Shape } from './answers';
import { choicesOf, chosenFile, inputError, text, type ChosenFile, type DatabaseChoice } from './databaseChoice';
import { nameOf, roleOf } from './databaseRoles';
import { properties } from './properties';

/**
 * Local lookups in downloaded IP databases (contract 2.11: "for local lookups"): no credential,
 * no request, no credit. Each database arrives as n8n binary data, either once, in the first item
 * of an earlier node (the download node in the same run, or a node that read the stored file),
 * or on each input item; it is parsed once and reused while its content is the same. Up to one
 * database of each kind (geolocation, ASN, security) answers each item together.
 */

interface PreparedItem {
	ipAddress: string;
	address: Uint8Array;
	shape: Shape;
	files: Array<ChosenFile & { choice: DatabaseChoice }>;
}

/**
 * An item checked before any lookup: its address, and the file of each database chosen. The node
 * and field of "From a Node" are read through n8n's expression data once per distinct pair.
 */
function prepare(ctx: IExecuteFunctions, itemIndex: number, fromNodes: Map<string, DatabaseFile>): PreparedItem {
	const ipAddress = text(ctx.getNodeParameter('ipAddress', itemIndex, ''));
	if (ipAddress === '') throw inputError(ctx, itemIndex, 'IP Address (ipAddress)', 'is required: the IPv4 or IPv6 address to look up');
	const address = parseIpAddress(ipAddress);
	if (!address) {
		throw inputError(
			ctx,
			itemIndex,
			'IP Address (ipAddress)',
			`"${ipAddress}" is not an IPv4 address (such as 8.8.8.8) or an IPv6 address (such as 2001:4860::8888)`,
		);
	}
	const shape = ctx.getNodeParameter('outputShape', itemIndex, 'asStored') as Shape;
	const files = choicesOf(ctx, itemIndex).map((choice) => ({ ...chosenFile(ctx, itemIndex, choice, fromNodes), choice }));
	return { ipAddress, address, shape, files };
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
			'Look IP addresses up in downloaded IP geolocation, ASN and security databases (MMDB or CSV): no key, no request, no credit',
		documentationUrl: 'https://docs.abstractapi.com/ip-intelligence',
		defaults: { name: 'IP Database Lookup' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		properties,
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const items = this.getInputData();
		// With an On Error setting that continues, nothing below may throw: n8n would then pass the
		// input items on as if they had succeeded. Every failure becomes that item's error item.
		const continueOnFail = this.continueOnFail();
		const failed = (error: unknown, itemIndex: number, database?: string): INodeExecutionData => {
			if (!continueOnFail) throw asNodeError(this, error, itemIndex, database);
			return errorItem(this, asNodeError(this, error, itemIndex, database), itemIndex);
		};

		// Every item is checked before any lookup: a bad address is named before work is done.
		const prepared: Array<{ item: PreparedItem } | { failure: INodeExecutionData }> = [];
		const fromNodes = new Map<string, DatabaseFile>();
		for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
			try {
				prepared.push({ item: prepare(this, itemIndex, fromNodes) });
			} catch (error) {
				prepared.push({ failure: failed(error, itemIndex) });
			}
		}

		// One parse (or cache hit) per distinct file in this run, shared by its items.
		const databases = new Map<string, Promise<IpDatabase>>();
		const results: INodeExecutionData[] = [];
		for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
			const checked = prepared[itemIndex];
			if ('failure' in checked) {
				results.push(checked.failure);
				continue;
			}
			const entry = checked.item;
			// With several databases, a file's error says which of them it is.
			let current: string | undefined;
			try {
				const looked: Looked[] = [];
				for (const { file, fileKey, choice } of entry.files) {
					current = entry.files.length > 1 ? choice.label : undefined;
					let database = databases.get(fileKey);
					if (!database) {
						database = databaseOf(this, file);
						databases.set(fileKey, database);
					}
					const role = roleOf(await database);
					checkShape(role, entry.shape);
					looked.push({ role, match: (await database).lookup(entry.address) });
				}
				current = undefined;
				checkOneOfEachKind(this, itemIndex, looked, entry.files);
				results.push({ json: answer(looked, entry.ipAddress, entry.shape), pairedItem: { item: itemIndex } });
			} catch (error) {
				results.push(failed(error, itemIndex, current));
			}
		}
		return [results];
	}
}

/** Each part of the answer from one database: two geolocation files cannot both be right. */
function checkOneOfEachKind(ctx: IExecuteFunctions, itemIndex: number, looked: Looked[], files: PreparedItem['files']): void {
	const seen = new Map<string, number>();
	looked.forEach(({ role }, index) => {
		const before = seen.get(role.key);
		if (before === undefined) {
			seen.set(role.key, index);
			return;
		}
		const describe = (at: number) => `${files[at].choice.label} (${nameOf(looked[at].role)})`;
		throw inputError(
			ctx,
			itemIndex,
			'More Databases (moreDatabases)',
			`${describe(before)} and ${describe(index)} are both ${role.role ? `${role.role} databases` : `"${role.key}" databases`}; give at most one geolocation, one ASN and one security database`,
		);
	});
}

/** The error of an item as n8n shows it; `database` names which of several databases failed. */
function asNodeError(ctx: IExecuteFunctions, error: unknown, itemIndex: number, database?: string): NodeOperationError {
	if (error instanceof NodeOperationError) return error;
	const message = `${database ? `${database}: ` : ''}${(error as Error).message ?? String(error)}`;
	if (error instanceof ShapeError) return new NodeOperationError(ctx.getNode(), message, { itemIndex, description: error.description });
	return new NodeOperationError(ctx.getNode(), message, {
		itemIndex,
		description: 'The database file could not be used; nothing was looked up. Give the node the .mmdb or .csv file from the IP Database Download node (Output: Database File).',
	});
}
