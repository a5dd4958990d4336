import { constants, promises as fs } from 'fs';
import path from 'path';

import {
	BINARY_ENCODING,
	NodeApiError,
	NodeConnectionTypes,
	NodeOperationError,
} from 'n8n-workflow';
import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
	JsonObject,
	ResolvedFilePath,
} from 'n8n-workflow';

import { CONVERT_TO_FILE_TYPE, convertToFileCsv } from './convertToFile';
import { resolveFromWorkingDirectory } from './n8nFiles';

/**
 * Stand-ins for the few n8n-nodes-base types the example workflows use (n8n-nodes-base itself
 * needs a newer n8n-core than installs on Node 20). Each does what the real node does for the
 * parameters the examples set, and no more; `npm run test:e2e` runs the same workflows in a real
 * n8n with the real nodes.
 */

/** A node type's description as the harness's own node types have it: one main input and output, no parameters unless given. */
export function describeNodeType(
	name: string,
	displayName: string,
	extra: Partial<INodeTypeDescription> = {},
): INodeTypeDescription {
	return {
		displayName,
		name,
		group: ['transform'],
		version: [1, 1.1, 2, 2.1, 2.2, 3, 3.3, 3.4],
		description: `${displayName} (harness stand-in)`,
		defaults: { name: displayName },
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		properties: [],
		...extra,
	};
}

const paired = (
	json: IDataObject,
	item: number,
	binary?: INodeExecutionData['binary'],
): INodeExecutionData => ({
	json,
	...(binary ? { binary } : {}),
	pairedItem: { item },
});

/** Manual Trigger: one empty item. */
class ManualTrigger implements INodeType {
	description = describeNodeType('manualTrigger', 'Manual Trigger', {
		group: ['trigger'],
		inputs: [],
	});

	async execute(): Promise<INodeExecutionData[][]> {
		return [[{ json: {} }]];
	}
}

/**
 * Schedule Trigger: one item with the time it fired, under the keys the real node gives (in UTC,
 * the harness's time zone).
 */
class ScheduleTrigger implements INodeType {
	description = describeNodeType('scheduleTrigger', 'Schedule Trigger', {
		group: ['trigger'],
		inputs: [],
		version: [1, 1.1, 1.2],
		properties: [{ displayName: 'Rule', name: 'rule', type: 'json', default: {} }],
	});

	async execute(): Promise<INodeExecutionData[][]> {
		return [[{ json: firedAt(new Date()) }]];
	}
}

const MONTHS = [
	'January',
	'February',
	'March',
	'April',
	'May',
	'June',
	'July',
	'August',
	'September',
	'October',
	'November',
	'December',
];
const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

/** The real node's item for a tick at `now` (its moment formats, in UTC). */
function firedAt(now: Date): IDataObject {
	const two = (value: number) => String(value).padStart(2, '0');
	const day = now.getUTCDate();
	const ordinal =
		day % 10 === 1 && day !== 11
			? 'st'
			: day % 10 === 2 && day !== 12
				? 'nd'
				: day % 10 === 3 && day !== 13
					? 'rd'
					: 'th';
	const hours = now.getUTCHours();
	const time = `${hours % 12 || 12}:${two(now.getUTCMinutes())}:${two(now.getUTCSeconds())} ${hours < 12 ? 'am' : 'pm'}`;
	return {
		timestamp: now.toISOString().replace('Z', '+00:00'),
		'Readable date': `${MONTHS[now.getUTCMonth()]} ${day}${ordinal} ${now.getUTCFullYear()}, ${time}`,
		'Readable time': time,
		'Day of week': DAYS[now.getUTCDay()],
		Year: String(now.getUTCFullYear()),
		Month: MONTHS[now.getUTCMonth()],
		'Day of month': two(day),
		Hour: two(hours),
		Minute: two(now.getUTCMinutes()),
		Second: two(now.getUTCSeconds()),
		Timezone: 'UTC (UTC+00:00)',
	};
}

/** Edit Fields (Set): `raw` mode (JSON output) and `manual` mode (assignments). */
class EditFields implements INodeType {
	description = describeNodeType('set', 'Edit Fields', {
		properties: [
			{ displayName: 'Mode', name: 'mode', type: 'string', default: 'manual' },
			{
				displayName: 'JSON',
				name: 'jsonOutput',
				type: 'string',
				default: '{}',
				displayOptions: { show: { mode: ['raw'] } },
			},
			{
				displayName: 'Fields to Set',
				name: 'assignments',
				type: 'assignmentCollection',
				default: {},
				displayOptions: { show: { mode: ['manual'] } },
			},
			{
				displayName: 'Include Other Input Fields',
				name: 'includeOtherFields',
				type: 'boolean',
				default: false,
			},
			{ displayName: 'Options', name: 'options', type: 'json', default: {} },
		],
	});

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return [
			this.getInputData().map((input, itemIndex) => {
				const mode = this.getNodeParameter('mode', itemIndex, 'manual') as string;
				const include = this.getNodeParameter('includeOtherFields', itemIndex, false) as boolean;
				const base: IDataObject = include ? { ...input.json } : {};
				if (mode === 'raw') {
					const raw = this.getNodeParameter('jsonOutput', itemIndex) as string | IDataObject;
					try {
						return paired({ ...base, ...jsonObject(raw, itemIndex) }, itemIndex);
					} catch (error) {
						if (this.continueOnFail())
							return paired({ error: (error as Error).message }, itemIndex);
						throw new NodeOperationError(this.getNode(), error as Error, { itemIndex });
					}
				}
				const assignments = this.getNodeParameter(
					'assignments.assignments',
					itemIndex,
					[],
				) as Array<{
					name: string;
					value: unknown;
				}>;
				for (const { name, value } of assignments) base[name] = value as IDataObject[string];
				return paired(base, itemIndex);
			}),
		];
	}
}

