import './env';

import { Container } from '@n8n/di';
import {
	BinaryDataConfig,
	BinaryDataService,
	ExecutionLifecycleHooks,
	WorkflowExecute,
} from 'n8n-core';
import { NodeConnectionTypes, Workflow } from 'n8n-workflow';
import type {
	IBinaryData,
	IConnections,
	IDataObject,
	IExecuteFunctions,
	INode,
	INodeExecutionData,
	INodeType,
	IRun,
	IRunExecutionData,
	IWorkflowExecuteAdditionalData,
	IWorkflowBase,
	WorkflowExecuteMode,
} from 'n8n-workflow';

import { TRIGGER_TYPES } from './baseNodes';
import { CredentialsHelper, type Authenticated, type StoredCredential } from './credentials';
import { NodeTypes, PACKAGE_NAME, packageCredentialTypes } from './nodeTypes';

export type { StoredCredential } from './credentials';

/** A workflow as n8n exports it (the examples/ files) or as a test writes it. */
export interface WorkflowJson {
	name?: string;
	nodes: INode[];
	connections: IConnections;
	settings?: IDataObject;
	staticData?: IDataObject;
}

/** A node of a test or bench workflow, version 1 unless `extra` says otherwise, laid out left to right at `x`. */
export function workflowNode(
	name: string,
	type: string,
	x: number,
	parameters: IDataObject = {},
	extra: Partial<INode> = {},
): INode {
	return {
		id: name,
		name,
		type,
		typeVersion: 1,
		position: [x, 0],
		parameters: parameters as INode['parameters'],
		...extra,
	};
}

/** Connections that chain the named nodes in order, each into the next one's main input. */
export function chainConnections(names: readonly string[]): IConnections {
	return Object.fromEntries(
		names
			.slice(0, -1)
			.map((name, index) => [
				name,
				{ main: [[{ node: names[index + 1], type: NodeConnectionTypes.Main, index: 0 }]] },
			]),
	);
}

export interface RunOptions {
	credentials: StoredCredential[];
	/** Static data of the workflow, kept between runs (the database node's skipIfUnchanged). */
	staticData?: IDataObject;
	/** Called once the execution has started, with what the editor's Stop button does. */
	onStarted?: (stop: () => void) => void;
	/**
	 * The workflow's id (n8n's is the saved workflow's): kept answers are filed under it. Default:
	 * one of its own for each run, as if each run were of a new workflow (pass a result's
	 * `options.workflowId` to run the same workflow again).
	 */
	workflowId?: string;
	/**
	 * n8n's execution mode: `manual` (default) is the editor's Execute workflow, Execute step and
	 * test webhook; `trigger`, `webhook`, `cli`... are production runs.
	 */
	mode?: WorkflowExecuteMode;
}

export interface RunResult {
	run: IRun;
	/** Items of a node's output (default: the first). */
	output(nodeName: string, outputIndex?: number): INodeExecutionData[];
	/** The error that stopped the workflow, if one did. */
	error?: Error & { description?: string; httpCode?: string | null };
	staticData: IDataObject;
	/** Every request the run's nodes sent through a credential, with the form it named. */
	authenticated: Authenticated[];
	/** What ran, for `retryExecution`. */
	workflowJson: WorkflowJson;
	options: RunOptions;
}

let binaryMode: 'memory' | 'filesystem' | undefined;

/**
 * Binary data the way the n8n instance keeps it: `memory` holds bytes in the items (base64),
 * `filesystem` streams them to files and keeps only a reference. A process starts in memory
 * mode, n8n's default; a test file may switch (in a describe's beforeAll) to run the same tests in
 * both, as n8n-core's BinaryDataService takes its mode again on init. Files stored in one mode are
 * for that mode's tests only.
 */
export async function useBinaryMode(mode: 'memory' | 'filesystem'): Promise<void> {
	if ((binaryMode ?? 'memory') === mode) return;
	binaryMode = mode;
	const config = Container.get(BinaryDataConfig);
	config.mode = mode === 'filesystem' ? 'filesystem' : 'default';
	await Container.get(BinaryDataService).init();
}

/** n8n's two binary modes, for tests that hold in both. */
export const BINARY_MODES = ['memory', 'filesystem'] as const;

/** Runs a whole workflow through n8n-core's engine, from its trigger (or its first node). */
export async function runWorkflow(
	workflowJson: WorkflowJson,
	options: RunOptions,
): Promise<RunResult> {
	const mode = options.mode ?? 'manual';
	return await execute(workflowJson, options, mode, (workflow, additionalData) => {
		const startNode =
			workflowJson.nodes.find((node) => TRIGGER_TYPES.has(node.type) || node.type === ITEMS_TYPE) ??
			workflow.getStartNode();
		return new WorkflowExecute(additionalData, mode).run({ workflow, startNode });
	});
}

