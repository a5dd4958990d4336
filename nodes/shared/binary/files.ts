import type {
	IBinaryData,
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';

import { invalidInput } from '../engine/errors';
import { fieldLabel } from '../parameters/fieldLabel';

/**
 * Files in and out of items, through n8n's binary data helpers: in filesystem mode the bytes go
 * to disk and the item holds only a reference, so large files never sit in memory-held JSON.
 */

/** An item carrying a file: the bytes under `property`, and JSON that describes the file. */
export async function fileItem(
	ctx: IExecuteFunctions,
	data: Buffer | NodeJS.ReadableStream,
	file: { property: string; fileName: string; mimeType: string; json: IDataObject },
): Promise<INodeExecutionData> {
	const binary: IBinaryData = await ctx.helpers.prepareBinaryData(
		data as Buffer,
		file.fileName,
		file.mimeType,
	);
	return { json: file.json, binary: { [file.property]: binary } };
}

/** The output file's field: its label and name, which its errors name it by and `extra` keeps. */
const OUTPUT_FIELD_PARAMETER = {
	displayName: 'Put Output File in Field',
	name: 'binaryPropertyName',
} as const;

const OUTPUT_FIELD = fieldLabel(OUTPUT_FIELD_PARAMETER);

/** The `binaryPropertyName` parameter of a node whose output is a file (DESIGN: default `data`). */
export function outputFieldParameter(
	fileKind: string,
	extra: Partial<Omit<INodeProperties, keyof typeof OUTPUT_FIELD_PARAMETER>> = {},
): INodeProperties {
	return {
		...OUTPUT_FIELD_PARAMETER,
		type: 'string',
		default: 'data',
		required: true,
		hint: `The name of the output binary field to put the ${fileKind} in`,
		...extra,
	};
}

/** The output binary field an item's file goes to, checked. */
export function outputField(ctx: IExecuteFunctions, itemIndex: number): string {
	return binaryPropertyName(
		ctx,
		itemIndex,
		OUTPUT_FIELD,
		ctx.getNodeParameter(OUTPUT_FIELD_PARAMETER.name, itemIndex, 'data'),
	);
}

/**
 * Each item's file in `property`, the unit's own output field: a repeat's or a kept answer's was
 * filed under the field of the item that paid for it (the field is no part of the request).
 */
export function inOutputField(items: INodeExecutionData[], property: string): INodeExecutionData[] {
	for (const item of items) {
		const [name, file] = Object.entries(item.binary ?? {})[0] ?? [];
		if (name !== undefined && name !== property && file) item.binary = { [property]: file };
	}
	return items;
}

/** The binary property name a user typed: required, and a plain name. */
export function binaryPropertyName(
	ctx: IExecuteFunctions,
	itemIndex: number,
	field: string,
	value: unknown,
): string {
	const name = value === undefined || value === null ? '' : String(value).trim();
	if (name === '')
		throw invalidInput(
			ctx,
			itemIndex,
			field,
			'is required: the name of the binary property, for instance data',
		);
	return name;
}

/**
 * An input item's binary property (name, type, reference), without reading its bytes: a check
 * for every item before the first request that holds no file in memory.
 */
export function inputFileMeta(
	ctx: IExecuteFunctions,
	itemIndex: number,
	field: string,
	property: string,
): IBinaryData {
	const meta = ctx.getInputData()[itemIndex]?.binary?.[property];
	if (!meta) {
		const present = Object.keys(ctx.getInputData()[itemIndex]?.binary ?? {});
		throw invalidInput(
			ctx,
			itemIndex,
			field,
			`the input item has no binary property "${property}"${present.length ? ` (it has: ${present.join(', ')})` : ' (it has no binary data)'}`,
		);
	}
	return meta;
}

/** The bytes of an input item's binary property, with a clear error when the item has none. */
export async function inputFile(
	ctx: IExecuteFunctions,
	itemIndex: number,
	field: string,
	property: string,
): Promise<{ bytes: Buffer; meta: IBinaryData }> {
	const meta = inputFileMeta(ctx, itemIndex, field, property);
	return { bytes: await ctx.helpers.getBinaryDataBuffer(itemIndex, property), meta };
}

/** A name safe for a file: letters, digits, dot, dash and underscore. */
export function safeFileName(text: string, fallback: string): string {
	const clean = text
		.normalize('NFKD')
		.replace(/[\u0300-\u036f]/g, '')
		.replace(/[^\w.-]+/g, '-')
		.replace(/^-+|-+$/g, '')
		.slice(0, 80);
	return clean || fallback;
}
