import { NodeOperationError } from 'n8n-workflow';
import type { IBinaryData, IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import type { DatabaseFile } from '../shared/ipDatabases/databaseSource';
import { fieldLabel } from '../shared/parameters/fieldLabel';
import { binaryPropertyName, databaseNode, moreDatabasesParameter } from './properties';

/**
 * Which database files an item is looked up in: the first one from the node's top-level
 * parameters (as version 1 always had them), up to two more from "More Databases".
 */

export type Source = 'fromNode' | 'thisItem';

/** One database the user chose: where its file comes from. */
export interface DatabaseChoice {
	/** "Database" for the top-level one, "More Databases › Database 2" ... for the others. */
	label: string;
	source: Source;
	/** The Database Node value as saved: a node name, or an expression (kept raw, see nodeReference). */
	databaseNode: string;
	binaryPropertyName: string;
	/** The parameter path under which the Database Node value sits, for evaluating an expression. */
	nodeParameter: string;
	/** How errors name this choice's fields. */
	fields: { databaseNode: string; binaryPropertyName: string };
}

export interface ChosenFile {
	file: DatabaseFile;
	/** The same file for many items (one node's first item, or one binary shared by items). */
	fileKey: string;
}

export const MAX_DATABASES = 3;

const TOP_FIELDS = {
	databaseNode: fieldLabel(databaseNode),
	binaryPropertyName: fieldLabel(binaryPropertyName),
};

export function inputError(
	ctx: IExecuteFunctions,
	itemIndex: number,
	field: string,
	rule: string,
): NodeOperationError {
	return new NodeOperationError(ctx.getNode(), `Invalid ${field}: ${rule}`, {
		itemIndex,
		description: `Item ${itemIndex + 1} was not looked up. Fix ${field} and run again.`,
	});
}

export function text(value: unknown): string {
	return value === undefined || value === null ? '' : String(value).trim();
}

/** The databases chosen for an item, as saved (Database Node expressions unevaluated). */
export function choicesOf(ctx: IExecuteFunctions, itemIndex: number): DatabaseChoice[] {
	const raw = { rawExpressions: true };
	const choices: DatabaseChoice[] = [
		{
			label: 'Database',
			source: ctx.getNodeParameter('databaseSource', itemIndex, 'fromNode') as Source,
			databaseNode: text(ctx.getNodeParameter('databaseNode', itemIndex, '', raw)),
			binaryPropertyName: text(ctx.getNodeParameter('binaryPropertyName', itemIndex, 'data')),
			nodeParameter: 'databaseNode',
			fields: TOP_FIELDS,
		},
	];
	const more = ctx.getNodeParameter('moreDatabases.databases', itemIndex, [], raw) as IDataObject[];
	more.forEach((entry, index) => {
		const label = `More Databases › Database ${index + 2}`;
		choices.push({
			label,
			source: (text(entry.databaseSource) || 'fromNode') as Source,
			databaseNode: text(entry.databaseNode),
			// A binary field name is rarely an expression; when it is, it is evaluated per item.
			binaryPropertyName: text(
				ctx.getNodeParameter(
					`moreDatabases.databases[${index}].binaryPropertyName`,
					itemIndex,
					'data',
				),
			),
			nodeParameter: `moreDatabases.databases[${index}].databaseNode`,
			fields: {
				databaseNode: `${label} › ${TOP_FIELDS.databaseNode}`,
				binaryPropertyName: `${label} › ${TOP_FIELDS.binaryPropertyName}`,
			},
		});
	});
	if (choices.length > MAX_DATABASES) {
		throw inputError(
			ctx,
			itemIndex,
			fieldLabel(moreDatabasesParameter),
			`holds ${more.length} databases; the node takes at most ${MAX_DATABASES} in all (one geolocation, one ASN and one security database)`,
		);
	}
	return choices;
}

/**
 * The node a saved Database Node value names, read without evaluating it when it has one of the
 * forms n8n rewrites on rename: `={{ $('Name').first() }}`, `={{ $('Name') }}`, `={{ $node["Name"] }}`
 * (n8n-workflow's `renameNode` rewrites `$('…')`, `$node[…]` and `$items(…)` inside expressions,
 * never plain text). A plain name, as version 1 workflows saved it, is read as the name.
 * Anything else is an expression to evaluate: `undefined`.
 */
export function nodeReference(saved: string): string | undefined {
	if (!saved.startsWith('=')) return saved;
	const match =
		/^=\s*\{\{\s*\$(?:\(\s*(['"`])(.+)\1\s*\)|node\[\s*(['"])(.+)\3\s*\])(?:\s*\.\s*first\(\s*\))?\s*;?\s*\}\}\s*$/s.exec(
			saved,
		);
	if (!match) return undefined;
	return match[2] ?? match[4];
}

/** The type of the package's download node, whatever the package's prefix (n8n-nodes-abstractapi., CUSTOM. ...). */
const DOWNLOAD_NODE_TYPE = /\.abstractIpDatabase$/;

/** The download node's default name, which Database Node named before it was empty by default. */
const DOWNLOAD_NODE_NAME = 'IP Database Download';

/**
 * An empty Database Node: the IP Database Download node that runs before this one (the only one,
 * or the one with its default name); with none or several, an error that says what to connect or
 * to choose. Only the first database: More Databases entries name their nodes.
 */
function downloadNodeBefore(
	ctx: IExecuteFunctions,
	itemIndex: number,
	choice: DatabaseChoice,
): string {
	const example = "{{ $('Read Database File').first() }}";
	if (choice.nodeParameter !== 'databaseNode') {
		throw inputError(
			ctx,
			itemIndex,
			choice.fields.databaseNode,
			`is required: the earlier node whose first item holds this database's file, for instance ${example}`,
		);
	}
	const before =
		typeof ctx.getParentNodes === 'function'
			? ctx.getParentNodes(ctx.getNode().name).filter((node) => !node.disabled)
			: [];
	const downloads = before.filter((node) => DOWNLOAD_NODE_TYPE.test(node.type));
	if (downloads.length === 1) return downloads[0].name;
	if (before.some((node) => node.name === DOWNLOAD_NODE_NAME)) return DOWNLOAD_NODE_NAME;
	if (downloads.length === 0) {
		throw inputError(
			ctx,
			itemIndex,
			choice.fields.databaseNode,
			`is empty, and no IP Database Download node runs before this one: connect one before this node (Output: Database File), or give the node whose first item holds the database file, as ${example}`,
		);
	}
	const names = downloads.map((node) => node.name);
	throw inputError(
		ctx,
		itemIndex,
		choice.fields.databaseNode,
		`is empty, and ${names.length} IP Database Download nodes run before this one (${names.map((name) => `"${name}"`).join(', ')}): choose one, as {{ $('${names[0]}').first() }}, and give the others under More Databases`,
	);
}

/** The file of one choice for one item; `fromNodes` keeps what was read from earlier nodes. */
export function chosenFile(
	ctx: IExecuteFunctions,
	itemIndex: number,
	choice: DatabaseChoice,
	fromNodes: Map<string, DatabaseFile>,
): ChosenFile {
	const property = choice.binaryPropertyName;
	if (property === '') {
		throw inputError(
			ctx,
			itemIndex,
			choice.fields.binaryPropertyName,
			'is required: the name of the binary field that holds the database file, for instance data',
		);
	}
	if (choice.source === 'thisItem') {
		const item = ctx.getInputData()[itemIndex];
		const file = {
			binary: binaryOf(ctx, itemIndex, item, property, `input item ${itemIndex + 1}`, choice),
			json: item.json,
		};
		return { file, fileKey: keyOf(file.binary) };
	}
	const nodeName =
		choice.databaseNode === ''
			? downloadNodeBefore(ctx, itemIndex, choice)
			: nodeReference(choice.databaseNode);
	if (nodeName === undefined) return evaluatedFile(ctx, itemIndex, choice);
	const key = `${nodeName}\u0000${property}`;
	let file = fromNodes.get(key);
	if (!file) {
		file = fileFromNode(ctx, itemIndex, nodeName, choice);
		fromNodes.set(key, file);
	}
	return { file, fileKey: keyOf(file.binary) };
}

const keyOf = (binary: IBinaryData) => binary.id ?? binary.data;

/**
 * A Database Node expression of another form, evaluated for the item: it may give a node's name
 * (`{{ $json.databaseNode }}`) or the item that holds the file (`{{ $('Read').last() }}`).
 */
function evaluatedFile(
	ctx: IExecuteFunctions,
	itemIndex: number,
	choice: DatabaseChoice,
): ChosenFile {
	let value: unknown;
	try {
		value = ctx.getNodeParameter(choice.nodeParameter, itemIndex);
	} catch (error) {
		throw inputError(
			ctx,
			itemIndex,
			choice.fields.databaseNode,
			`the expression cannot be evaluated: ${(error as Error).message}`,
		);
	}
	if (typeof value === 'string' && value.trim() !== '') {
		const file = fileFromNode(ctx, itemIndex, value.trim(), choice);
		return { file, fileKey: keyOf(file.binary) };
	}
	if (typeof value === 'object' && value !== null && 'binary' in value) {
		const item = value as INodeExecutionData;
		const file = {
			binary: binaryOf(
				ctx,
				itemIndex,
				item,
				choice.binaryPropertyName,
				'the item the expression gives',
				choice,
			),
			json: item.json,
		};
		return { file, fileKey: keyOf(file.binary) };
	}
	throw inputError(
		ctx,
		itemIndex,
		choice.fields.databaseNode,
		`the expression gives ${value === null || value === undefined || value === '' ? 'nothing' : typeof value}, not a node's name or an item with the database file; use {{ $('Node name').first() }}`,
	);
}

/** The binary field of the first item of an earlier node, read through n8n's expression data. */
function fileFromNode(
	ctx: IExecuteFunctions,
	itemIndex: number,
	nodeName: string,
	choice: DatabaseChoice,
): DatabaseFile {
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
			choice.fields.databaseNode,
			`"${nodeName}" is not a node that ran before this one in this execution (${(error as Error).message}). Give the name of the node whose first item holds the database file, as the canvas shows it`,
		);
	}
	if (!item)
		throw inputError(
			ctx,
			itemIndex,
			choice.fields.databaseNode,
			`node "${nodeName}" output no items, so there is no database file to read`,
		);
	return {
		binary: binaryOf(
			ctx,
			itemIndex,
			item,
			choice.binaryPropertyName,
			`the first item of node "${nodeName}"`,
			choice,
		),
		json: item.json,
	};
}

function binaryOf(
	ctx: IExecuteFunctions,
	itemIndex: number,
	item: INodeExecutionData,
	property: string,
	where: string,
	choice: DatabaseChoice,
): IBinaryData {
	const binary = item.binary?.[property];
	if (binary) return binary;
	const present = Object.keys(item.binary ?? {});
	throw inputError(
		ctx,
		itemIndex,
		choice.fields.binaryPropertyName,
		`${where} has no binary field "${property}"${present.length ? ` (it has: ${present.join(', ')})` : ' (it has no binary data)'}`,
	);
}
