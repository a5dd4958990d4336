import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { invalidInput } from '../shared/engine/errors';
import { fieldLabel } from '../shared/parameters/fieldLabel';
import { asNumber } from '../shared/values/validate';
import { asGiven, quoted } from '../shared/values/quoted';

/**
 * The service's `resize` object, from one table: which keys each strategy uses. The editor
 * shows a key's field only for the strategies that use it, and a request carries exactly the
 * keys of its strategy, so a hidden value left over from another strategy is never sent.
 */
type ResizeKey = 'width' | 'height' | 'size' | 'scale' | 'cropMode' | 'background';

export const STRATEGY_KEYS: Record<string, readonly ResizeKey[]> = {
	exact: ['width', 'height'],
	portrait: ['height'],
	landscape: ['width'],
	auto: ['width', 'height'],
	fit: ['width', 'height', 'cropMode'],
	crop: ['width', 'height', 'scale', 'cropMode'],
	square: ['size'],
	fill: ['width', 'height', 'background'],
};

const strategiesUsing = (key: ResizeKey) =>
	Object.keys(STRATEGY_KEYS).filter((strategy) => STRATEGY_KEYS[strategy].includes(key));

const shownFor = (key: ResizeKey) => ({ show: { resizeStrategy: strategiesUsing(key) } });

/** The nine gravities of crop_mode; the service's default is c. */
const CROP_MODES = [
	{ name: 'Center', value: 'c' },
	{ name: 'Top (North)', value: 'n' },
	{ name: 'Top Left (North-West)', value: 'nw' },
	{ name: 'Top Right (North-East)', value: 'ne' },
	{ name: 'Left (West)', value: 'w' },
	{ name: 'Right (East)', value: 'e' },
	{ name: 'Bottom (South)', value: 's' },
	{ name: 'Bottom Left (South-West)', value: 'sw' },
	{ name: 'Bottom Right (South-East)', value: 'se' },
];

export const resizeProperties: INodeProperties[] = [
	{
		displayName: 'Resize Strategy',
		name: 'resizeStrategy',
		type: 'options',
		default: 'none',
		// Alphabetical, as n8n's scanner requires of an options list; the default stays 'none'.
		options: [
			{
				name: 'Auto',
				value: 'auto',
				description: "Portrait or landscape, by the image's aspect ratio",
			},
			{
				name: 'Crop',
				value: 'crop',
				description: 'Crop to exactly the width and height, optionally scaled',
			},
			{
				name: 'Exact',
				value: 'exact',
				description: 'Exact width and height; the aspect ratio is not kept',
			},
			{
				name: 'Fill',
				value: 'fill',
				description: 'Fit within the width and height; fill the rest with a background color',
			},
			{ name: 'Fit', value: 'fit', description: 'Crop and resize to fit the width and height' },
			{
				name: 'Landscape',
				value: 'landscape',
				description: 'Exact width; the height follows the aspect ratio',
			},
			{
				name: 'None (Compress Only)',
				value: 'none',
				description: 'Keep the dimensions; only compress',
			},
			{
				name: 'Portrait',
				value: 'portrait',
				description: 'Exact height; the width follows the aspect ratio',
			},
			{
				name: 'Square',
				value: 'square',
				description: 'Crop by the shorter side to a square, then resize to the size',
			},
		],
	},
	{
		displayName: 'Width',
		name: 'width',
		type: 'number',
		typeOptions: { minValue: 1, numberPrecision: 0 },
		default: 800,
		required: true,
		displayOptions: shownFor('width'),
		hint: 'Target width in pixels: a whole number greater than 0',
	},
	{
		displayName: 'Height',
		name: 'height',
		type: 'number',
		typeOptions: { minValue: 1, numberPrecision: 0 },
		default: 600,
		required: true,
		displayOptions: shownFor('height'),
		hint: 'Target height in pixels: a whole number greater than 0',
	},
	{
		displayName: 'Size',
		name: 'size',
		type: 'number',
		typeOptions: { minValue: 1, numberPrecision: 0 },
		default: 400,
		required: true,
		displayOptions: shownFor('size'),
		hint: 'Side of the square in pixels: a whole number greater than 0',
	},
	{
		displayName: 'Scale',
		name: 'scale',
		type: 'number',
		typeOptions: { minValue: 0 },
		default: 0,
		displayOptions: shownFor('scale'),
		hint: 'Percentage by which the cropped image is scaled; 0 crops without scaling',
	},
	{
		displayName: 'Crop Mode',
		name: 'cropMode',
		type: 'options',
		default: 'c',
		options: CROP_MODES,
		displayOptions: shownFor('cropMode'),
		description: 'Which part of the image is kept when it is cropped (the gravity)',
	},
	{
		displayName: 'Background',
		name: 'background',
		type: 'color',
		default: '#ffffff',
		displayOptions: shownFor('background'),
		hint: 'Color of the unused area: pick one, or give an expression such as rgb(255, 255, 255)',
	},
];

