import { NodeConnectionTypes } from 'n8n-workflow';
import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';

import { serviceCredential } from '../../credentials/shared/liveBaseUrls';
import { requestIn } from '../../credentials/shared/requestForms';
import { binaryPropertyName, inputFile, inputFileMeta } from '../shared/binary/files';
import { runService } from '../shared/engine/engine';
import { fieldLabel } from '../shared/parameters/fieldLabel';
import {
	answerReuseOptions,
	estimateOnlyOption,
	flag,
	runSettingsFromOptions,
	sendRepeatsOnceOption,
	serviceParameters,
} from '../shared/parameters/options';
import type { ServiceOption } from '../shared/parameters/options';
import type { ServiceDefinition, ServiceRequest } from '../shared/engine/types';
import { httpUrl, wholeNumber } from '../shared/values/validate';
import {
	downloadResult,
	downloadResultOption,
	downloadResultParameter,
	downloadTarget,
	outputFieldParameters,
} from './processedImage';
import { resizeInstructions, resizeProperties } from './resize';
import { itemParameter } from '../shared/engine/itemParameter';

/*
 * Image Processing: from a URL (POST /v1/url/) or an uploaded file (POST /v1/upload/, multipart,
 * the options as JSON in its `data` part). The processing is what is charged; Download Result
 * then fetches the processed image from the service's storage, at no credit.
 */

/** Processing can take a while for a large source (up to 32 MB). */
const TIMEOUT_MS = 120_000;

/** Lossy and Quality, the same in every version's Options collection. */
const compressionOptions: INodeProperties[] = [
	{
		displayName: 'Lossy',
		name: 'lossy',
		type: 'boolean',
		default: false,
		description:
			'Whether to compress lossily: a large size reduction for a small loss of quality. Off: at most 10 to 20% smaller, no quality loss.',
	},
	{
		displayName: 'Quality',
		name: 'quality',
		type: 'number',
		typeOptions: { minValue: 0, maxValue: 100 },
		default: 85,
		description:
			'Quality of lossy compression, 0 to 100 (above 95 is useless, below 25 too poor). Not added: chosen by the service.',
	},
];

const OPTIONS: Record<string, ServiceOption> = {
	lossy: { serviceParameter: 'lossy', check: flag },
	quality: {
		serviceParameter: 'quality',
		check: (ctx, itemIndex, field, value) => wholeNumber(ctx, itemIndex, field, value, 0, 100),
	},
};

interface PreparedImage {
	/** The address of the source image (source `url`). */
	url?: string;
	/** The input item's binary property holding the source image (source `binary`). */
	inputProperty?: string;
	/** lossy, quality and resize, as the service names them; the credential adds api_key. */
	options: IDataObject;
	/** Where the processed image goes when it is downloaded; undefined: not downloaded. */
	downloadTo?: string;
}

const urlParameter: INodeProperties = {
	displayName: 'Image URL',
	name: 'url',
	type: 'string',
	default: '',
	required: true,
	placeholder: 'https://example.com/photo.jpg',
	displayOptions: { show: { source: ['url'] } },
	hint: 'A full address starting with http:// or https://, of an image of at most 32 MB',
};

const inputFieldParameter: INodeProperties = {
	displayName: 'Input Binary Field',
	name: 'binaryPropertyName',
	type: 'string',
	default: 'data',
	required: true,
	displayOptions: { show: { source: ['binary'] } },
	hint: 'The name of the input binary field holding the image. With Download Result on, the processed image replaces it.',
};

const INPUT_FIELD = fieldLabel(inputFieldParameter);

/** The request for one item: JSON to /v1/url/, or a multipart upload to /v1/upload/ (requestForms.ts). */
async function requestFor(
	ctx: IExecuteFunctions,
	itemIndex: number,
	image: PreparedImage,
): Promise<ServiceRequest> {
	if (image.url !== undefined) {
		const fields = { url: image.url, ...image.options };
		return { ...requestIn('postJsonKeyInBody', '/v1/url/', fields), timeout: TIMEOUT_MS };
	}
	const { bytes, meta } = await inputFile(ctx, itemIndex, INPUT_FIELD, image.inputProperty!);
	const file = {
		bytes: new Blob([bytes as Uint8Array<ArrayBuffer>], { type: meta.mimeType }),
		fileName: meta.fileName ?? 'image',
	};
	const upload = requestIn('postUploadKeyInDataPart', '/v1/upload/', image.options, {
		image: file,
	});
	return { ...upload, timeout: TIMEOUT_MS };
}

