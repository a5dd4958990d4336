import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { invalidInput } from '../engine/errors';
import { numberWithin } from '../values/validate';

/**
 * An `options` collection as the service's query parameters: each option a user added is checked
 * and sent under the service's own name; an option not added is not sent, so the service's
 * default applies. A check returns the value to send, or undefined to send nothing (an empty text).
 */
export type OptionCheck = (ctx: IExecuteFunctions, itemIndex: number, field: string, value: unknown) => unknown;

export interface WireOption {
	/** The service's parameter name: `image_size`. */
	wire: string;
	/** The option's display name: `Image Size`. */
	label: string;
	check: OptionCheck;
}

export function wireOptions(
	ctx: IExecuteFunctions,
	itemIndex: number,
	options: IDataObject,
	table: Record<string, WireOption>,
): IDataObject {
	const sent: IDataObject = {};
	for (const [name, value] of Object.entries(options)) {
		const option = table[name];
		if (!option) continue;
		const checked = option.check(ctx, itemIndex, `${option.label} (${name})`, value);
		if (checked !== undefined) sent[option.wire] = checked as IDataObject[string];
	}
	return sent;
}

/** A whole number of at least `min`, with no upper bound (the services document none for sizes and delays). */
export function wholeAtLeast(min: number): OptionCheck {
	return (ctx, itemIndex, field, value) => numberWithin(ctx, itemIndex, field, value, { min, whole: true });
}

/** A number greater than 0. */
export const positiveNumber: OptionCheck = (ctx, itemIndex, field, value) =>
	numberWithin(ctx, itemIndex, field, value, { min: 0, aboveMin: true });

/** One of a list of values (an expression may give anything). */
export function oneOf(values: readonly string[]): OptionCheck {
	return (ctx, itemIndex, field, value) => {
		const text = String(value ?? '').trim();
		if (!values.includes(text)) {
			throw invalidInput(ctx, itemIndex, field, `must be one of ${values.join(', ')}, got ${JSON.stringify(value)}`);
		}
		return text;
	};
}

/** true or false (or their text, from an expression). */
export const flag: OptionCheck = (ctx, itemIndex, field, value) => {
	if (typeof value === 'boolean') return value;
	if (value === 'true' || value === 'false') return value === 'true';
	throw invalidInput(ctx, itemIndex, field, `must be true or false, got ${JSON.stringify(value)}`);
};

/** A text, sent as it is; an empty one is not sent. */
export const optionalText: OptionCheck = (_ctx, _itemIndex, _field, value) => {
	const text = value === undefined || value === null ? '' : String(value);
	return text.trim() === '' ? undefined : text;
};

/**
 * `sendRepeatsOnce`, in every service node's Options: items (and CSV rows) of one run that would
 * send the same request send it once and share the answer (engine.ts). Lead lists repeat: the
 * same company domain for every lead of a company. Off, every item is sent: a fresh answer each.
 */
export const sendRepeatsOnceOption: INodeProperties = {
	displayName: 'Send Repeated Values Once',
	name: 'sendRepeatsOnce',
	type: 'boolean',
	default: true,
	description:
		'Whether items of one run that would send the same request send it once and each get its answer: a repeated value costs one credit, not one per item. Turn off for a fresh answer per item.',
};
