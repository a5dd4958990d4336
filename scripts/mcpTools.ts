import { promises as fs } from 'fs';

import {
	CREDENTIAL_TYPES,
	exampleCredentialId,
	exampleCredentialName,
} from '../test/harness/sandboxCredentials';
import { startSandbox, type Sandbox } from '../test/sandbox/server';
import { importIntoN8n, type Workflow, type WorkflowNode } from './n8n/examples';
import { n8nCommand } from './n8n/instance';
import { assertSucceeded } from './n8n/processes';
import { environmentFor, prepare, startAndCheck } from './n8n/setup';

/**
 * What an MCP client is told about the package's nodes, asked of a real n8n 2.41.1: the
 * package installed as n8n installs it, a published workflow whose MCP Server Trigger offers
 * some nodes as tools, and an MCP client's `tools/list` over Streamable HTTP. Each tool must be
 * described by what it is configured to do (VAT set to validate: validating VAT numbers), not by
 * its node's description of everything it can do.
 *
 * Run: npm run test:mcp
 * (N8N_PORT chooses n8n's port; SANDBOX_PORT the sandbox's.) Exits 1 when a description differs.
 */

const PACKAGE = 'n8n-nodes-abstractapi';
const MCP_PATH = 'abstract-tools';

/** Tool (node) name, its node, the parameters it is configured with, and what it must be told. */
const TOOLS: Array<{
	name: string;
	node: string;
	service: string;
	parameters: Record<string, unknown>;
	expected: string;
}> = [
	{
		name: 'Validate VAT',
		node: 'abstractVat',
		service: 'vat',
		parameters: { operation: 'validate', vatNumber: "={{ $fromAI('vat_number') }}" },
		expected: 'Validate a VAT number and get the company registered under it',
	},
	{
		name: 'VAT rates',
		node: 'abstractVat',
		service: 'vat',
		parameters: {},
		expected: 'Get the standard and reduced VAT rates of a country, one per category',
	},
	{
		name: 'Security database',
		node: 'abstractIpDatabase',
		service: 'api',
		parameters: { database: 'ip-security', output: 'databaseFile' },
		expected: 'Download the licensed IP security database',
	},
	{
		name: 'Check IBAN',
		node: 'abstractIban',
		service: 'iban',
		parameters: { iban: "={{ $fromAI('iban') }}" },
		expected: 'Check whether an IBAN is valid',
	},
];

/** The sandbox credential of a service, as importIntoN8n creates it. */
function credentialFor(service: string): WorkflowNode['credentials'] {
	const type = CREDENTIAL_TYPES[service];
	return { [type]: { id: exampleCredentialId(type), name: exampleCredentialName(type) } };
}

function mcpWorkflow(): Workflow {
	const trigger: WorkflowNode = {
		id: 'mcp-trigger',
		name: 'MCP Server Trigger',
		type: '@n8n/n8n-nodes-langchain.mcpTrigger',
		typeVersion: 2,
		position: [0, 0],
		webhookId: 'abstract-tools-webhook',
		parameters: { path: MCP_PATH },
	};
	const tools: WorkflowNode[] = TOOLS.map((tool, index) => ({
		id: `tool-${index}`,
		name: tool.name,
		type: `${PACKAGE}.${tool.node}Tool`,
		typeVersion: 1,
		position: [index * 200, 200],
		parameters: tool.parameters,
		credentials: credentialFor(tool.service),
	}));
	const connections = Object.fromEntries(
		tools.map((tool) => [
			tool.name,
			{ ai_tool: [[{ node: trigger.name, type: 'ai_tool', index: 0 }]] },
		]),
	);
	return {
		id: 'abstractMcpTools',
		name: 'Abstract API tools over MCP',
		nodes: [trigger, ...tools],
		connections,
		settings: {},
	};
}

/** One JSON-RPC call over MCP's Streamable HTTP; the answer may come as JSON or as one SSE event. */
async function rpc(
	url: string,
	session: string | undefined,
	method: string,
	params: object,
	id?: number,
) {
	const response = await fetch(url, {
		method: 'POST',
		headers: {
			'content-type': 'application/json',
			accept: 'application/json, text/event-stream',
			...(session ? { 'mcp-session-id': session } : {}),
		},
		body: JSON.stringify({ jsonrpc: '2.0', method, params, ...(id === undefined ? {} : { id }) }),
	});
	const text = await response.text();
	if (response.status >= 400) throw new Error(`${method}: HTTP ${response.status} ${text}`);
	const data =
		text
			.split('\n')
			.find((line) => line.startsWith('data:'))
			?.slice(5) ?? text;
	return {
		session: response.headers.get('mcp-session-id') ?? session,
		body: data.trim() ? JSON.parse(data) : undefined,
	};
}

async function main(): Promise<number> {
	const prepared = await prepare('mcp', console.log);
	let sandbox: Sandbox | undefined;
	let stopServer: (() => Promise<void>) | undefined;
	try {
		sandbox = await startSandbox({ port: Number(process.env.SANDBOX_PORT ?? 0) || undefined });
		const env = await environmentFor(prepared, Number(process.env.N8N_PORT ?? 0) || undefined);
		const workflow = mcpWorkflow();
		await importIntoN8n(prepared.runtime, env, sandbox, [workflow]);
		assertSucceeded(
			await n8nCommand(prepared.runtime, env, ['publish:workflow', `--id=${workflow.id}`]),
			'n8n publish:workflow',
		);
		const { server } = await startAndCheck(prepared, env);
		stopServer = server.stop;

		const url = `${server.url}/mcp/${MCP_PATH}`;
		const init = await rpc(
			url,
			undefined,
			'initialize',
			{
				protocolVersion: '2025-03-26',
				capabilities: {},
				clientInfo: { name: 'mcpTools', version: '1' },
			},
			1,
		);
		await rpc(url, init.session, 'notifications/initialized', {});
		const list = await rpc(url, init.session, 'tools/list', {}, 2);
		const listed = (list.body?.result?.tools ?? []) as Array<{ name: string; description: string }>;

		let failed = 0;
		for (const tool of TOOLS) {
			const offered = listed.find((candidate) => candidate.name === tool.name.replace(/ /g, '_'));
			const ok = offered !== undefined && offered.description.startsWith(tool.expected);
			if (!ok) failed++;
			console.log(
				`${ok ? 'ok    ' : 'FAILED'} ${tool.name} (${tool.node}): ${JSON.stringify(offered?.description ?? 'not offered')}`,
			);
		}
		console.log(
			failed === 0
				? `MCP tools/list: all ${TOOLS.length} tools say what they are set to do`
				: `MCP tools/list: ${failed} of ${TOOLS.length} FAILED`,
		);
		return failed === 0 ? 0 : 1;
	} finally {
		await stopServer?.();
		await sandbox?.close();
		await fs.rm(prepared.workFolder, { recursive: true, force: true });
	}
}

main().then(
	(code) => process.exit(code),
	(error) => {
		console.error(error);
		process.exit(1);
	},
);
