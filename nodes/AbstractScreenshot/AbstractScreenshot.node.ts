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
import {
	inOutputField,
	outputField,
	outputFieldParameter,
	safeFileName,
} from '../shared/binary/files';
import { runService } from '../shared/engine/engine';
import { fieldLabel } from '../shared/parameters/fieldLabel';
import { asBuffer, dimensionsOf, imageItem, imageTypeOf } from '../shared/binary/imageFile';
import {
	answerReuseOptions,
	estimateOnlyOption,
	flag,
	oneOf,
	optionalText,
	runSettingsFromOptions,
	sendRepeatsOnceOption,
	wholeAtLeast,
	serviceParameters,
} from '../shared/parameters/options';
import type { ServiceOption } from '../shared/parameters/options';
import type { ServiceDefinition, ServiceRequest } from '../shared/engine/types';
import { decimalNumber, httpUrl } from '../shared/values/validate';
import { itemParameter } from '../shared/engine/itemParameter';

/*
 * Website Screenshot (GET /v1/ with the url and options): the answer is the image itself, which
 * the node puts in the output binary field with a JSON describing it.
 */

/** A capture loads a whole page (and waits `delay`): minutes, not the 30 s of a lookup. */
const DEFAULT_TIMEOUT_SECONDS = 120;

const urlParameter: INodeProperties = {
	displayName: 'URL',
	name: 'url',
	type: 'string',
	default: '',
	required: true,
	placeholder: 'https://example.com',
	hint: 'The page to capture: a full address starting with http:// or https://',
};

const timeoutOption: INodeProperties = {
	displayName: 'Timeout',
	name: 'timeout',
	type: 'number',
	typeOptions: { minValue: 1, maxValue: 3600 },
	default: DEFAULT_TIMEOUT_SECONDS,
	description:
		'Seconds to wait for the capture before giving up (a timed-out capture is not retried: the service may still charge for it)',
};

/** The Options collection's options, as the editor lists them. */
const screenshotOptions: INodeProperties[] = [
	{
		displayName: 'Capture Full Page',
		name: 'captureFullPage',
		type: 'boolean',
		default: true,
		description: 'Whether to capture the entire page instead of the viewport only',
	},
	{
		displayName: 'CSS Injection',
		name: 'cssInjection',
		type: 'string',
		typeOptions: { rows: 4 },
		default: '',
		placeholder: '.cookie-banner { display: none; }',
		description: 'CSS injected into the page before the capture',
	},
	{
		displayName: 'Delay',
		name: 'delay',
		type: 'number',
		typeOptions: { minValue: 0, numberPrecision: 0 },
		default: 0,
		description: 'Whole seconds to wait between page load and capture',
	},
	estimateOnlyOption,
	{
		displayName: 'Export Format',
		name: 'exportFormat',
		type: 'options',
		default: 'jpeg',
		options: [
			{ name: 'JPEG', value: 'jpeg' },
			{ name: 'PNG', value: 'png' },
		],
	},
	...answerReuseOptions,
	sendRepeatsOnceOption,
	timeoutOption,
	{
		displayName: 'User Agent',
		name: 'userAgent',
		type: 'string',
		default: '',
		description: 'User agent the page is loaded with',
	},
	{
		displayName: 'Viewport Height',
		name: 'height',
		type: 'number',
		typeOptions: { minValue: 1, numberPrecision: 0 },
		default: 800,
		description: 'Viewport height in pixels, a whole number of at least 1',
	},
	{
		displayName: 'Viewport Width',
		name: 'width',
		type: 'number',
		typeOptions: { minValue: 1, numberPrecision: 0 },
		default: 1280,
		description: 'Viewport width in pixels, a whole number of at least 1',
	},
];

/** The service's seven options under the names it takes in a request. */
const OPTIONS: Record<string, ServiceOption> = {
	captureFullPage: {
		serviceParameter: 'capture_full_page',
		check: flag,
	},
	width: { serviceParameter: 'width', check: wholeAtLeast(1) },
	height: { serviceParameter: 'height', check: wholeAtLeast(1) },
	delay: { serviceParameter: 'delay', check: wholeAtLeast(0) },
	cssInjection: { serviceParameter: 'css_injection', check: optionalText },
	userAgent: { serviceParameter: 'user_agent', check: optionalText },
	exportFormat: {
		serviceParameter: 'export_format',
		check: oneOf(['jpeg', 'png']),
	},
};

interface PreparedScreenshot {
	request: ServiceRequest;
	url: string;
	property: string;
}

const screenshots: ServiceDefinition<PreparedScreenshot> = {
	...serviceCredential('abstractScreenshotApi'),
	serviceName: 'Website Screenshot',
	// What is sent (path and query): the HTTP timeout and the output field are not the capture's.
	requestOf: (capture) => ({ path: capture.request.path, qs: capture.request.qs }),
	prepare(itemIndex) {
		const url = httpUrl(
			this,
			itemIndex,
			fieldLabel(urlParameter),
			this.getNodeParameter(urlParameter.name, itemIndex),
		);
		const property = outputField(this, itemIndex);
		const options = itemParameter(this, 'options', itemIndex, {}) as IDataObject;
		const timeoutSeconds = decimalNumber(
			this,
			itemIndex,
			fieldLabel(timeoutOption),
			options[timeoutOption.name] ?? DEFAULT_TIMEOUT_SECONDS,
			1,
			3600,
		);
		const qs = { url, ...serviceParameters(this, itemIndex, options, OPTIONS, screenshotOptions) };
		return {
			request: {
				...requestIn('getKeyInQuery', '/v1/', qs),
				response: 'binary',
				timeout: timeoutSeconds * 1000,
			},
			url,
			property,
		};
	},
	async run(itemIndex, capture, client) {
		const { body, headers } = await client.request(capture.request);
		const bytes = asBuffer(body);
		const type = imageTypeOf(headers, capture.request.qs?.export_format === 'png' ? 'png' : 'jpeg');
		return [
			await imageItem(this, bytes, {
				property: capture.property,
				baseName: `screenshot-${safeFileName(new URL(capture.url).hostname, 'page')}`,
				type,
				json: { url: capture.url, ...dimensionsOf(bytes) },
			}),
		];
	},
	/** The capture in the item's own output field (a shared or kept one may have been filed under another). */
	present: (_itemIndex, capture, items) => inOutputField(items, capture.property),
};

export class AbstractScreenshot implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Abstract Website Screenshot',
		name: 'abstractScreenshot',
		icon: { light: 'file:abstractScreenshot.svg', dark: 'file:abstractScreenshot.dark.svg' },
		group: ['transform'],
		version: 1,
		subtitle: '={{"Capture " + $parameter["url"]}}',
		description: 'Capture an image of a web page',
		documentationUrl: 'https://docs.abstractapi.com/api/screenshot',
		defaults: { name: 'Website Screenshot' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'abstractScreenshotApi', required: true }],
		properties: [
			urlParameter,
			outputFieldParameter('screenshot'),
			{
				displayName: 'Options',
				name: 'options',
				type: 'collection',
				placeholder: 'Add Option',
				default: {},
				options: screenshotOptions,
			},
		],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await runService(this, screenshots, runSettingsFromOptions);
	}
}
