import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { invalidInput } from '../engine/errors';
import { fieldLabel } from './fieldLabel';

/** The option's label and name, which errors name it by. */
const FIELDS_OPTION = { displayName: 'Fields', name: 'fields' };

/**
 * The `fields` option of IP geolocation and company enrichment: a choice of
 * the record's top-level keys, sent comma-separated, so the answer holds only those keys.
 */
export function fieldsOption(recordName: string, keys: readonly string[]): INodeProperties {
	return {
		...FIELDS_OPTION,
		type: 'multiOptions',
		// The option names are the answer's own keys: what a person picks is what the output holds.
		options: [...keys].sort().map((key) => ({ name: key, value: key })),
		default: [],
		description: `Top-level keys of the ${recordName} to return. None chosen returns the whole record.`,
	};
}

/**
 * The chosen keys as the service's comma-separated `fields`, or undefined for the whole record.
 * An expression may give an array or a comma-separated text; an unknown key is an input error,
 * since the service would answer without it and the credit would be spent for nothing.
 */
export function fieldsParameter(
	ctx: IExecuteFunctions,
	itemIndex: number,
	value: unknown,
	keys: readonly string[],
): string | undefined {
	const chosen = (Array.isArray(value) ? value : String(value ?? '').split(','))
		.map((key) => String(key).trim())
		.filter((key) => key !== '');
	const unknown = chosen.filter((key) => !keys.includes(key));
	if (unknown.length > 0) {
		throw invalidInput(
			ctx,
			itemIndex,
			fieldLabel(FIELDS_OPTION),
			`"${unknown.join('", "')}" is not a top-level key of the record (known keys: ${keys.join(', ')})`,
		);
	}
	return chosen.length > 0 ? [...new Set(chosen)].join(',') : undefined;
}