/** The service's name of each key. */
const SERVICE_PARAMETERS: Record<ResizeKey, string> = {
	width: 'width',
	height: 'height',
	size: 'size',
	scale: 'scale',
	cropMode: 'crop_mode',
	background: 'background',
};

/** How an error names a parameter of the resize properties: from its definition. */
const labelOf = (name: string) =>
	fieldLabel(resizeProperties.find((property) => property.name === name)!);

/**
 * The rgb(r, g, b) form of a fill color the service documents, from the color picker's hex (with or
 * without #, 3 or 6 digits) or from an rgb(...) expression; empty means the service's white.
 */
export function fillColor(
	ctx: IExecuteFunctions,
	itemIndex: number,
	field: string,
	value: unknown,
): string | undefined {
	const text = value === undefined || value === null ? '' : String(value).trim();
	if (text === '') return undefined;
	const hex = /^#?([\da-f]{3}|[\da-f]{6})$/i.exec(text)?.[1];
	if (hex) {
		const digits = hex.length === 3 ? [...hex].map((digit) => digit + digit).join('') : hex;
		const channels = [0, 2, 4].map((at) => parseInt(digits.slice(at, at + 2), 16));
		return `rgb(${channels.join(', ')})`;
	}
	const rgb = /^rgb\(\s*(\d{1,3})\s*,\s*(\d{1,3})\s*,\s*(\d{1,3})\s*\)$/i.exec(text);
	if (rgb && rgb.slice(1).every((channel) => Number(channel) <= 255)) {
		return `rgb(${rgb.slice(1).map(Number).join(', ')})`;
	}
	throw invalidInput(
		ctx,
		itemIndex,
		field,
		`must be a color: hex such as #ffffff, or rgb(r, g, b) with each part from 0 to 255, got ${quoted(text)}`,
	);
}

/** The value of one resize key, checked; undefined when an optional key is left empty. */
function resizeValue(
	ctx: IExecuteFunctions,
	itemIndex: number,
	strategy: string,
	key: ResizeKey,
): unknown {
	const label = labelOf(key);
	const value = ctx.getNodeParameter(key, itemIndex, undefined);
	switch (key) {
		case 'scale': {
			const number = asNumber(value);
			if (value === undefined || value === null || value === '' || number === 0) return undefined;
			if (typeof number !== 'number' || !Number.isFinite(number) || number < 0) {
				throw invalidInput(
					ctx,
					itemIndex,
					label,
					`must be a percentage greater than 0 (or 0 for no scaling), got ${asGiven(value)}`,
				);
			}
			return number;
		}
		case 'cropMode': {
			const mode = String(value ?? 'c').trim() || 'c';
			if (!CROP_MODES.some((option) => option.value === mode)) {
				throw invalidInput(
					ctx,
					itemIndex,
					label,
					`must be one of ${CROP_MODES.map((option) => option.value).join(', ')}, got ${asGiven(value)}`,
				);
			}
			return mode;
		}
		case 'background':
			return fillColor(ctx, itemIndex, label, value);
		default: {
			const number = asNumber(value);
			if (typeof number !== 'number' || !Number.isInteger(number) || number <= 0) {
				throw invalidInput(
					ctx,
					itemIndex,
					label,
					`is required by the ${strategy} strategy: a whole number of pixels greater than 0, got ${JSON.stringify(value ?? null)}`,
				);
			}
			return number;
		}
	}
}

/** The `resize` object for item `itemIndex`, or undefined for compression only. */
export function resizeInstructions(
	ctx: IExecuteFunctions,
	itemIndex: number,
): IDataObject | undefined {
	const strategy = String(ctx.getNodeParameter('resizeStrategy', itemIndex, 'none')).trim();
	if (strategy === 'none' || strategy === '') return undefined;
	const keys = STRATEGY_KEYS[strategy];
	if (!keys) {
		throw invalidInput(
			ctx,
			itemIndex,
			labelOf('resizeStrategy'),
			`must be none or one of ${Object.keys(STRATEGY_KEYS).join(', ')}, got ${quoted(strategy)}`,
		);
	}
	const resize: IDataObject = { strategy };
	for (const key of keys) {
		const value = resizeValue(ctx, itemIndex, strategy, key);
		if (value !== undefined) resize[SERVICE_PARAMETERS[key]] = value as IDataObject[string];
	}
	return resize;
}
