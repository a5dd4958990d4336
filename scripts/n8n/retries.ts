import { createRequire } from 'module';
import path from 'path';

import type { Sandbox } from '../../test/sandbox/server';
import type { LoggedRequest } from '../../test/sandbox/types';
import { firstTimeOnly } from '../../test/harness/retryOnFail';
import { exampleCredentialId, exampleCredentialName } from '../../test/harness/sandboxCredentials';
import { importIntoN8n, MANUAL_TRIGGER, type Workflow } from './examples';
import { n8nCommand, type Server } from './instance';
import { assertSucceeded } from './processes';
import { parseExecution } from './runChecks';
import { environmentFor, startAndCheck, type Prepared } from './setup';

/**
 * n8n runs a node again on the same input, and the package must not pay again for what it was
 * answered (keptAnswers.ts), in a real n8n:
 *  1. Retry On Fail: a workflow run by `n8n execute` whose Email node (Settings > Retry On Fail,
 *     3 tries) gets a 400 for one address on its first try: n8n runs the node again, and the
 *     sandbox must have answered each address exactly once.
 *  2. Retry of an execution: the same kind of workflow run in the editor's server through its
 *     REST API, stopped by a spent plan; the sandbox's credits are raised and the failed execution
 *     is retried as the executions list does (`POST /rest/executions/:id/retry`): again each
 *     address is answered once, and the retry answers every item.
 *  3. Test runs and production runs (runTestRunChecks): a workflow of 50 leads executed twice as
 *     the editor does (`POST /rest/workflows/:id/run`, n8n's `manual` mode) pays 50 then 0; its
 *     production webhook called twice pays 50 and 50; with Reuse Answers For (Hours) set, 50 then 0.
 */
const EMAIL_CREDENTIAL = 'abstractEmailApi';
const ADDRESSES = Array.from({ length: 12 }, (_, index) => `retry-lead${index + 1}@example.com`);

/** The node builder of workflow `workflowId`: each node's id is the workflow's and its own name's. */
function nodeOfWorkflow(workflowId: string) {
	return (
		nodeName: string,
		type: string,
		typeVersion: number,
		x: number,
		parameters: Record<string, unknown>,
		extra: Record<string, unknown> = {},
	) => ({
		id: `${workflowId}-${nodeName.replace(/\W/g, '')}`,
		name: nodeName,
		type,
		typeVersion,
		position: [x, 0] as [number, number],
		parameters,
		...extra,
	});
}

function emailWorkflow(id: string, name: string, settings: Record<string, unknown>): Workflow {
	const leads = JSON.stringify({ leads: ADDRESSES.map((email) => ({ email })) }, null, 2);
	const node = nodeOfWorkflow(id);
	const nodes = [
		node('Start', MANUAL_TRIGGER, 1, 0, {}),
		node('Leads', 'n8n-nodes-base.set', 3.4, 220, { mode: 'raw', jsonOutput: leads, options: {} }),
		node('One row per lead', 'n8n-nodes-base.splitOut', 1, 440, {
			fieldToSplitOut: 'leads',
			options: {},
		}),
		node(
			'Email Reputation',
			'n8n-nodes-abstractapi.abstractEmail',
			1,
			660,
			{ email: '={{ $json.email }}', options: {} },
			{
				credentials: {
					[EMAIL_CREDENTIAL]: {
						id: exampleCredentialId(EMAIL_CREDENTIAL),
						name: exampleCredentialName(EMAIL_CREDENTIAL),
					},
				},
				...settings,
			},
		),
	];
	const chain = ['Start', 'Leads', 'One row per lead', 'Email Reputation'];
	const connections = Object.fromEntries(
		chain
			.slice(0, -1)
			.map((from, index) => [
				from,
				{ main: [[{ node: chain[index + 1], type: 'main', index: 0 }]] },
			]),
	);
	return {
		id,
		name,
		nodes,
		connections,
		settings: { executionOrder: 'v1' },
	} as unknown as Workflow;
}

const RETRY_ON_FAIL = emailWorkflow('retryOnFailE2e', 'Retry On Fail (e2e)', {
	retryOnFail: true,
	maxTries: 3,
	waitBetweenTries: 100,
});
const SPENT_PLAN = emailWorkflow('retryExecutionE2e', 'Retry of an execution (e2e)', {});