/** The real node's reading of 'JSON Output': a JSON object, or an error saying which rule failed. */
function jsonObject(raw: string | IDataObject, itemIndex: number): IDataObject {
	let parsed: unknown = raw;
	if (typeof raw === 'string') {
		try {
			parsed = JSON.parse(raw);
		} catch {
			throw new Error(`The 'JSON Output' in item ${itemIndex} contains invalid JSON`);
		}
	}
	if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
		throw new Error(`The 'JSON Output' in item ${itemIndex} does not contain a valid JSON object`);
	}
	return parsed as IDataObject;
}

/**
 * Split Out (one field, "No Other Fields", as the examples use it), as the real node does it: one
 * item per element of the field (a list; an object gives its values, any other value itself); an
 * element that is an object becomes the item, any other element `{ <field>: element }`. A field the
 * item lacks gives no items and no error.
 */
class SplitOut implements INodeType {
	description = describeNodeType('splitOut', 'Split Out', {
		version: 1,
		properties: [
			{ displayName: 'Fields To Split Out', name: 'fieldToSplitOut', type: 'string', default: '' },
			{ displayName: 'Include', name: 'include', type: 'string', default: 'noOtherFields' },
			{ displayName: 'Options', name: 'options', type: 'json', default: {} },
		],
	});

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return [
			this.getInputData().flatMap((input, itemIndex) => {
				const field = (this.getNodeParameter('fieldToSplitOut', itemIndex) as string)
					.trim()
					.replace(/^\$json\./, '');
				const include = this.getNodeParameter('include', itemIndex) as string;
				if (include !== 'noOtherFields' || field.includes(',')) {
					throw new NodeOperationError(
						this.getNode(),
						'The harness stand-in splits out one field with "No Other Fields" only',
						{ itemIndex },
					);
				}
				const value = input.json[field];
				const list: unknown[] =
					value === undefined
						? []
						: Array.isArray(value)
							? value
							: typeof value === 'object' && value !== null
								? Object.values(value)
								: [value];
				return list.map((element) =>
					paired(
						typeof element === 'object' && element !== null
							? { ...(element as IDataObject) }
							: { [field]: element as IDataObject[string] },
						itemIndex,
					),
				);
			}),
		];
	}
}

/** If: the real node's `conditions` filter, evaluated by n8n-core, routing to true or false. */
class If implements INodeType {
	description = describeNodeType('if', 'If', {
		outputs: [NodeConnectionTypes.Main, NodeConnectionTypes.Main],
		properties: [
			{ displayName: 'Conditions', name: 'conditions', type: 'filter', default: {} },
			{ displayName: 'Options', name: 'options', type: 'json', default: {} },
		],
	});

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const kept: INodeExecutionData[] = [];
		const dropped: INodeExecutionData[] = [];
		this.getInputData().forEach((input, itemIndex) => {
			const pass = this.getNodeParameter('conditions', itemIndex, false, {
				extractValue: true,
			}) as boolean;
			(pass ? kept : dropped).push({ ...input, pairedItem: { item: itemIndex } });
		});
		return [kept, dropped];
	}
}

/**
 * Read/Write Files from Disk (n8n-nodes-base 2.41.1, versions 1 and 1.1), `read` (below) and `write`, as the
 * real node does it: the path goes through n8n-core's own file helpers (`resolvePath`, then
 * `writeContentToFile`), which apply n8n's file restriction (`N8N_RESTRICT_FILE_ACCESS_TO`,
 * default `~/.n8n-files`) and create no folder: a missing folder fails with `realpath` ENOENT, a
 * folder outside the restriction is refused. A relative path resolves from n8n's working
 * directory (the harness's, see ./n8nFiles.ts). The output item is the input's JSON plus
 * `fileName` as given, with the input's binary; with Continue On Fail an error becomes
 * `{ error }`, paired.
 */
