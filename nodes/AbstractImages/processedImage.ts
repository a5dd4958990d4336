import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';

import { binaryPropertyName, fileItem, safeFileName } from '../shared/binary/files';
import { asBuffer, imageTypeOf } from '../shared/binary/imageFile';
import type { ServiceClient } from '../shared/engine/types';
import { answerGone } from '../shared/engine/unitOutcome';
import { fieldLabel } from '../shared/parameters/fieldLabel';
import { flag } from '../shared/parameters/options';

/*
 * Image Processing's Download Result: whether an item's processed image is downloaded, into which
 * binary field, and the download itself. The processed image is fetched from the link in the
 * service's answer, without the key and at no credit.
 */

/** What the storage answers for a file that is no longer there: not found, refused (expired), gone. */
const GONE = ['404', '403', '410'];
/** Download Result, version 2: a top-level switch. */
export const downloadResultParameter: INodeProperties = {
	displayName: 'Download Result',
	name: 'downloadResult',
	type: 'boolean',
	default: false,
	displayOptions: { show: { '@version': [{ _cnd: { gte: 2 } }] } },
	description:
		"Whether to download the processed image into a binary field (the JSON stays the service's answer)",
};

/** Download Result, version 1 (saved workflows): an option of the Options collection. */
export const downloadResultOption: INodeProperties = {
	displayName: 'Download Result',
	name: 'downloadResult',
	type: 'boolean',
	default: false,
	description:
		"Whether to download the processed image into the binary field (the JSON stays the service's answer)",
};

/** Put Output File in Field, where a URL source's processed image goes: version 2's, then version 1's. */
export const outputFieldParameters: INodeProperties[] = [
	{
		displayName: 'Put Output File in Field',
		name: 'outputBinaryPropertyName',
		type: 'string',
		default: 'data',
		required: true,
		displayOptions: {
			show: { '@version': [{ _cnd: { gte: 2 } }], source: ['url'], downloadResult: [true] },
		},
		hint: 'The name of the output binary field to put the processed image in',
	},
	{
		displayName: 'Put Output File in Field',
		name: 'binaryPropertyName',
		type: 'string',
		default: 'data',
		required: true,
		// Version 1 (saved workflows): shown for every URL source, as Download Result sits in the Options
		// collection and n8n drops a top-level value whose display depends on a collection option
		// (getNodeParameters checks display against simple values only).
		displayOptions: { show: { '@version': [1], source: ['url'] } },
		hint: 'The name of the output binary field to put the processed image in. Used only with the Download Result option.',
	},
];

/** The processed image from the record's link, fetched without the key, as a binary property. */
export async function downloadResult(
	ctx: IExecuteFunctions,
	client: ServiceClient,
	record: IDataObject,
	property: string,
): Promise<INodeExecutionData> {
	const link = String(record.url ?? '');
	let download: Awaited<ReturnType<ServiceClient['download']>>;
	try {
		download = await client.download(link, { as: 'buffer' });
	} catch (error) {
		// The storage says the file is gone for good: a kept answer's link is then dropped and the
		// image processed again, once (unitOutcome.ts). A passing failure keeps the link for a next try.
		const status = (error as { httpCode?: string | null }).httpCode;
		throw GONE.includes(String(status)) ? answerGone(error as Error) : error;
	}
	const { body, headers } = download;
	const bytes = asBuffer(body);
	const type = imageTypeOf(headers, /\.png$/i.test(new URL(link).pathname) ? 'png' : 'jpeg');
	const lastSegment = decodeURIComponent(new URL(link).pathname.split('/').pop() ?? '');
	const name = safeFileName(lastSegment, 'processed-image');
	const fileName = /\.\w+$/.test(name) ? name : `${name}.${type.extension}`;
	return await fileItem(ctx, bytes, { property, fileName, mimeType: type.mimeType, json: record });
}

/**
 * Whether to download the processed image. Version 1 keeps Download Result in the Options
 * collection (saved workflows); version 2 has it at the top level, so that "Put Output File in
 * Field" can be shown only when it is on (n8n keeps a top-level value only if its display
 * depends on top-level values). A version 2 node never sees options.downloadResult: n8n's
 * Workflow drops collection values that are not options of the node's version when it loads.
 */
function downloadWanted(ctx: IExecuteFunctions, itemIndex: number, options: IDataObject): boolean {
	const version1 = ctx.getNode().typeVersion < 2;
	const parameter = version1 ? downloadResultOption : downloadResultParameter;
	const value = version1
		? options[parameter.name]
		: ctx.getNodeParameter(parameter.name, itemIndex, false);
	return flag(ctx, itemIndex, fieldLabel(parameter), value ?? false) === true;
}

/**
 * The field the processed image goes in, or undefined when it is not downloaded. An upload's
 * processed image replaces its source. A URL source's goes in Put Output File in Field: version 1
 * (saved workflows) names it `binaryPropertyName`, as the upload's input field; version 2 gives
 * it a name of its own.
 */
export function downloadTarget(
	ctx: IExecuteFunctions,
	itemIndex: number,
	options: IDataObject,
	inputProperty: string | undefined,
): string | undefined {
	if (!downloadWanted(ctx, itemIndex, options)) return undefined;
	if (inputProperty !== undefined) return inputProperty;
	const [version2, version1] = outputFieldParameters;
	const parameter = ctx.getNode().typeVersion < 2 ? version1 : version2;
	return binaryPropertyName(
		ctx,
		itemIndex,
		fieldLabel(parameter),
		ctx.getNodeParameter(parameter.name, itemIndex, 'data'),
	);
}