const addressOf = (request: { fields: Record<string, unknown>; query: Record<string, string> }) =>
	String(request.fields.email ?? request.query.email);

/** Addresses the sandbox answered (200) more than once, and those it never answered. */
function paidProblems(log: LoggedRequest[], what: string): string[] {
	const paid = new Map<string, number>();
	for (const request of log)
		if (request.service === 'email' && request.status === 200)
			paid.set(addressOf(request), (paid.get(addressOf(request)) ?? 0) + 1);
	const twice = [...paid].filter(([, count]) => count > 1);
	const never = ADDRESSES.filter((address) => !paid.has(address));
	return [
		...(twice.length
			? [
					`${what}: ${twice.length} addresses answered (and charged) more than once: ${twice.map(([address, count]) => `${address} ×${count}`).join(', ')}`,
				]
			: []),
		...(never.length ? [`${what}: ${never.length} addresses never answered`] : []),
	];
}

export async function runRetryChecks(
	prepared: Prepared,
	sandbox: Sandbox,
	log: (line: string) => void,
): Promise<string[]> {
	const env = await environmentFor(prepared);
	await importIntoN8n(prepared.runtime, env, sandbox, [RETRY_ON_FAIL, SPENT_PLAN]);
	return [
		...(await retryOnFail(prepared, env, sandbox, log)),
		...(await retryOfAnExecution(prepared, env, sandbox, log)),
	];
}

async function retryOnFail(
	prepared: Prepared,
	env: NodeJS.ProcessEnv,
	sandbox: Sandbox,
	log: (line: string) => void,
): Promise<string[]> {
	sandbox.reset();
	sandbox.faultWhen(
		'email',
		firstTimeOnly((request) => addressOf(request) === ADDRESSES[6]),
		{ kind: 'status', status: 400 },
	);
	const result = await n8nCommand(prepared.runtime, env, [
		'execute',
		`--id=${RETRY_ON_FAIL.id}`,
		'--rawOutput',
	]);
	const what = 'Retry On Fail (n8n execute)';
	if (result.code !== 0) return [`${what}: n8n execute exited with ${result.code}`];
	const items =
		parseExecution(result.stdout).data.resultData.runData['Email Reputation']?.[0]?.data
			?.main?.[0] ?? [];
	const requests = sandbox.requests('email');
	log(
		`\n${what}: ${requests.length} requests for ${ADDRESSES.length} addresses (one refused once), ${items.length} items answered`,
	);
	return [
		...paidProblems(sandbox.log, what),
		...(items.length === ADDRESSES.length
			? []
			: [`${what}: ${items.length} items out, not ${ADDRESSES.length}`]),
	];
}

async function retryOfAnExecution(
	prepared: Prepared,
	env: NodeJS.ProcessEnv,
	sandbox: Sandbox,
	log: (line: string) => void,
): Promise<string[]> {
	const what = 'Retry of an execution (REST)';
	sandbox.reset();
	sandbox.setQuota('email', 7);
	const { server, cookie } = await startAndCheck(prepared, env);
	try {
		const rest = restClient(server, cookie);
		const started = await rest<{ executionId: string }>(
			'POST',
			`/rest/workflows/${SPENT_PLAN.id}/run`,
			{ triggerToStartFrom: { name: 'Start' } },
		);
		const failed = await finished(server, rest, started.executionId);
		if (failed.status !== 'error')
			return [`${what}: the first run ended "${failed.status}", not stopped by the spent plan`];
		const firstRun = sandbox.requests('email').filter((request) => request.status === 200).length;
		sandbox.setQuota('email', 1000);
		await rest<unknown>('POST', `/rest/executions/${started.executionId}/retry`, {
			loadWorkflow: false,
		});
		const retries = await rest<{
			results: Array<{ id: string; retryOf?: string; status: string }>;
		}>(
			'GET',
			`/rest/executions?filter=${encodeURIComponent(JSON.stringify({ workflowId: SPENT_PLAN.id }))}`,
		);
		const retry = retries.results.find(
			(execution) => String(execution.retryOf) === String(started.executionId),
		);
		if (!retry) return [`${what}: no execution retries ${started.executionId}`];
		const done = await finished(server, rest, retry.id);
		const requests = sandbox.requests('email');
		log(
			`${what}: ${firstRun} answered before the plan ran out; the retry ended "${done.status}"; ${requests.length} requests in all for ${ADDRESSES.length} addresses`,
		);
		return [
			...(done.status === 'success' ? [] : [`${what}: the retry ended "${done.status}"`]),
			...paidProblems(sandbox.log, what),
		];
	} finally {
		await server.stop();
	}
}