/**
 * What the executions list's Retry does with a failed execution (n8n's ExecutionService.retry):
 * a new execution, in mode `retry`, of the same workflow, from the stored execution data without
 * the failed node's error run, so that n8n runs that node again on its stored input.
 */
export async function retryExecution(
	failed: RunResult,
	options: Partial<RunOptions> = {},
): Promise<RunResult> {
	const data = structuredClone(failed.run.data) as IRunExecutionData;
	delete data.resultData.error;
	const lastNode = data.resultData.lastNodeExecuted;
	const runs = lastNode ? data.resultData.runData[lastNode] : undefined;
	if (runs?.length && runs[runs.length - 1].error !== undefined) runs.pop();
	// n8n runs the stack's nodes as the workflow has them now (Retry with the saved workflow).
	const nodes = new Map(failed.workflowJson.nodes.map((node) => [node.name, node]));
	for (const entry of data.executionData?.nodeExecutionStack ?? [])
		entry.node = nodes.get(entry.node.name) ?? entry.node;
	return await execute(
		failed.workflowJson,
		{ ...failed.options, ...options },
		'retry',
		(workflow, additionalData) =>
			new WorkflowExecute(additionalData, 'retry', data).processRunExecutionData(workflow),
	);
}

let executions = 0;
let workflows = 0;

async function execute(
	workflowJson: WorkflowJson,
	options: RunOptions,
	mode: WorkflowExecuteMode,
	start: (
		workflow: Workflow,
		additionalData: IWorkflowExecuteAdditionalData,
	) => ReturnType<WorkflowExecute['run']>,
): Promise<RunResult> {
	const nodeTypes = new NodeTypes();
	const staticData = options.staticData ?? workflowJson.staticData ?? {};
	const workflowId = options.workflowId ?? `harness-${++workflows}`;
	const workflow = new Workflow({
		id: workflowId,
		name: workflowJson.name ?? 'harness',
		nodes: workflowJson.nodes,
		connections: workflowJson.connections,
		active: false,
		nodeTypes,
		staticData,
		settings: { executionOrder: 'v1', ...(workflowJson.settings ?? {}) },
	});
	const workflowData = {
		id: workflowId,
		name: workflow.name,
		nodes: workflowJson.nodes,
		connections: workflowJson.connections,
	} as IWorkflowBase;
	// Unique in the process, as n8n's are: two tries of a node share one, two executions never do.
	const executionId = `harness-${Date.now()}-${++executions}`;
	const credentialsHelper = new CredentialsHelper(packageCredentialTypes(), options.credentials);
	const additionalData = {
		credentialsHelper,
		hooks: new ExecutionLifecycleHooks(mode, executionId, workflowData),
		executionId,
		currentNodeExecutionIndex: 0,
		restApiUrl: 'http://127.0.0.1:5678/rest',
		instanceBaseUrl: 'http://127.0.0.1:5678',
		formWaitingBaseUrl: 'http://127.0.0.1:5678/form-waiting',
		webhookBaseUrl: 'http://127.0.0.1:5678/webhook',
		webhookWaitingBaseUrl: 'http://127.0.0.1:5678/webhook-waiting',
		webhookTestBaseUrl: 'http://127.0.0.1:5678/webhook-test',
		variables: {},
		executeWorkflow: async () => {
			throw new Error('Sub-workflows are not part of these tests');
		},
		getRunExecutionData: async () => undefined,
		logAiEvent: () => {},
		startRunnerTask: async () => {
			throw new Error('Code tasks are not part of these tests');
		},
	} as unknown as IWorkflowExecuteAdditionalData;

	const execution = start(workflow, additionalData);
	options.onStarted?.(() => execution.cancel());
	const run = await execution;
	const runData = run.data.resultData.runData;
	const failedNode = Object.values(runData)
		.flat()
		.find((task) => task.error);
	return {
		run,
		output: (nodeName, outputIndex = 0) => runData[nodeName]?.[0]?.data?.main?.[outputIndex] ?? [],
		error: (run.data.resultData.error ?? failedNode?.error) as RunResult['error'],
		staticData: workflow.staticData as IDataObject,
		authenticated: credentialsHelper.authenticated,
		workflowJson,
		// The id it ran with, so that a Retry or a second run is of the same workflow.
		options: { ...options, workflowId },
	};
}

/** An input item for `runNode`; binary properties are given as bytes and stored through n8n. */
export interface InputItem {
	json: IDataObject;
	binary?: Record<string, { bytes: Buffer; mimeType: string; fileName?: string }>;
}

