import { promises as fs } from 'fs';
import path from 'path';

import type { Sandbox } from '../../test/sandbox/server';
import { exampleCredentialId, exampleCredentialName } from '../../test/harness/sandboxCredentials';
import { importIntoN8n, MANUAL_TRIGGER, type Workflow } from './examples';
import { executeWorkflow } from './runChecks';
import { environmentFor, type Prepared } from './setup';

/**
 * Options > Estimate Credits Only in a real n8n: a 50,000-row lead file (repeated company
 * domains, one lead in five at a webmail provider) read from `~/.n8n-files` into Company
 * Enrichment (Output: Result File), run by `n8n execute` twice: first as an estimate, then for
 * real, on a credential without pacing (Requests per Second 0). The estimate must send nothing,
 * and the real run must send exactly the requests the estimate counted (the sandbox's log and
 * the result file's summary both say how many). It prints both figures and both nodes' times
 * (n8n's own executionTime of the node): the estimate's goal is under a tenth of the run's.
 */
const CREDENTIAL = 'abstractCompanyApi';
export const ESTIMATE_ROWS = 50_000;
const COMPANY_DOMAINS = 25_000;
const WEBMAIL = ['gmail.com', 'yahoo.com', 'outlook.com', 'hotmail.com', 'proton.me'];
const FILE_NAME = 'leads-50000.csv';

/** The lead file: name and email; every fifth lead at a webmail provider, the others at one of 25,000 companies. */
export function leadFile(rows = ESTIMATE_ROWS): string {
	const lines = ['name,email'];
	for (let index = 0; index < rows; index++) {
		const domain =
			index % 5 === 4 ? WEBMAIL[index % WEBMAIL.length] : `company${index % COMPANY_DOMAINS}.com`;
		lines.push(`Lead ${index + 1},lead${index + 1}@${domain}`);
	}
	return `${lines.join('\n')}\n`;
}

function leadWorkflow(id: string, estimateOnly: boolean): Workflow {
	const node = (
		name: string,
		type: string,
		typeVersion: number,
		x: number,
		parameters: Record<string, unknown>,
		extra: Record<string, unknown> = {},
	) => ({
		id: `${id}-${name.replace(/\W/g, '')}`,
		name,
		type,
		typeVersion,
		position: [x, 0] as [number, number],
		parameters,
		...extra,
	});
	const nodes = [
		node('Start', MANUAL_TRIGGER, 1, 0, {}),
		node('Read lead file', 'n8n-nodes-base.readWriteFile', 1, 220, {
			operation: 'read',
			fileSelector: `.n8n-files/${FILE_NAME}`,
			options: {},
		}),
		node(
			'Company Enrichment',
			'n8n-nodes-abstractapi.abstractCompany',
			1,
			440,
			{
				input: 'csvFile',
				binaryPropertyName: 'data',
				domainColumn: 'email',
				output: 'resultFile',
				resultBinaryPropertyName: 'data',
				options: estimateOnly ? { estimateOnly: true } : {},
			},
			{
				credentials: {
					[CREDENTIAL]: {
						id: exampleCredentialId(CREDENTIAL),
						name: exampleCredentialName(CREDENTIAL),
					},
				},
			},
		),
	];
	const link = (to: string) => ({ main: [[{ node: to, type: 'main', index: 0 }]] });
	return {
		id,
		name: `Lead file ${estimateOnly ? 'estimate' : 'run'} (e2e)`,
		nodes,
		connections: { Start: link('Read lead file'), 'Read lead file': link('Company Enrichment') },
		settings: { executionOrder: 'v1' },
	} as unknown as Workflow;
}

const ESTIMATE = leadWorkflow('estimateLeadsE2e', true);
const REAL_RUN = leadWorkflow('realRunLeadsE2e', false);

interface NodeRun {
	items: Array<{ json: Record<string, unknown> }>;
	/** n8n's time of the node's run, in milliseconds. */
	executionTime: number;
}

export async function runEstimateCheck(
	prepared: Prepared,
	sandbox: Sandbox,
	log: (line: string) => void,
): Promise<string[]> {
	const what = 'Estimate Credits Only (50,000-row lead file, Company Enrichment)';
	const env = await environmentFor(prepared);
	await importIntoN8n(prepared.runtime, env, sandbox, [ESTIMATE, REAL_RUN], {
		requestsPerSecond: 0,
	});
	await fs.writeFile(path.join(prepared.filesFolder, FILE_NAME), leadFile());
	const problems: string[] = [];
	const execute = async (
		workflow: Workflow,
	): Promise<{ run: NodeRun; requests: number } | undefined> => {
		sandbox.reset();
		const ran = await executeWorkflow(prepared, env, workflow.id, 3);
		if ('exitCode' in ran) {
			problems.push(
				`${what}: n8n execute of ${workflow.id} exited with ${ran.exitCode}: ${ran.why.join(' | ')}`,
			);
			return undefined;
		}
		const task = ran.execution.data.resultData.runData['Company Enrichment']?.[0] as unknown as
			| { data?: { main?: Array<NodeRun['items'] | null> }; executionTime: number }
			| undefined;
		return {
			run: { items: task?.data?.main?.[0] ?? [], executionTime: task?.executionTime ?? 0 },
			requests: sandbox.requests('company').length,
		};
	};
	const estimate = await execute(ESTIMATE);
	const real = await execute(REAL_RUN);
	if (!estimate || !real) return problems;
	const counted = estimate.run.items[0]?.json ?? {};
	const summary = real.run.items[0]?.json ?? {};
	const ratio =
		real.run.executionTime > 0 ? estimate.run.executionTime / real.run.executionTime : Number.NaN;
	const figure = (value: unknown) =>
		typeof value === 'number' ? value.toLocaleString('en-US') : String(value);
	log(
		`\n${what}: the estimate counted ${figure(counted.requestsToSend)} requests of ${figure(counted.rows)} rows (${JSON.stringify(counted.notSent)}) and sent ${figure(estimate.requests)}; ` +
			`the run sent ${figure(real.requests)} (its summary: ${figure(summary.requestsSent)}). Node time: estimate ${figure(estimate.run.executionTime)} ms, run ${figure(real.run.executionTime)} ms (${ratio.toFixed(3)} of it)`,
	);
	if (estimate.requests !== 0)
		problems.push(`${what}: the estimate sent ${estimate.requests} requests`);
	if (counted.rows !== ESTIMATE_ROWS)
		problems.push(`${what}: the estimate read ${String(counted.rows)} rows, not ${ESTIMATE_ROWS}`);
	if (real.requests !== counted.requestsToSend || summary.requestsSent !== counted.requestsToSend) {
		problems.push(
			`${what}: the estimate counted ${String(counted.requestsToSend)} requests, the run sent ${real.requests} (its summary says ${String(summary.requestsSent)})`,
		);
	}
	return problems;
}
