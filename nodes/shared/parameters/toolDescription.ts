import type { INodeProperties } from 'n8n-workflow';

/**
 * What an AI agent, or an MCP client of n8n's MCP Server Trigger, is told a node does when it
 * runs as a tool, for the operation the node is configured with.
 *
 * n8n gives a `usableAsTool` node a Tool Description whose default is the node's description, or,
 * with a `resource` parameter, the chosen operation's `action`. A node with an `operation` and no
 * `resource` (VAT) would describe everything it can do whatever it is set to do, and
 * `usableAsTool: { replacements }` reaches only the editor's type, not the tool n8n runs (n8n
 * 2.41.1, node-types.js getByNameAndVersion). So the node brings its own `toolDescription`, one
 * per value of the selecting parameter, shown only on the tool (`@tool`): its default follows the
 * selection, the user may write another, and on the plain node it is hidden and unused.
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