export interface NodeRun {
	/** The node's `name` without the package prefix: `abstractIban`. */
	type: string;
	parameters: IDataObject;
	/** Credential data of the node's one credential type. */
	credential: { type: string; data: IDataObject };
	items?: InputItem[];
	/** Shorthand for `onError: 'continueRegularOutput'`. */
	continueOnFail?: boolean;
	/** The node's Settings > On Error: stop (default), continue on the regular output, or on the error output. */
	onError?: 'stopWorkflow' | 'continueRegularOutput' | 'continueErrorOutput';
	staticData?: IDataObject;
	/** The node's version; default: the one the editor gives a new node (defaultVersion, else the latest). */
	typeVersion?: number;
	onStarted?: RunOptions['onStarted'];
	/** More of the node's Settings: Retry On Fail (`retryOnFail`, `maxTries`, `waitBetweenTries`). */
	settings?: Pick<INode, 'retryOnFail' | 'maxTries' | 'waitBetweenTries'>;
	workflowId?: string;
	/** n8n's execution mode (default `manual`, the editor's). */
	mode?: WorkflowExecuteMode;
}

/** Runs one node of the package on the given items: `Items` -> node, through the engine. */
export async function runNode(
	spec: NodeRun,
): Promise<RunResult & { items: INodeExecutionData[]; errorItems: INodeExecutionData[] }> {
	const items = spec.items ?? [{ json: {} }];
	// Each run's items under a token of its own: runs of the harness may overlap.
	const token = ++itemTokens;
	itemsOf.set(token, items);
	const workflowJson: WorkflowJson = {
		nodes: [
			{
				id: 'items',
				name: 'Items',
				type: ITEMS_TYPE,
				typeVersion: 1,
				position: [0, 0],
				parameters: { token },
			},
			{
				id: 'node',
				name: 'Node',
				type: `${PACKAGE_NAME}.${spec.type}`,
				typeVersion: spec.typeVersion ?? newNodeVersion(spec.type),
				position: [200, 0],
				parameters: spec.parameters as INode['parameters'],
				credentials: { [spec.credential.type]: { id: 'cred', name: 'Sandbox' } },
				...(spec.onError
					? { onError: spec.onError }
					: spec.continueOnFail
						? { onError: 'continueRegularOutput' as const }
						: {}),
				...spec.settings,
			},
		],
		connections: {
			Items: { main: [[{ node: 'Node', type: NodeConnectionTypes.Main, index: 0 }]] },
		},
	};
	const result = await runWorkflow(workflowJson, {
		credentials: [
			{
				id: 'cred',
				name: 'Sandbox',
				type: spec.credential.type,
				data: spec.credential.data as StoredCredential['data'],
			},
		],
		staticData: spec.staticData,
		onStarted: spec.onStarted,
		workflowId: spec.workflowId,
		mode: spec.mode,
	});
	// With "Continue (using error output)", n8n gives the node a second output: its failed items.
	return { ...result, items: result.output('Node'), errorItems: result.output('Node', 1) };
}

/** The version the editor gives a node of this type when it is added: defaultVersion, else the latest. */
export function newNodeVersion(type: string): number {
	const { description } = new NodeTypes().getByNameAndVersion(`${PACKAGE_NAME}.${type}`);
	if (description.defaultVersion !== undefined) return description.defaultVersion;
	return Array.isArray(description.version)
		? Math.max(...description.version)
		: description.version;
}

/** Test-only source node: emits the items handed to `runNode`, binary stored through n8n. */
const ITEMS_TYPE = 'harness.items';
const itemsOf = new Map<number, InputItem[]>();
let itemTokens = 0;

class ItemsSource implements INodeType {
	description = {
		displayName: 'Items',
		name: 'items',
		group: ['input'],
		version: 1,
		description: 'Emits the items a test gives',
		defaults: { name: 'Items' },
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		properties: [{ displayName: 'Token', name: 'token', type: 'number', default: 0 }],
	} as INodeType['description'];

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const output: INodeExecutionData[] = [];
		const token = this.getNodeParameter('token', 0) as number;
		for (const item of itemsOf.get(token) ?? []) {
			const binary: Record<string, IBinaryData> = {};
			for (const [name, file] of Object.entries(item.binary ?? {})) {
				binary[name] = await this.helpers.prepareBinaryData(
					file.bytes,
					file.fileName,
					file.mimeType,
				);
			}
			output.push({ json: item.json, ...(item.binary ? { binary } : {}) });
		}
		return [output];
	}
}

NodeTypes.register(ITEMS_TYPE, new ItemsSource());
