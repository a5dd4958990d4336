/**
 * AI tools say what they do. n8n runs a `usableAsTool` node as `<type>Tool` and describes it to the
 * agent (or to an MCP client of the MCP Server Trigger) with n8n-workflow's
 * NodeHelpers.getToolDescriptionForNode, over the parameters n8n's Workflow fills in from the
 * tool type's defaults. Both are n8n's own code here; the tool type is the node's description
 * under the `<name>Tool` name, which is what n8n's conversion (in the n8n CLI package, not a
 * dependency) gives a node that brings its own Tool Description parameter: it adds none then.
 */
import {
	deepCopy,
	NodeConnectionTypes,
	NodeHelpers,
	Workflow,
	type INode,
	type INodeType,
	type INodeTypeDescription,
	type INodeTypes,
} from 'n8n-workflow';

import { NodeTypes, PACKAGE_NAME } from '../harness/nodeTypes';

const manifest = require('../../package.json') as { n8n: { nodes: string[] } };
const nodeTypes = new NodeTypes();

const nodeNames = manifest.n8n.nodes.map((file) => {
	const className = file.split('/').pop()!.replace('.node.js', '');
	return className.charAt(0).toLowerCase() + className.slice(1);
});

/** The node as n8n's runtime builds its tool: same class, `<name>Tool`, an AI tool output. */
function asTool(base: INodeType): INodeType {
	const description: INodeTypeDescription = {
		...deepCopy(base.description),
		name: `${base.description.name}Tool`,
		displayName: `${base.description.displayName} Tool`,
		inputs: [],
		outputs: [NodeConnectionTypes.AiTool],
	};
	return { ...base, description };
}

/** What the agent is told: n8n's Workflow fills the parameters, n8n-workflow describes the tool. */
function toolDescription(
	type: INodeType,
	parameters: INode['parameters'],
): { text: string; node: INode } {
	const types: INodeTypes = {
		getByName: () => type,
		getByNameAndVersion: () => type,
		getKnownTypes: () => ({}),
	};
	const node: INode = {
		id: '1',
		name: 'Tool',
		type: `${PACKAGE_NAME}.${type.description.name}`,
		typeVersion: 1,
		position: [0, 0],
		parameters,
	};
	const workflow = new Workflow({
		nodes: [node],
		connections: {},
		active: false,
		nodeTypes: types,
	});
	const filled = workflow.getNode('Tool')!;
	return { text: NodeHelpers.getToolDescriptionForNode(filled, type), node: filled };
}

/** The parameter whose values choose what a node does, when its tool description follows one. */
function selectingParameter(description: INodeTypeDescription): string | undefined {
	const own = description.properties.find((property) => property.name === 'toolDescription');
	const shown = Object.keys(own?.displayOptions?.show ?? {}).filter((key) => key !== '@tool');
	return shown[0];
}

function optionValues(description: INodeTypeDescription, parameter: string): string[] {
	const property = description.properties.find((candidate) => candidate.name === parameter)!;
	return (property.options as Array<{ value: string }>).map((option) => option.value);
}

describe('AI tool descriptions', () => {
	const base = (name: string) => nodeTypes.getByNameAndVersion(`${PACKAGE_NAME}.${name}`);

	it.each(nodeNames)('%s as a tool is described by what it is configured to do', (name) => {
		const tool = asTool(base(name));
		const parameter = selectingParameter(tool.description);
		if (parameter === undefined) {
			// One operation: n8n's own Tool Description, the node's description, says it.
			expect(
				tool.description.properties.some((property) =>
					['operation', 'resource'].includes(property.name),
				),
			).toBe(false);
			expect(toolDescription(tool, {}).text).toBe(tool.description.description);
			return;
		}
		const texts = optionValues(tool.description, parameter).map(
			(value) => toolDescription(tool, { [parameter]: value }).text,
		);
		expect(new Set(texts).size).toBe(texts.length);
		for (const text of texts) {
			expect(text).not.toBe(tool.description.description);
			expect(text).not.toMatch(/^=/);
			expect(text.length).toBeGreaterThan(20);
		}
	});

	it('VAT set to validate numbers is described as validating VAT numbers, and each operation by its own text', () => {
		const tool = asTool(base('abstractVat'));
		expect(toolDescription(tool, { operation: 'validate' }).text).toBe(
			'Validate a VAT number and get the company registered under it',
		);
		expect(toolDescription(tool, { operation: 'calculate' }).text).toMatch(
			/^Calculate the VAT on an amount/,
		);
		// The default operation, as a workflow saves it (defaults are not stored).
		expect(toolDescription(tool, {}).text).toMatch(/^Get the standard and reduced VAT rates/);
	});

	it('IP Database is described by the database it downloads', () => {
		const tool = asTool(base('abstractIpDatabase'));
		expect(toolDescription(tool, { database: 'ip-security' }).text).toMatch(/IP security database/);
		expect(toolDescription(tool, { database: 'ip-asn' }).text).toMatch(/IP ASN database/);
	});

	it('a description the user writes replaces the default', () => {
		const tool = asTool(base('abstractVat'));
		expect(
			toolDescription(tool, { operation: 'validate', toolDescription: 'Check a supplier VAT ID' })
				.text,
		).toBe('Check a supplier VAT ID');
	});

	it('the plain node carries no tool description parameter', () => {
		const { node } = toolDescription(base('abstractVat'), { operation: 'validate' });
		expect(node.parameters).not.toHaveProperty('toolDescription');
	});

	it('without its own parameter, n8n would describe VAT by the whole node whatever the operation', () => {
		const tool = asTool(base('abstractVat'));
		tool.description.properties = tool.description.properties.filter(
			(property) => property.name !== 'toolDescription',
		);
		expect(toolDescription(tool, { operation: 'validate' }).text).toBe(
			tool.description.description,
		);
	});
});