/** Waits for an execution to end; its status. */
async function finished(
	server: Server,
	rest: <T>(method: string, path: string, body?: unknown) => Promise<T>,
	executionId: string,
): Promise<{ status: string }> {
	const deadline = Date.now() + 120_000;
	while (Date.now() < deadline) {
		const execution = await rest<{ status: string; finished: boolean; stoppedAt?: string }>(
			'GET',
			`/rest/executions/${executionId}`,
		);
		if (
			execution.stoppedAt ||
			['success', 'error', 'crashed', 'canceled'].includes(execution.status)
		)
			return execution;
		await new Promise((resolve) => setTimeout(resolve, 500));
	}
	throw new Error(`execution ${executionId} did not end within two minutes on ${server.url}`);
}

const TEST_LEADS = Array.from(
	{ length: 50 },
	(_, index) => `test-run-lead${index + 1}@example.com`,
);

/** Manual Trigger and production Webhook both into 50 leads and Email Reputation. */
function testRunWorkflow(id: string, name: string, options: Record<string, unknown>): Workflow {
	const leads = JSON.stringify({ leads: TEST_LEADS.map((email) => ({ email })) }, null, 2);
	const node = nodeOfWorkflow(id);
	const nodes = [
		node('Start', MANUAL_TRIGGER, 1, 0, {}),
		node(
			'Hook',
			'n8n-nodes-base.webhook',
			2,
			0,
			{
				httpMethod: 'POST',
				path: id,
				responseMode: 'lastNode',
				responseData: 'allEntries',
				options: {},
			},
			{ webhookId: id },
		),
		node('Leads', 'n8n-nodes-base.set', 3.4, 220, { mode: 'raw', jsonOutput: leads, options: {} }),
		node('One row per lead', 'n8n-nodes-base.splitOut', 1, 440, {
			fieldToSplitOut: 'leads',
			options: {},
		}),
		node(
			'Email Reputation',
			'n8n-nodes-abstractapi.abstractEmail',
			1,
			660,
			{ email: '={{ $json.email }}', options },
			{
				credentials: {
					[EMAIL_CREDENTIAL]: {
						id: exampleCredentialId(EMAIL_CREDENTIAL),
						name: exampleCredentialName(EMAIL_CREDENTIAL),
					},
				},
			},
		),
	];
	const link = (to: string) => ({ main: [[{ node: to, type: 'main', index: 0 }]] });
	const connections = {
		Start: link('Leads'),
		Hook: link('Leads'),
		Leads: link('One row per lead'),
		'One row per lead': link('Email Reputation'),
	};
	return {
		id,
		name,
		nodes,
		connections,
		settings: { executionOrder: 'v1' },
	} as unknown as Workflow;
}

const TEST_RUNS = testRunWorkflow('testRunsE2e', 'Test runs reuse answers (e2e)', {});
const PRODUCTION_REUSE = testRunWorkflow('productionReuseE2e', 'Production reuse (e2e)', {
	reuseAnswersForHours: 1,
});

/**
 * Test runs reuse what a test run of the node paid for; production runs ask afresh unless the
 * node's Reuse Answers For (Hours) says otherwise. Both workflows are published (active) before
 * n8n starts, so their production webhooks answer.
 */
