import { createHash } from 'crypto';
import { promises as fs } from 'fs';
import path from 'path';

import { parseCsv } from '../../nodes/shared/csv/csv';
import {
	allSandboxCredentials,
	CREDENTIAL_TYPES,
	exampleCredentialId,
} from '../../test/harness/sandboxCredentials';
import { STORED_INPUTS } from '../../test/sandbox/storedInputs';
import type { Sandbox } from '../../test/sandbox/server';
import { assertSucceeded } from './processes';
import { n8nCommand } from './instance';
import type { Runtime } from './runtime';

/** A node as n8n saves it in a workflow file (the fields these scripts read). */
export interface WorkflowNode {
	id?: string;
	name: string;
	type: string;
	typeVersion: number;
	position: [number, number];
	parameters: Record<string, unknown>;
	credentials?: Record<string, { id: string; name: string }>;
	[field: string]: unknown;
}

export interface Workflow {
	id?: string;
	name: string;
	nodes: WorkflowNode[];
	connections: Record<string, unknown>;
	active?: boolean;
	[field: string]: unknown;
}

/** One file of examples/ and the id it gets in n8n. */
export interface Example {
	file: string;
	id: string;
	workflow: Workflow;
}

/**
 * What a run of an example must show beyond the checks every example gets (runChecks.ts): the
 * items that must reach given nodes, in order (each a subset of their JSON), and the items of a
 * node of the package that fail before they are sent (so cost no request). The lead check whose
 * failures go to the error output is proved by its branches: the answered leads on one, the
 * failed ones, with their reason, on the other.
 */
export interface ExampleExpectation {
	branches?: Record<string, Array<Record<string, string | RegExp>>>;
	failedBeforeSending?: Record<string, number>;
	/** Items a node of the package answers without a request (Company Enrichment's webmail leads): they cost no request either. */
	skippedWithoutRequest?: Record<string, number>;
}

const NO_ADDRESS = /^Invalid Email \(email\): is required/;

/** A result file's summary (Output: Result File) for a stored list read whole: every row answered, no next row to start from. */
function wholeList(list: string): Array<Record<string, RegExp>> {
	const rows = String(parseCsv(Buffer.from(STORED_INPUTS[list])).length - 1);
	return [{ rows: new RegExp(`^${rows}$`), answered: new RegExp(`^${rows}$`), nextRow: /^$/ }];
}

export const EXAMPLE_EXPECTATIONS: Record<string, ExampleExpectation> = {
	// Company Enrichment takes each lead's email address: the webmail ones are skipped, at no request.
	'lead-enrichment.json': {
		branches: {
			'Enriched lead': [
				{ name: 'Ada Lovelace', company_skipped: '' },
				{ name: 'Grace Hopper', company_skipped: '' },
				{ name: 'Alan Turing', company_skipped: '' },
				{ name: 'Katherine Johnson', company_skipped: 'disposable email provider' },
				{ name: 'Edsger Dijkstra', company_skipped: 'free email provider' },
			],
		},
		skippedWithoutRequest: { 'Company Enrichment': 2 },
	},
	// The stored lists the harness puts in ~/.n8n-files, as the README asks a user to.
	'bulk-email-result-file.json': { branches: { 'Email Reputation': wholeList('leads.csv') } },
	'bulk-company-result-file.json': { branches: { 'Company Enrichment': wholeList('domains.csv') } },
	'lead-check-failed-leads-branch.json': {
		branches: {
			'Checked leads': [
				{ name: 'Ada Lovelace', email_status: 'deliverable' },
				{ name: 'Alan Turing', email_status: 'deliverable' },
				{ name: 'Edsger Dijkstra', email_status: 'undeliverable', status_detail: 'invalid_format' },
			],
			'Failed leads': [
				{ name: 'Grace Hopper', failed_because: NO_ADDRESS, what_to_do: /cost no credit/ },
				{ name: 'Katherine Johnson', failed_because: NO_ADDRESS, what_to_do: /cost no credit/ },
			],
		},
		failedBeforeSending: { 'Email Reputation': 2 },
	},
};

