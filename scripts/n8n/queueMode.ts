import { spawn, type ChildProcess } from 'child_process';
import { existsSync, promises as fs } from 'fs';
import path from 'path';

import type { Sandbox } from '../../test/sandbox/server';
import { importIntoN8n, type Workflow } from './examples';
import { n8nCommand, startServer, type Server } from './instance';
import { assertSucceeded, sleep, stopChild } from './processes';
import { environmentFor, type Prepared } from './setup';

/**
 * `npm run test:e2e -- --queue`: the package in a real n8n in queue mode, as teams run it when
 * one process is not enough: Redis (Debian's redis-server), a main process (editor, webhooks,
 * triggers) and 2 workers (`n8n worker`) that run the executions. All share one user folder,
 * as a shared volume would: its SQLite database (n8n accepts SQLite in queue mode, with a
 * warning), its encryption key and its installed community packages, so the package is
 * installed for main (which must register the workflows' triggers) and for every worker.
 *
 * Several executions at once (each a webhook call, each 10 email items) share one key, at 1/s
 * and at 5/s, against the sandbox limited to that rate. Every execution must succeed, no item
 * may be lost or sent again after success; it prints requests, 429s and the accepted rate.
 * Ports: main 5725 (broker 5726), workers 5727-5730, Redis 6390 (override: REDIS_PORT).
 */
const REDIS_PORT = Number(process.env.REDIS_PORT ?? 6390);
const EXECUTIONS = 4;
const ITEMS = 10;
const WORKERS = 2;