export async function runTestRunChecks(
	prepared: Prepared,
	sandbox: Sandbox,
	log: (line: string) => void,
): Promise<string[]> {
	const what = 'Test runs and production runs (REST, webhooks)';
	const env = await environmentFor(prepared);
	await importIntoN8n(prepared.runtime, env, sandbox, [TEST_RUNS, PRODUCTION_REUSE]);
	for (const workflow of [TEST_RUNS, PRODUCTION_REUSE]) {
		assertSucceeded(
			await n8nCommand(prepared.runtime, env, ['publish:workflow', `--id=${workflow.id}`]),
			`publishing ${workflow.id}`,
		);
	}
	const flatted = createRequire(
		path.join(prepared.runtime.n8nDir, 'node_modules', 'n8n', 'package.json'),
	)('flatted') as { parse: (text: string) => unknown };
	const { server, cookie } = await startAndCheck(prepared, env);
	const problems: string[] = [];
	try {
		const rest = restClient(server, cookie);
		/** The requests the sandbox got while `run` ran, and the items the Email node gave. */
		const counted = async (
			run: () => Promise<number>,
		): Promise<{ requests: number; items: number }> => {
			sandbox.reset();
			const items = await run();
			return { requests: sandbox.requests('email').length, items };
		};
		const testRun = async (workflow: Workflow) => {
			const started = await rest<{ executionId: string }>(
				'POST',
				`/rest/workflows/${workflow.id}/run`,
				{ triggerToStartFrom: { name: 'Start' } },
			);
			const done = await finished(server, rest, started.executionId);
			if (done.status !== 'success')
				problems.push(`${what}: a test run of ${workflow.id} ended "${done.status}"`);
			// The REST API gives the execution's data in n8n's "flatted" form, read with n8n's own copy of flatted.
			const execution = await rest<{ data: string }>(
				'GET',
				`/rest/executions/${started.executionId}`,
			);
			const data = flatted.parse(execution.data) as {
				resultData: { runData: Record<string, Array<{ data?: { main?: unknown[][] } }>> };
			};
			return data.resultData.runData['Email Reputation']?.[0]?.data?.main?.[0]?.length ?? 0;
		};
		const webhook = async (workflow: Workflow) => {
			const response = await fetch(`${server.url}/webhook/${workflow.id}`, {
				method: 'POST',
				headers: { 'content-type': 'application/json' },
				body: '{}',
			});
			const body = await response.text();
			if (!response.ok)
				problems.push(
					`${what}: the production webhook of ${workflow.id} answered ${response.status} ${body.slice(0, 200)}`,
				);
			try {
				return (JSON.parse(body) as unknown[]).length;
			} catch {
				return 0;
			}
		};
		const rounds: Array<[string, () => Promise<number>, number[]]> = [
			['test runs (Execute workflow)', async () => await testRun(TEST_RUNS), [50, 0]],
			['production webhook', async () => await webhook(TEST_RUNS), [50, 50]],
			[
				'production webhook, Reuse Answers For (Hours) 1',
				async () => await webhook(PRODUCTION_REUSE),
				[50, 0],
			],
		];
		for (const [label, run, expected] of rounds) {
			const first = await counted(run);
			const second = await counted(run);
			log(
				`${what}: ${label}: ${first.requests} then ${second.requests} requests (expected ${expected.join(' then ')}), ${first.items} and ${second.items} items`,
			);
			if (first.requests !== expected[0] || second.requests !== expected[1]) {
				problems.push(
					`${what}: ${label} sent ${first.requests} then ${second.requests} requests, not ${expected.join(' then ')}`,
				);
			}
			if (first.items !== TEST_LEADS.length || second.items !== TEST_LEADS.length) {
				problems.push(
					`${what}: ${label} gave ${first.items} and ${second.items} items, not ${TEST_LEADS.length}`,
				);
			}
		}
	} finally {
		await server.stop();
	}
	return problems;
}

/** n8n's REST API as the editor calls it, signed in. */
function restClient(server: Server, cookie: string) {
	return async <T>(method: string, path: string, body?: unknown): Promise<T> => {
		const response = await fetch(`${server.url}${path}`, {
			method,
			headers: { cookie, 'content-type': 'application/json', 'browser-id': 'e2e' },
			body: body === undefined ? undefined : JSON.stringify(body),
		});
		const text = await response.text();
		if (!response.ok)
			throw new Error(`${method} ${path}: HTTP ${response.status} ${text.slice(0, 300)}`);
		return (JSON.parse(text) as { data: T }).data;
	};
}