/** The ids of the sandbox credentials, one per service, as the examples reference them. */
export const exampleCredentialIds = () => Object.values(CREDENTIAL_TYPES).map(exampleCredentialId);

export const MANUAL_TRIGGER = 'n8n-nodes-base.manualTrigger';
export const SCHEDULE_TRIGGER = 'n8n-nodes-base.scheduleTrigger';

/** Every workflow in examples/, in file-name order, each with a stable n8n id. */
export async function readExamples(root: string): Promise<Example[]> {
	const dir = path.join(root, 'examples');
	const files = (await fs.readdir(dir).catch(() => [] as string[]))
		.filter((file) => file.endsWith('.json'))
		.sort();
	const examples: Example[] = [];
	for (const file of files) {
		const workflow = JSON.parse(await fs.readFile(path.join(dir, file), 'utf8')) as Workflow;
		examples.push({ file, id: workflowId(file), workflow });
	}
	return examples;
}

/**
 * n8n's CLI runs workflow ids of at most 21 characters; a file's own id (if any) may collide with
 * another file's, so the id comes from the file name: the same every run, unique per file.
 */
export function workflowId(file: string, variant = ''): string {
	return `ex${createHash('sha256')
		.update(file + variant)
		.digest('hex')
		.slice(0, 14)}`;
}

/**
 * The copy of an example that `n8n execute` can start. The CLI starts only from a Manual
 * Trigger (or an Execute Workflow Trigger); a workflow that starts from a Schedule Trigger gets
 * a Manual Trigger in its place, under the same name and connections, so one run of it does what
 * one tick of the schedule does. Returns undefined when there is neither trigger.
 */
export function cliRunnable(example: Example): { workflow: Workflow; note?: string } | undefined {
	const { workflow } = example;
	if (workflow.nodes.some((node) => node.type === MANUAL_TRIGGER))
		return { workflow: { ...workflow, id: example.id } };
	const schedules = workflow.nodes.filter((node) => node.type === SCHEDULE_TRIGGER);
	if (schedules.length === 0) return undefined;
	const nodes = workflow.nodes.map((node) =>
		node.type === SCHEDULE_TRIGGER
			? { ...node, type: MANUAL_TRIGGER, typeVersion: 1, parameters: {} }
			: node,
	);
	return {
		workflow: {
			...workflow,
			id: workflowId(example.file, 'cli'),
			name: `${workflow.name} (CLI run)`,
			nodes,
		},
		note: `started by a Manual Trigger in place of "${schedules.map((node) => node.name).join('", "')}" (n8n's CLI cannot start a Schedule Trigger)`,
	};
}

/**
 * Imports, through n8n's CLI, credentials for every service pointing at the sandbox (under the
 * ids the examples reference: `sandbox-<credentialType>`) and the given workflows, inactive.
 */
export async function importIntoN8n(
	runtime: Runtime,
	env: NodeJS.ProcessEnv,
	sandbox: Sandbox,
	workflows: Workflow[],
	credentialData: Record<string, number> = {},
): Promise<void> {
	const folder = path.join(env.N8N_USER_FOLDER ?? '.', 'imports');
	await fs.mkdir(folder, { recursive: true });
	const credentialsFile = path.join(folder, 'credentials.json');
	const workflowsFile = path.join(folder, 'workflows.json');
	// n8n's import takes decrypted `data` and encrypts it with the instance's key.
	await fs.writeFile(
		credentialsFile,
		JSON.stringify(allSandboxCredentials(sandbox, credentialData), null, 2),
	);
	await fs.writeFile(
		workflowsFile,
		JSON.stringify(
			workflows.map((workflow) => ({ ...workflow, active: false })),
			null,
			2,
		),
	);
	assertSucceeded(
		await n8nCommand(runtime, env, ['import:credentials', `--input=${credentialsFile}`]),
		'n8n import:credentials',
	);
	if (workflows.length > 0) {
		assertSucceeded(
			await n8nCommand(runtime, env, ['import:workflow', `--input=${workflowsFile}`]),
			'n8n import:workflow',
		);
	}
	// The files hold the sandbox keys; n8n has them encrypted now.
	await fs.rm(folder, { recursive: true, force: true });
}
