import type { INodeProperties } from 'n8n-workflow';

/**
 * How an error names a parameter: its label as the editor shows it, then the name a saved
 * workflow holds it under ("Header Row (headerRow)"). Derived from the definition, so that a
 * label changed in the editor is changed in every error that names it.
 */
export function fieldLabel({
	displayName,
	name,
}: Pick<INodeProperties, 'displayName' | 'name'>): string {
	return `${displayName} (${name})`;
}
