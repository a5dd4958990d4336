import type { IDataObject, INodeProperties, INodeTypeDescription } from 'n8n-workflow';

/**
 * What the editor shows, as rules over the descriptions n8n loads. Pure functions over
 * descriptions: the test that uses them reads the built package and runs the nodes.
 */

/**
 * The longest option description the editor's dropdown shows whole. Measured in n8n 2.41.1's
 * editor in Chromium (`npm run screenshots -- --measure`): the description under an option is
 * clamped to two lines of 358 px (12 px Inter), the same at 1024, 1280 and 1920 px wide windows;
 * the longest prose that stays whole was 122 to 126 characters. 115 leaves room for word wrap.
 */
export const MAX_OPTION_DESCRIPTION = 115;

/** n8n's own labels for the parameters every node of a kind shares. */
export const SHARED_LABELS: Record<string, readonly string[]> = {
	// A binary output: "Put Output File in Field"; a binary input: "Input Binary Field" (n8n's wording).
	binaryPropertyName: ['Put Output File in Field', 'Input Binary Field'],
	options: ['Options'],
	operation: ['Operation'],
	fields: ['Fields'],
	sendAs: ['Send As'],
};

/** The labels of the credential fields, the same in every credential. */
export const CREDENTIAL_LABELS: Record<string, string> = {
	apiKey: 'API Key',
	baseUrl: 'Base URL',
	requestsPerSecond: 'Requests per Second',
};

/** British spellings n8n's own nodes write the US way. */
export const BRITISH =
	/\b(colour|organis|licence|analys(e|ing)\b|behaviour|centre|favourite|cancelled|catalogue)/i;

/** Every property of a description, nested ones (collection options, fixedCollection values) included. */
export function allProperties(properties: INodeProperties[]): INodeProperties[] {
	const found: INodeProperties[] = [];
	for (const property of properties) {
		found.push(property);
		for (const option of property.options ?? []) {
			if ('displayName' in option && 'type' in option)
				found.push(...allProperties([option as INodeProperties]));
			if ('values' in option) found.push(...allProperties(option.values));
		}
	}
	return found;
}

/** Every text of a property a person reads in the editor. */
export function textsOf(property: INodeProperties): string[] {
	const texts = [property.displayName, property.description, property.hint, property.placeholder];
	for (const option of property.options ?? []) {
		if ('value' in option) texts.push(option.name, option.description, option.action);
	}
	return texts.filter((text): text is string => typeof text === 'string');
}

/** A country picker, whatever its name: the resource locator searching the country list. */
export const isCountryPicker = (property: INodeProperties) =>
	property.type === 'resourceLocator' &&
	(property.modes ?? []).some((mode) => mode.typeOptions?.searchListMethod === 'searchCountries');

/** The top-level `options` and boolean parameters on which other parameters' display depends. */
function switches(description: INodeTypeDescription): INodeProperties[] {
	const keys = new Set<string>();
	for (const property of description.properties) {
		for (const condition of [property.displayOptions?.show, property.displayOptions?.hide]) {
			for (const key of Object.keys(condition ?? {})) keys.add(key);
		}
	}
	const seen = new Set<string>();
	return description.properties.filter(
		(property) =>
			['options', 'boolean'].includes(property.type) &&
			keys.has(property.name) &&
			!seen.has(property.name) &&
			seen.add(property.name),
	);
}

const switchValues = (property: INodeProperties): Array<string | boolean> =>
	property.type === 'boolean'
		? [false, true]
		: (property.options ?? []).map((option) => (option as { value: string }).value);

/**
 * Every way the editor can lay the node out: one parameter set per combination of the values
 * of the parameters that decide what else is shown (Source, Resize Strategy, Operation, a
 * switch such as Download Result ...). `@version` is not a parameter: the test walks versions.
 */
export function branches(description: INodeTypeDescription): IDataObject[] {
	let combinations: IDataObject[] = [{}];
	for (const property of switches(description)) {
		const values = switchValues(property);
		combinations = combinations.flatMap((combination) =>
			values.map((value) => ({ ...combination, [property.name]: value })),
		);
	}
	return combinations;
}

/** A parameter a user types or picks a single value into: the kind that can be left empty. */
export const canBeEmpty = (property: INodeProperties) =>
	['string', 'number', 'color', 'resourceLocator', 'dateTime'].includes(property.type);

/** The value an empty field holds, as the editor stores it. */
export function emptyValueOf(property: INodeProperties): unknown {
	if (property.type === 'number') return null;
	if (property.type === 'resourceLocator') return { __rl: true, mode: 'list', value: '' };
	return '';
}

/** Whether a value is empty as n8n's own required check and the nodes' checks read it. */
export function isEmptyValue(value: unknown): boolean {
	if (value === undefined || value === null || value === '') return true;
	if (typeof value === 'object' && 'value' in (value as IDataObject))
		return (value as IDataObject).value === '';
	return false;
}
