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
import { asBuffer, imageItem, imageTypeOf } from '../shared/binary/imageFile';
import {
	answerReuseOptions,
	estimateOnlyOption,
	flag,
	oneOf,
	runSettingsFromOptions,
	sendRepeatsOnceOption,
	wholeAtLeast,
	serviceParameters,
} from '../shared/parameters/options';
import type { ServiceOption } from '../shared/parameters/options';
import type { ServiceDefinition, ServiceRequest } from '../shared/engine/types';
import {
	decimalNumber,
	hexColor,
	LONGEST,
	requiredWithin,
	wholeNumber,
} from '../shared/values/validate';
import { itemParameter } from '../shared/engine/itemParameter';

/*
 * Avatars (GET /v1/ with the name and options): the answer is the image itself, which the node
 * puts in the output binary field with a JSON describing it.
 */

const nameParameter: INodeProperties = {
	displayName: 'Name',
	name: 'name',
	type: 'string',
	default: '',
	required: true,
	placeholder: 'Ada Lovelace',
	hint: 'The avatar shows its initials: AL for Ada Lovelace',
	description: 'The name whose initials the avatar shows; it may hold several words',
};

/** The Options collection's options, in the editor's order. */
const avatarOptions: INodeProperties[] = [
	{
		displayName: 'Background Color',
		name: 'backgroundColor',
		type: 'color',
		default: '#335eea',
		description: 'Background color of the avatar, as hex (such as #335eea)',
	},
	{
		displayName: 'Bold',
		name: 'isBold',
		type: 'boolean',
		default: false,
		description: 'Whether the initials are bold',
	},
	{
		displayName: 'Character Limit',
		name: 'charLimit',
		type: 'number',
		typeOptions: { minValue: 1, numberPrecision: 0 },
		default: 2,
		description: 'Maximum number of characters shown, at least 1 (it may show fewer, never more)',
	},
	estimateOnlyOption,
	{
		displayName: 'Font Color',
		name: 'fontColor',
		type: 'color',
		default: '#ffffff',
		description: 'Color of the initials, as hex (such as #ffffff)',
	},
	{
		displayName: 'Font Size',
		name: 'fontSize',
		type: 'number',
		typeOptions: { minValue: 0.1, maxValue: 1, numberPrecision: 2 },
		default: 0.7,
		description:
			'Height of the initials as a fraction of the image size, from 0.1 to 1 (0.7: seven tenths of the side)',
	},
	{
		displayName: 'Image Format',
		name: 'imageFormat',
		type: 'options',
		default: 'png',
		options: [
			{ name: 'PNG', value: 'png' },
			{ name: 'SVG', value: 'svg' },
		],
	},
	{
		displayName: 'Image Size',
		name: 'imageSize',
		type: 'number',
		typeOptions: { minValue: 6, maxValue: 512, numberPrecision: 0 },
		default: 128,
		description: 'Side of the square image in pixels, a whole number from 6 to 512',
	},
	{
		displayName: 'Italic',
		name: 'isItalic',
		type: 'boolean',
		default: false,
		description: 'Whether the initials are italic',
	},
	...answerReuseOptions,
	{
		displayName: 'Rounded',
		name: 'isRounded',
		type: 'boolean',
		default: false,
		description: 'Whether the avatar is round instead of square',
	},
	sendRepeatsOnceOption,
	{
		displayName: 'Uppercase',
		name: 'isUppercase',
		type: 'boolean',
		default: true,
		description: 'Whether the initials are all capitals',
	},
];

/** The service's ten options under the names it takes in a request, with their ranges (image_size 6 to 512, font_size 0.1 to 1.0). */
const OPTIONS: Record<string, ServiceOption> = {
	imageSize: {
		serviceParameter: 'image_size',
		check: (ctx, itemIndex, field, value) => wholeNumber(ctx, itemIndex, field, value, 6, 512),
	},
	imageFormat: {
		serviceParameter: 'image_format',
		check: oneOf(['png', 'svg']),
	},
	fontSize: {
		serviceParameter: 'font_size',
		check: (ctx, itemIndex, field, value) => decimalNumber(ctx, itemIndex, field, value, 0.1, 1),
	},
	charLimit: { serviceParameter: 'char_limit', check: wholeAtLeast(1) },
	// A '#' from n8n's colour picker is stripped: the service rejects a colour with '#'.
	backgroundColor: {
		serviceParameter: 'background_color',
		check: hexColor,
	},
	fontColor: { serviceParameter: 'font_color', check: hexColor },
	isRounded: { serviceParameter: 'is_rounded', check: flag },
	isUppercase: { serviceParameter: 'is_uppercase', check: flag },
	isItalic: { serviceParameter: 'is_italic', check: flag },
	isBold: { serviceParameter: 'is_bold', check: flag },
};

/** The service's default side, 128 pixels, for the file description when none is set. */
const DEFAULT_SIZE = 128;

interface PreparedAvatar {
	request: ServiceRequest;
	name: string;
	property: string;
}

const avatars: ServiceDefinition<PreparedAvatar> = {
	...serviceCredential('abstractAvatarsApi'),
	serviceName: 'Avatars',
	// The request alone: the output field a file goes in is not part of it.
	requestOf: (avatar) => avatar.request,
	prepare(itemIndex) {
		const name = requiredWithin(
			this,
			itemIndex,
			fieldLabel(nameParameter),
			this.getNodeParameter(nameParameter.name, itemIndex),
			LONGEST.inAddress,
		);
		const property = outputField(this, itemIndex);
		const options = itemParameter(this, 'options', itemIndex, {}) as IDataObject;
		const qs = { name, ...serviceParameters(this, itemIndex, options, OPTIONS, avatarOptions) };
		const request: ServiceRequest = {
			...requestIn('getKeyInQuery', '/v1/', qs),
			response: 'binary',
		};
		return { request, name, property };
	},
	async run(itemIndex, avatar, client) {
		const { body, headers } = await client.request(avatar.request);
		const { qs = {} } = avatar.request;
		return [
			await imageItem(this, asBuffer(body), {
				property: avatar.property,
				baseName: `avatar-${safeFileName(avatar.name, 'avatar')}`,
				type: imageTypeOf(headers, qs.image_format === 'svg' ? 'svg' : 'png'),
				json: { name: avatar.name, size: (qs.image_size as number | undefined) ?? DEFAULT_SIZE },
			}),
		];
	},
	/** The avatar in the item's own output field (a shared or kept one may have been filed under another). */
	present: (_itemIndex, avatar, items) => inOutputField(items, avatar.property),
};

export class AbstractAvatars implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Abstract Avatars',
		name: 'abstractAvatars',
		icon: { light: 'file:abstractAvatars.svg', dark: 'file:abstractAvatars.dark.svg' },
		group: ['transform'],
		version: 1,
		subtitle: '={{"Avatar for " + $parameter["name"]}}',
		description: 'Create an avatar image from the initials of a name',
		documentationUrl: 'https://docs.abstractapi.com/api/avatars',
		defaults: { name: 'Avatars' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'abstractAvatarsApi', required: true }],
		properties: [
			nameParameter,
			outputFieldParameter('avatar'),
			{
				displayName: 'Options',
				name: 'options',
				type: 'collection',
				placeholder: 'Add Option',
				default: {},
				options: avatarOptions,
			},
		],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await runService(this, avatars, runSettingsFromOptions);
	}
}
