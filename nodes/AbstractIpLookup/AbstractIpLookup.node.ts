import { NodeConnectionTypes } from 'n8n-workflow';
import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';

import { errorItem } from '../shared/engine/errorItems';
import { inputKindOf } from '../shared/csv/csvParameterReaders';
import type { DatabaseFile } from '../shared/ipDatabases/databaseSource';
import { fieldLabel } from '../shared/parameters/fieldLabel';
import { checkedAddress, type CheckedAddress } from './address';
import type { Shape } from './answers';
import { choicesOf, chosenFile } from './databaseChoice';
import { lookUpFile } from './fileLookup';
import {
	asNodeError,
	openDatabases,
	type ChosenDatabase,
	type ParsedDatabases,
} from './openDatabases';
import { ipAddressParameter, properties } from './properties';

/**
 * Local lookups in downloaded IP databases (licensed "for local lookups"): no credential,
 * no request, no credit. Each database arrives as n8n binary data, either once, in the first item
 * of an earlier node (the download node in the same run, or a node that read the stored file),
 * or on each input item; it is parsed once and reused while its content is the same. Up to one
 * database of each kind (geolocation, ASN, security) answers each item together. The addresses
 * come one per item, or as a CSV file's column (fileLookup.ts).
 */

interface ItemDatabases {
	shape: Shape;
	files: ChosenDatabase[];
}

/**
 * The databases an item is looked up in, checked before any lookup. The node and field of
 * "From a Node" are read through n8n's expression data once per distinct pair.
 */
function databasesOf(
	ctx: IExecuteFunctions,
	itemIndex: number,
	fromNodes: Map<string, DatabaseFile>,
): ItemDatabases {
	const shape = ctx.getNodeParameter('outputShape', itemIndex, 'asStored') as Shape;
	const files = choicesOf(ctx, itemIndex).map((choice) => ({
		...chosenFile(ctx, itemIndex, choice, fromNodes),
		choice,
	}));
	return { shape, files };
}

export class AbstractIpLookup implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Abstract IP Database Lookup',
		name: 'abstractIpLookup',
		icon: { light: 'file:abstractIpLookup.svg', dark: 'file:abstractIpLookup.dark.svg' },
		group: ['transform'],
		version: 1,
		subtitle:
			'={{$parameter["outputShape"] === "likeTheApi" ? "Look up, like the API" : "Look up, as stored"}}',
		description:
			'Look IP addresses up in downloaded IP geolocation, ASN and security databases (MMDB or CSV): no key, no request, no credit',
		documentationUrl: 'https://docs.abstractapi.com/api/ip-intelligence',
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
		const failed = (error: unknown, itemIndex: number): INodeExecutionData => {
			if (!continueOnFail) throw asNodeError(this, error, itemIndex);
			return errorItem(this, asNodeError(this, error, itemIndex), itemIndex);
		};

		const fromNodes = new Map<string, DatabaseFile>();
		// One parse (or cache hit) per distinct file in this run, shared by its items.
		const parsed: ParsedDatabases = new Map();
		const results: INodeExecutionData[] = [];

		// Value or CSV file, read as the lookup nodes read it, but not through their valueOrFile:
		// that gives the request engine a `prepare`, whose file rows become paced, paid requests
		// under the 50,000-row limit; this node sends nothing and streams any number of rows.
		if (items.length > 0 && inputKindOf(this, 0) === 'csvFile') {
			for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
				try {
					const { files, shape } = databasesOf(this, itemIndex, fromNodes);
					results.push(
						...(await lookUpFile(
							this,
							itemIndex,
							async () => await openDatabases(this, itemIndex, files, shape, parsed),
							continueOnFail,
						)),
					);
				} catch (error) {
					results.push(failed(error, itemIndex));
				}
			}
			return [results];
		}

		// Every item is checked before any lookup: a bad address is named before work is done.
		const prepared: Array<
			{ item: CheckedAddress & ItemDatabases } | { failure: INodeExecutionData }
		> = [];
		for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
			try {
				const address = checkedAddress(
					this,
					itemIndex,
					fieldLabel(ipAddressParameter),
					this.getNodeParameter(ipAddressParameter.name, itemIndex, ''),
				);
				prepared.push({ item: { ...address, ...databasesOf(this, itemIndex, fromNodes) } });
			} catch (error) {
				prepared.push({ failure: failed(error, itemIndex) });
			}
		}

		for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
			const checked = prepared[itemIndex];
			if ('failure' in checked) {
				results.push(checked.failure);
				continue;
			}
			const { address, ipAddress, files, shape } = checked.item;
			try {
				const databases = await openDatabases(this, itemIndex, files, shape, parsed);
				results.push({
					json: databases.lookUp(address, ipAddress),
					pairedItem: { item: itemIndex },
				});
			} catch (error) {
				results.push(failed(error, itemIndex));
			}
		}
		return [results];
	}
}