const imageProcessing: ServiceDefinition<PreparedImage> = {
	...serviceCredential('abstractImagesApi'),
	serviceName: 'Image Processing',
	// An uploaded file is the item's own: two items naming the same field hold different files.
	// The field a download goes in is not part of the request.
	requestOf: (image) =>
		image.inputProperty === undefined ? { url: image.url, options: image.options } : undefined,
	prepare(itemIndex) {
		const source = this.getNodeParameter('source', itemIndex, 'url') as string;
		const options = itemParameter(this, 'options', itemIndex, {}) as IDataObject;
		const image: PreparedImage = {
			options: serviceParameters(this, itemIndex, options, OPTIONS, compressionOptions),
		};
		const resize = resizeInstructions(this, itemIndex);
		if (resize) image.options.resize = resize;
		if (source === 'binary') {
			image.inputProperty = binaryPropertyName(
				this,
				itemIndex,
				INPUT_FIELD,
				this.getNodeParameter(inputFieldParameter.name, itemIndex, 'data'),
			);
			inputFileMeta(this, itemIndex, INPUT_FIELD, image.inputProperty);
		} else {
			image.url = httpUrl(
				this,
				itemIndex,
				fieldLabel(urlParameter),
				this.getNodeParameter(urlParameter.name, itemIndex),
			);
		}
		const downloadTo = downloadTarget(this, itemIndex, options, image.inputProperty);
		if (downloadTo !== undefined) image.downloadTo = downloadTo;
		return image;
	},
	// The processing is what is charged: the engine counts and keeps it the moment it is answered,
	// before the download (`present`), so that a refused download does not pay for it again.
	async run(itemIndex, image, client) {
		const { body } = await client.request(await requestFor(this, itemIndex, image));
		return [{ json: body as IDataObject }];
	},
	async present(itemIndex, image, items, client) {
		const { downloadTo } = image;
		return await Promise.all(
			items.map(async (item) => {
				if (downloadTo === undefined) return { json: item.json };
				// Downloaded already (a repeat's, or a kept answer's): in this item's field.
				const file = Object.values(item.binary ?? {})[0];
				if (file) return { json: item.json, binary: { [downloadTo]: file } };
				return await downloadResult(this, client, item.json, downloadTo);
			}),
		);
	},
};

export class AbstractImages implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Abstract Image Processing',
		name: 'abstractImages',
		icon: { light: 'file:abstractImages.svg', dark: 'file:abstractImages.dark.svg' },
		group: ['transform'],
		// Version 2: Download Result is a top-level switch, and Put Output File in Field shows only when it is on.
		version: [1, 2],
		defaultVersion: 2,
		subtitle:
			'={{"Process image from " + ($parameter["source"] === "binary" ? "binary" : "URL") + ($parameter["resizeStrategy"] && $parameter["resizeStrategy"] !== "none" ? ", " + $parameter["resizeStrategy"] : "")}}',
		description: 'Compress, convert and resize an image from a URL or from binary data',
		documentationUrl: 'https://docs.abstractapi.com/api/images',
		defaults: { name: 'Image Processing' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'abstractImagesApi', required: true }],
		properties: [
			{
				displayName: 'Source',
				name: 'source',
				type: 'options',
				default: 'url',
				options: [
					{
						name: 'Image URL',
						value: 'url',
						description: 'The service fetches the image from an address',
					},
					{
						name: 'Binary Data',
						value: 'binary',
						description: 'Upload an image from a binary field of the input item',
					},
				],
			},
			urlParameter,
			inputFieldParameter,
			downloadResultParameter,
			...outputFieldParameters,
			...resizeProperties,
			{
				displayName: 'Options',
				name: 'options',
				type: 'collection',
				placeholder: 'Add Option',
				default: {},
				displayOptions: { show: { '@version': [1] } },
				options: [
					downloadResultOption,
					estimateOnlyOption,
					...compressionOptions,
					...answerReuseOptions,
					sendRepeatsOnceOption,
				],
			},
			{
				displayName: 'Options',
				name: 'options',
				type: 'collection',
				placeholder: 'Add Option',
				default: {},
				displayOptions: { show: { '@version': [{ _cnd: { gte: 2 } }] } },
				options: [
					estimateOnlyOption,
					...compressionOptions,
					...answerReuseOptions,
					sendRepeatsOnceOption,
				],
			},
		],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await runService(this, imageProcessing, runSettingsFromOptions);
	}
}