class ReadWriteFile implements INodeType {
	description = describeNodeType('readWriteFile', 'Read/Write Files from Disk', {
		group: ['input'],
		version: [1, 1.1],
		properties: [
			{ displayName: 'Operation', name: 'operation', type: 'string', default: 'read' },
			{
				displayName: 'File Path and Name',
				name: 'fileName',
				type: 'string',
				default: '',
				displayOptions: { show: { operation: ['write'] } },
			},
			{
				displayName: 'Input Binary Field',
				name: 'dataPropertyName',
				type: 'string',
				default: 'data',
				displayOptions: { show: { operation: ['write'] } },
			},
			{
				displayName: 'File(s) Selector',
				name: 'fileSelector',
				type: 'string',
				default: '',
				displayOptions: { show: { operation: ['read'] } },
			},
			{ displayName: 'Options', name: 'options', type: 'json', default: {} },
		],
	});

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const operation = this.getNodeParameter('operation', 0, 'read') as string;
		if (operation !== 'write' && operation !== 'read') {
			throw new NodeOperationError(
				this.getNode(),
				`The harness stand-in does only the read and write operations, not "${operation}"`,
			);
		}
		const output: INodeExecutionData[] = [];
		const items = this.getInputData();
		for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
			if (this.getNodeParameter('operation', itemIndex) === 'read') {
				output.push(...(await readFile(this, itemIndex)));
				continue;
			}
			let fileName: string | undefined;
			try {
				const property = this.getNodeParameter('dataPropertyName', itemIndex) as string;
				fileName = this.getNodeParameter('fileName', itemIndex) as string;
				const options = this.getNodeParameter('options', itemIndex, {}) as IDataObject;
				const flag = options.append
					? constants.O_APPEND
					: constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC;
				const binary = this.helpers.assertBinaryData(itemIndex, property);
				const content = binary.id
					? await this.helpers.getBinaryStream(binary.id)
					: Buffer.from(binary.data, BINARY_ENCODING);
				const target = await resolvePath(resolveFromWorkingDirectory(fileName));
				await this.helpers.writeContentToFile(target, content, flag);
				const item = items[itemIndex];
				output.push(
					paired(
						{ ...item.json, fileName },
						itemIndex,
						item.binary ? { ...item.binary } : undefined,
					),
				);
			} catch (error) {
				const message = /EACCES/.test((error as Error).message ?? '')
					? `You don't have the permissions to write the file ${fileName}`
					: undefined;
				const mapped = new NodeOperationError(this.getNode(), error as Error, {
					itemIndex,
					message,
				});
				if (this.continueOnFail()) {
					output.push(paired({ error: mapped.message }, itemIndex));
					continue;
				}
				throw new NodeApiError(this.getNode(), error as JsonObject, { itemIndex });
			}
		}
		return [output];
	}
}

/**
 * The read operation for one item, through n8n-core's restricted read (`createReadStream`), so a
 * file outside `N8N_RESTRICT_FILE_ACCESS_TO` is refused as in the real node; the path is a plain
 * path here (no glob), and no file at it gives no item, as the real node's glob does.
 */
async function readFile(ctx: IExecuteFunctions, itemIndex: number): Promise<INodeExecutionData[]> {
	const filePath = resolveFromWorkingDirectory(
		ctx.getNodeParameter('fileSelector', itemIndex) as string,
	);
	const options = ctx.getNodeParameter('options', itemIndex, {}) as IDataObject;
	let target: ResolvedFilePath;
	try {
		target = await resolvePath(filePath);
		await fs.access(target);
	} catch {
		return [];
	}
	const chunks: Buffer[] = [];
	for await (const chunk of await ctx.helpers.createReadStream(target))
		chunks.push(chunk as Buffer);
	const binary = await ctx.helpers.prepareBinaryData(Buffer.concat(chunks), target);
	const json = {
		mimeType: binary.mimeType,
		fileType: binary.fileType,
		fileName: binary.fileName,
		fileExtension: binary.fileExtension,
		fileSize: binary.fileSize,
	};
	return [
		paired(json as IDataObject, itemIndex, {
			[(options.dataPropertyName as string) || 'data']: binary,
		}),
	];
}

/**
 * n8n-core's `resolvePath`, step for step: the file's real path; for a file not there yet, its
 * folder's real path (which must exist) joined with its name. n8n-core's own helper cannot run
 * under jest: it tells ENOENT by `error instanceof Error`, and jest runs modules in a realm of
 * their own where errors from Node's fs are not instances of that realm's Error.
 */
async function resolvePath(filePath: string): Promise<ResolvedFilePath> {
	try {
		return (await fs.realpath(filePath)) as ResolvedFilePath;
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
		return path.join(
			await fs.realpath(path.dirname(filePath)),
			path.basename(filePath),
		) as ResolvedFilePath;
	}
}

/** The stand-ins by their n8n type name. */
export const BASE_NODE_TYPES: Record<string, INodeType> = {
	'n8n-nodes-base.manualTrigger': new ManualTrigger(),
	'n8n-nodes-base.scheduleTrigger': new ScheduleTrigger(),
	'n8n-nodes-base.set': new EditFields(),
	'n8n-nodes-base.splitOut': new SplitOut(),
	'n8n-nodes-base.if': new If(),
	'n8n-nodes-base.readWriteFile': new ReadWriteFile(),
	// Bulk CSV example (the enriched rows out as a CSV file): Convert to File, CSV operation, in its own file.
	[CONVERT_TO_FILE_TYPE]: convertToFileCsv,
};

export const TRIGGER_TYPES = new Set([
	'n8n-nodes-base.manualTrigger',
	'n8n-nodes-base.scheduleTrigger',
]);
