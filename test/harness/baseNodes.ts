import { promises as fs } from 'fs';
import path from 'path';

import { NodeConnectionTypes, NodeOperationError } from 'n8n-workflow';
import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';

import { CONVERT_TO_FILE_TYPE, convertToFileCsv } from './convertToFile';

/**
 * Stand-ins for the few n8n-nodes-base types the example workflows use (n8n-nodes-base itself
 * needs a newer n8n-core than installs on Node 20). Each does what the real node does for the
 * parameters the examples set, and no more; `npm run test:e2e` runs the same workflows in a real
 * n8n with the real nodes.
 */

function describe(name: string, displayName: string, extra: Partial<INodeTypeDescription> = {}): INodeTypeDescription {
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

const paired = (json: IDataObject, item: number, binary?: INodeExecutionData['binary']): INodeExecutionData => ({
	json,
	...(binary ? { binary } : {}),
	pairedItem: { item },
});

/** Manual Trigger: one empty item. */
class ManualTrigger implements INodeType {
	description = describe('manualTrigger', 'Manual Trigger', { group: ['trigger'], inputs: [] });

	async execute(): Promise<INodeExecutionData[][]> {
		return [[{ json: {} }]];
	}
}

/** Schedule Trigger: one item with the time it fired, as the real node gives it. */
class ScheduleTrigger implements INodeType {
	description = describe('scheduleTrigger', 'Schedule Trigger', {
		group: ['trigger'],
		inputs: [],
		properties: [{ displayName: 'Rule', name: 'rule', type: 'json', default: {} }],
	});

	async execute(): Promise<INodeExecutionData[][]> {
		const now = new Date();
		return [[{ json: { timestamp: now.toISOString(), 'Readable date': now.toUTCString() } }]];
	}
}

/** Edit Fields (Set): `raw` mode (JSON output) and `manual` mode (assignments). */
class EditFields implements INodeType {
	description = describe('set', 'Edit Fields', {
		properties: [
			{ displayName: 'Mode', name: 'mode', type: 'string', default: 'manual' },
			{ displayName: 'JSON', name: 'jsonOutput', type: 'string', default: '{}', displayOptions: { show: { mode: ['raw'] } } },
			{
				displayName: 'Fields to Set',
				name: 'assignments',
				type: 'assignmentCollection',
				default: {},
				displayOptions: { show: { mode: ['manual'] } },
			},
			{ displayName: 'Include Other Input Fields', name: 'includeOtherFields', type: 'boolean', default: false },
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
					const parsed = typeof raw === 'string' ? (JSON.parse(raw) as IDataObject) : raw;
					return paired({ ...base, ...parsed }, itemIndex);
				}
				const assignments = this.getNodeParameter('assignments.assignments', itemIndex, []) as Array<{
					name: string;
					value: unknown;
				}>;
				for (const { name, value } of assignments) base[name] = value as IDataObject[string];
				return paired(base, itemIndex);
			}),
		];
	}
}

/** Split Out: one item per element of a list field. */
class SplitOut implements INodeType {
	description = describe('splitOut', 'Split Out', {
		properties: [
			{ displayName: 'Fields to Split Out', name: 'fieldToSplitOut', type: 'string', default: '' },
			{ displayName: 'Options', name: 'options', type: 'json', default: {} },
		],
	});

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return [
			this.getInputData().flatMap((input, itemIndex) => {
				const field = this.getNodeParameter('fieldToSplitOut', itemIndex) as string;
				const list = input.json[field];
				if (!Array.isArray(list)) throw new NodeOperationError(this.getNode(), `${field} is not a list`, { itemIndex });
				return list.map((element) =>
					paired(typeof element === 'object' && element !== null ? (element as IDataObject) : { [field]: element }, itemIndex),
				);
			}),
		];
	}
}

/** If: the real node's `conditions` filter, evaluated by n8n-core, routing to true or false. */
class If implements INodeType {
	description = describe('if', 'If', {
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
			const pass = this.getNodeParameter('conditions', itemIndex, false, { extractValue: true }) as boolean;
			(pass ? kept : dropped).push({ ...input, pairedItem: { item: itemIndex } });
		});
		return [kept, dropped];
	}
}

/** Read/Write Files from Disk, `write` operation: the item's binary property to a path. */
class ReadWriteFile implements INodeType {
	description = describe('readWriteFile', 'Read/Write Files from Disk', {
		properties: [
			{ displayName: 'Operation', name: 'operation', type: 'string', default: 'read' },
			{ displayName: 'File Path and Name', name: 'fileName', type: 'string', default: '' },
			{ displayName: 'Input Binary Field', name: 'dataPropertyName', type: 'string', default: 'data' },
			{ displayName: 'Options', name: 'options', type: 'json', default: {} },
		],
	});

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const output: INodeExecutionData[] = [];
		const items = this.getInputData();
		for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
			const fileName = this.getNodeParameter('fileName', itemIndex) as string;
			const property = this.getNodeParameter('dataPropertyName', itemIndex, 'data') as string;
			const bytes = await this.helpers.getBinaryDataBuffer(itemIndex, property);
			await fs.mkdir(path.dirname(fileName), { recursive: true });
			await fs.writeFile(fileName, bytes);
			output.push(paired({ ...items[itemIndex].json, fileName }, itemIndex, items[itemIndex].binary));
		}
		return [output];
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
	// Bulk CSV example (issue 9): Convert to File, CSV operation, in its own file.
	[CONVERT_TO_FILE_TYPE]: convertToFileCsv,
};

export const TRIGGER_TYPES = new Set(['n8n-nodes-base.manualTrigger', 'n8n-nodes-base.scheduleTrigger']);