export async function runQueueMode(
	prepared: Prepared,
	sandbox: Sandbox,
	log: (line: string) => void,
): Promise<string[]> {
	const redisBinary = ['/usr/bin/redis-server', '/usr/local/bin/redis-server'].find((file) =>
		existsSync(file),
	);
	if (!redisBinary) {
		return [
			"queue mode needs Redis: install Debian's redis-server (`apt-get install redis-server`) and run again",
		];
	}
	const failures: string[] = [];
	const children: ChildProcess[] = [];
	let main: Server | undefined;
	try {
		const redis = spawn(
			redisBinary,
			['--port', String(REDIS_PORT), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
			{ stdio: 'ignore' },
		);
		children.push(redis);
		await sleep(500);
		if (redis.exitCode !== null)
			return [`redis-server could not start on port ${REDIS_PORT} (in use?)`];

		const queueEnv = {
			EXECUTIONS_MODE: 'queue',
			QUEUE_BULL_REDIS_HOST: '127.0.0.1',
			QUEUE_BULL_REDIS_PORT: String(REDIS_PORT),
		};
		const mainEnv = {
			...(await environmentFor(prepared, 5725)),
			...queueEnv,
			N8N_RUNNERS_BROKER_PORT: '5726',
		};
		const rates = [1, 5];
		const workflows = rates.map((rate) => emailWorkflow(rate));
		await importIntoN8n(prepared.runtime, mainEnv, sandbox, workflows, { requestsPerSecond: 1 });
		// A second email credential on the same key, paced at 5/s (the imported ones pace at 1/s).
		await importCredential(prepared, mainEnv, sandbox, 5);
		for (const workflow of workflows) {
			assertSucceeded(
				await n8nCommand(prepared.runtime, mainEnv, ['publish:workflow', `--id=${workflow.id}`]),
				`publishing ${workflow.id}`,
			);
		}

		log('\nQueue mode: starting Redis, n8n main and 2 workers on one user folder (SQLite) ...');
		main = await startServer(prepared.runtime, mainEnv);
		for (let index = 0; index < WORKERS; index++) {
			const env = {
				...mainEnv,
				N8N_PORT: String(5727 + 2 * index),
				N8N_RUNNERS_BROKER_PORT: String(5728 + 2 * index),
			};
			children.push(await startWorker(prepared, env, index));
		}
		const warned = main.log.some((line) => /sqlite/i.test(line) && /queue/i.test(line));
		log(
			`  main and ${WORKERS} workers ready${warned ? ' (n8n warns that SQLite is not meant for queue mode, as expected)' : ''}`,
		);

		for (const rate of rates) {
			sandbox.reset();
			sandbox.limitRate('email', rate);
			const started = Date.now();
			const responses = await Promise.all(
				Array.from({ length: EXECUTIONS }, async (_, execution) => {
					const response = await fetch(`${main?.url}/webhook/queue-email-${rate}`, {
						method: 'POST',
						headers: { 'content-type': 'application/json' },
						body: JSON.stringify({ execution }),
					});
					return { status: response.status, body: await response.text() };
				}),
			);
			const seconds = (Date.now() - started) / 1000;
			failures.push(...checkRound(rate, responses, sandbox, seconds, log));
		}
	} finally {
		await main?.stop();
		for (const child of children.reverse()) await stopChild(child, 10_000);
	}
	return failures;
}

function checkRound(
	rate: number,
	responses: Array<{ status: number; body: string }>,
	sandbox: Sandbox,
	seconds: number,
	log: (line: string) => void,
): string[] {
	const problems: string[] = [];
	const requests = sandbox.requests('email');
	const accepted = requests.filter((entry) => entry.status === 200);
	const refused = requests.filter((entry) => entry.status === 429).length;
	const expected = new Set<string>();
	for (let execution = 0; execution < EXECUTIONS; execution++) {
		for (let item = 0; item < ITEMS; item++) expected.add(emailOf(rate, execution, item));
	}
	for (const [execution, response] of responses.entries()) {
		// The webhook answers with the Email node's items: the service's records, as they came.
		let items: Array<{ email_address?: string; error?: string }> = [];
		try {
			items = JSON.parse(response.body) as typeof items;
		} catch {
			items = [];
		}
		const list = Array.isArray(items) ? items : [items];
		const emails = list.map((item) => item.email_address).filter(Boolean);
		const mine = Array.from({ length: ITEMS }, (_, item) => emailOf(rate, execution, item));
		if (
			response.status !== 200 ||
			list.some((item) => item.error !== undefined) ||
			JSON.stringify(emails) !== JSON.stringify(mine)
		) {
			problems.push(
				`at ${rate}/s execution ${execution + 1}: HTTP ${response.status}, ${emails.length} of ${ITEMS} items: ${response.body.slice(0, 300)}`,
			);
		}
	}
	const successes = new Map<string, number>();
	for (const entry of accepted) {
		const email = String(entry.fields.email ?? entry.query.email ?? '');
		successes.set(email, (successes.get(email) ?? 0) + 1);
	}
	const lost = [...expected].filter((email) => !successes.has(email));
	const twice = [...successes].filter(([, count]) => count > 1).map(([email]) => email);
	if (lost.length > 0)
		problems.push(
			`at ${rate}/s ${lost.length} item(s) never answered: ${lost.slice(0, 3).join(', ')}`,
		);
	if (twice.length > 0)
		problems.push(
			`at ${rate}/s ${twice.length} item(s) answered more than once: ${twice.slice(0, 3).join(', ')}`,
		);
	const span = accepted.length > 1 ? (accepted[accepted.length - 1].at - accepted[0].at) / 1000 : 0;
	const acceptedRate = span > 0 ? (accepted.length - 1) / span : 0;
	log(
		`  ${rate}/s: ${EXECUTIONS} executions x ${ITEMS} items on ${WORKERS} workers, one key: ${requests.length} requests, ${refused} 429s, ${accepted.length} accepted at ${acceptedRate.toFixed(2)}/s = ${(acceptedRate / rate).toFixed(2)} of the limit, ${seconds.toFixed(1)} s; ${problems.length === 0 ? 'all executions succeeded, no item lost or sent twice' : 'FAILED'}`,
	);
	return problems;
}

const emailOf = (rate: number, execution: number, item: number) =>
	`lead-${rate}-${execution}-${item}@example.com`;

/** Webhook (answers with the last node's items) -> 10 emails -> Email node at the given rate. */
function emailWorkflow(rate: number): Workflow {
	const credential =
		rate === 1
			? { id: 'sandbox-abstractEmailApi', name: 'Email (sandbox, 1/s)' }
			: { id: 'queue-email-5', name: 'Email (sandbox, 5/s)' };
	return {
		id: `queueEmail${rate}`,
		name: `Queue mode: email at ${rate}/s`,
		nodes: [
			{
				name: 'Webhook',
				type: 'n8n-nodes-base.webhook',
				typeVersion: 2,
				position: [0, 0],
				webhookId: `queue-email-${rate}`,
				parameters: {
					httpMethod: 'POST',
					path: `queue-email-${rate}`,
					responseMode: 'lastNode',
					responseData: 'allEntries',
					options: {},
				},
			},
			{
				name: 'Emails',
				type: 'n8n-nodes-base.set',
				typeVersion: 3.4,
				position: [200, 0],
				parameters: {
					mode: 'raw',
					jsonOutput: `={{ JSON.stringify({ emails: Array.from({ length: ${ITEMS} }, (_, item) => 'lead-${rate}-' + $json.body.execution + '-' + item + '@example.com') }) }}`,
				},
			},
			{
				name: 'Split',
				type: 'n8n-nodes-base.splitOut',
				typeVersion: 1,
				position: [400, 0],
				parameters: { fieldToSplitOut: 'emails' },
			},
			{
				name: 'Email',
				type: 'n8n-nodes-abstractapi.abstractEmail',
				typeVersion: 1,
				position: [600, 0],
				parameters: { email: '={{ $json.emails }}', options: {} },
				credentials: { abstractEmailApi: credential },
			},
		],
		connections: {
			Webhook: { main: [[{ node: 'Emails', type: 'main', index: 0 }]] },
			Emails: { main: [[{ node: 'Split', type: 'main', index: 0 }]] },
			Split: { main: [[{ node: 'Email', type: 'main', index: 0 }]] },
		},
		settings: { executionOrder: 'v1' },
	};
}

async function importCredential(
	prepared: Prepared,
	env: NodeJS.ProcessEnv,
	sandbox: Sandbox,
	rate: number,
) {
	const file = path.join(prepared.workFolder, 'queue-credential.json');
	const data = {
		apiKey: sandbox.keys.email,
		baseUrl: sandbox.baseUrls.email,
		requestsPerSecond: rate,
	};
	await fs.writeFile(
		file,
		JSON.stringify([
			{
				id: `queue-email-${rate}`,
				name: `Email (sandbox, ${rate}/s)`,
				type: 'abstractEmailApi',
				data,
			},
		]),
	);
	try {
		assertSucceeded(
			await n8nCommand(prepared.runtime, env, ['import:credentials', `--input=${file}`]),
			'n8n import:credentials',
		);
	} finally {
		await fs.rm(file, { force: true });
	}
}

/** `n8n worker`, ready when it says so. */
async function startWorker(
	prepared: Prepared,
	env: NodeJS.ProcessEnv,
	index: number,
): Promise<ChildProcess> {
	const child = spawn(
		prepared.runtime.node,
		[prepared.runtime.n8nBin, 'worker', '--concurrency=5'],
		{
			env,
			cwd: env.N8N_USER_FOLDER,
			stdio: ['ignore', 'pipe', 'pipe'],
		},
	);
	const lines: string[] = [];
	await new Promise<void>((resolve, reject) => {
		const timer = setTimeout(
			() =>
				reject(
					new Error(`worker ${index + 1} not ready in 180 s:\n${lines.slice(-20).join('\n')}`),
				),
			180_000,
		);
		const onData = (chunk: Buffer) => {
			lines.push(...chunk.toString('utf8').split('\n'));
			if (lines.some((line) => /worker is now ready/.test(line))) {
				clearTimeout(timer);
				resolve();
			}
		};
		child.stdout?.on('data', onData);
		child.stderr?.on('data', onData);
		child.once('exit', (code) => {
			clearTimeout(timer);
			reject(new Error(`worker ${index + 1} exited with ${code}:\n${lines.slice(-20).join('\n')}`));
		});
	});
	child.removeAllListeners('exit');
	return child;
}
