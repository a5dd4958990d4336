import type { INodeProperties } from 'n8n-workflow';

/**
 * What an AI agent, or an MCP client of n8n's MCP Server Trigger, is told a node does when it
 * runs as a tool, for the operation the node is configured with.
 *
 * n8n turns a `usableAsTool` node into `<type>Tool` and gives it a Tool Description parameter
 * whose default is the node's own description; with a `resource` parameter it instead derives
 * the text from the chosen operation's `action`, but a node with an `operation` and no
 * `resource` (VAT) gets the whole node's description ("Get VAT rates per category, validate VAT
 * numbers and calculate VAT") whatever it is set to do. `usableAsTool: { replacements }` does not
 * help: n8n applies the replacements only to the type it shows in the editor, not to the tool
 * type it builds when the workflow runs (n8n 2.41.1, node-types.js getByNameAndVersion).
 *
 * So the node brings its own `toolDescription` parameter, one per value of the parameter that
 * selects what it does, shown only on the tool (`@tool`): n8n then adds none of its own and uses
 * this one, in the editor and when the workflow runs alike. Its default follows the selection;
 * the user may still write another. On the plain node the parameter is hidden and unused.
 */
export function toolDescriptionProperties(
	parameter: string,
	descriptions: Record<string, string>,
): INodeProperties[] {
	return Object.entries(descriptions).map(([value, description]) => ({
		displayName: 'Tool Description',
		name: 'toolDescription',
		type: 'string',
		typeOptions: { rows: 2 },
		default: description,
		required: true,
		displayOptions: { show: { '@tool': [true], [parameter]: [value] } },
		description: 'What the AI agent is told this tool does, for the selected operation',
		hint: 'Required: a sentence or two the agent reads to decide when to call this tool',
	}));
}
