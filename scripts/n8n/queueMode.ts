import { spawn, type ChildProcess } from 'child_process';
import { existsSync, promises as fs } from 'fs';
import path from 'path';

import type { Sandbox } from '../../test/sandbox/server';
import { importIntoN8n, type Workflow } from './examples';
import { n8nCommand, startServer, type Server } from './instance';
import { postgresBinaries, startPostgres, type Postgres } from './postgres';
import { assertSucceeded, sleep, stopChild } from './processes';
import { environmentFor, type Prepared } from './setup';

/**
 * `npm run test:e2e -- --queue`: the package in a real n8n in queue mode, as teams run it when
 * one process is not enough: Redis (Debian's redis-server), PostgreSQL (Debian's postgresql, a
 * throw-away cluster), a main process (editor, webhooks, triggers) and workers (`n8n worker`)
 * that run the executions. All share one user folder, as a shared volume would: its encryption
 * key and its installed community packages, so the package is installed for main (which must
 * register the workflows' triggers) and for every worker.
 *
 * Each round shares one key between workers for about a minute (QUEUE_SECONDS): two executions
 * per worker at once (each a webhook call with its part of a minute's worth of email items at the
 * key's rate; a worker takes two at a time), against the sandbox limited to that rate: 2 workers
 * at 5/s, 2 at 1/s, 3 at 10/s. Every execution must succeed, no item may be lost or sent again
 * after success; it prints requests, 429s and the accepted rate, while every execution was still
 * sending and over the whole round, against the targets, which hold while every execution sends
 * for at least the minute (a timing: printed, not failed).
 * Ports: main 5725 (broker 5726), workers 5727-5732, Redis 6390, PostgreSQL 6391 (override:
 * REDIS_PORT, POSTGRES_PORT).
 */
const REDIS_PORT = Number(process.env.REDIS_PORT ?? 6390);
const POSTGRES_PORT = Number(process.env.POSTGRES_PORT ?? 6391);
const SECONDS = Number(process.env.QUEUE_SECONDS ?? 60);
const EXECUTIONS_PER_WORKER = 2;
/** QUEUE_RATES=1,5 runs only those rounds; QUEUE_LOG=file writes each round's request log there. */
const ONLY_RATES = process.env.QUEUE_RATES?.split(',').map(Number);
const LOG_FILE = process.env.QUEUE_LOG;

interface Round {
	rate: number;
	workers: number;
	minRate: number;
	maxRefused: number;
}

/** In the order of their workers: a round with more workers starts the ones it lacks. */
const ROUNDS: Round[] = [
	{ rate: 5, workers: 2, minRate: 0.9, maxRefused: 0.05 },
	{ rate: 1, workers: 2, minRate: 0.8, maxRefused: 0.1 },
	{ rate: 10, workers: 3, minRate: 0.9, maxRefused: 0.05 },
];

const executionsOf = (round: Round) => round.workers * EXECUTIONS_PER_WORKER;
/**
 * Items enough for a minute of the key's requests while every execution still sends: the
 * executions start and end apart, so half as many again as a minute at the rate.
 */
const itemsOf = (round: Round) => Math.ceil((1.5 * round.rate * SECONDS) / executionsOf(round));

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
	if (!postgresBinaries()) {
		return [
			"queue mode needs PostgreSQL: install Debian's postgresql (`apt-get install postgresql`) and run again",
		];
	}
	const failures: string[] = [];
	const children: ChildProcess[] = [];
	let main: Server | undefined;
	let postgres: Postgres | undefined;
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
		postgres = await startPostgres(POSTGRES_PORT);

		const mainEnv = {
			...(await environmentFor(prepared, 5725)),
			...postgres.env,
			EXECUTIONS_MODE: 'queue',
			QUEUE_BULL_REDIS_HOST: '127.0.0.1',
			QUEUE_BULL_REDIS_PORT: String(REDIS_PORT),
			N8N_RUNNERS_BROKER_PORT: '5726',
		};
		const workflows = ROUNDS.map((round) => emailWorkflow(round));
		await importIntoN8n(prepared.runtime, mainEnv, sandbox, workflows, { requestsPerSecond: 1 });
		// An email credential per rate, all on the same key.
		await importCredentials(prepared, mainEnv, sandbox, [
			...new Set(ROUNDS.map((round) => round.rate)),
		]);
		for (const workflow of workflows) {
			assertSucceeded(
				await n8nCommand(prepared.runtime, mainEnv, ['publish:workflow', `--id=${workflow.id}`]),
				`publishing ${workflow.id}`,
			);
		}

		log(
			'\nQueue mode: starting Redis, PostgreSQL, n8n main and its workers on one user folder ...',
		);
		main = await startServer(prepared.runtime, mainEnv);
		const startWorkers = async (count: number) => {
			while (children.length - 1 < count) {
				const index = children.length - 1;
				const env = {
					...mainEnv,
					N8N_PORT: String(5727 + 2 * index),
					N8N_RUNNERS_BROKER_PORT: String(5728 + 2 * index),
				};
				children.push(await startWorker(prepared, env, index));
			}
		};

		const logs: Record<string, unknown> = {};
		for (const round of ROUNDS) {
			if (ONLY_RATES && !ONLY_RATES.includes(round.rate)) continue;
			await startWorkers(round.workers);
			sandbox.reset();
			sandbox.limitRate('email', round.rate);
			const started = Date.now();
			const responses = await Promise.all(
				Array.from({ length: executionsOf(round) }, async (_, execution) => {
					const response = await fetch(`${main?.url}/webhook/queue-email-${round.rate}`, {
						method: 'POST',
						headers: { 'content-type': 'application/json' },
						body: JSON.stringify({ execution }),
					});
					return { status: response.status, body: await response.text() };
				}),
			);
			const seconds = (Date.now() - started) / 1000;
			failures.push(...checkRound(round, responses, sandbox, seconds, log));
			if (LOG_FILE) {
				logs[`${round.workers}x${round.rate}`] = sandbox.requests('email').map((entry) => ({
					at: entry.at,
					status: entry.status,
					email: String(entry.fields.email ?? entry.query.email ?? ''),
				}));
				await fs.writeFile(LOG_FILE, JSON.stringify(logs));
			}
		}
	} finally {
		await main?.stop();
		for (const child of children.reverse()) await stopChild(child, 10_000);
		await postgres?.stop();
	}
	return failures;
}

function checkRound(
	round: Round,
	responses: Array<{ status: number; body: string }>,
	sandbox: Sandbox,
	seconds: number,
	log: (line: string) => void,
): string[] {
	const { rate, workers } = round;
	const items = itemsOf(round);
	const problems: string[] = [];
	const requests = sandbox.requests('email');
	const accepted = requests.filter((entry) => entry.status === 200);
	const refused = requests.filter((entry) => entry.status === 429).length;
	const emailOfEntry = (entry: (typeof requests)[number]) =>
		String(entry.fields.email ?? entry.query.email ?? '');
	const expected = new Set<string>();
	for (let execution = 0; execution < responses.length; execution++) {
		for (let item = 0; item < items; item++) expected.add(emailOf(rate, execution, item));
	}
	for (const [execution, response] of responses.entries()) {
		// The webhook answers with the Email node's items: the service's records, as they came.
		let list: Array<{ email_address?: string; error?: string }> = [];
		try {
			const parsed = JSON.parse(response.body) as typeof list | (typeof list)[number];
			list = Array.isArray(parsed) ? parsed : [parsed];
		} catch {
			list = [];
		}
		const emails = list.map((item) => item.email_address).filter(Boolean);
		const mine = Array.from({ length: items }, (_, item) => emailOf(rate, execution, item));
		if (
			response.status !== 200 ||
			list.some((item) => item.error !== undefined) ||
			JSON.stringify(emails) !== JSON.stringify(mine)
		) {
			problems.push(
				`at ${rate}/s execution ${execution + 1}: HTTP ${response.status}, ${emails.length} of ${items} items: ${response.body.slice(0, 300)}`,
			);
		}
	}
	const successes = new Map<string, number>();
	for (const entry of accepted) {
		const email = emailOfEntry(entry);
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
	// While every execution was still sending: up to the last request of the one that ended first.
	const lastOfExecution = new Map<string, number>();
	for (const entry of requests) {
		const execution = emailOfEntry(entry).split('-')[2];
		lastOfExecution.set(execution, Math.max(lastOfExecution.get(execution) ?? 0, entry.at));
	}
	const allSending = Math.min(...lastOfExecution.values());
	const perSecond = (entries: typeof accepted) =>
		entries.length > 1
			? (entries.length - 1) / ((entries[entries.length - 1].at - entries[0].at) / 1000)
			: 0;
	const whole = perSecond(accepted) / rate;
	const shared = perSecond(accepted.filter((entry) => entry.at <= allSending)) / rate;
	const share = requests.length > 0 ? refused / requests.length : 0;
	// The targets hold while every execution sends: the 429s of that span too (once one worker is
	// done, the others are refused no more, which would thin the round's share out).
	const whileAll = requests.filter((entry) => entry.at <= allSending);
	const sharedShare = whileAll.filter((entry) => entry.status === 429).length / whileAll.length;
	const sharedSeconds = (allSending - requests[0].at) / 1000;
	const met =
		shared >= round.minRate &&
		Math.max(share, sharedShare) <= round.maxRefused &&
		sharedSeconds >= 0.95 * SECONDS;
	log(
		`  ${rate}/s, ${workers} workers, ${responses.length} executions x ${items} items on one key: ${requests.length} requests, ${refused} 429s (${(100 * share).toFixed(1)}%; ${(100 * sharedShare).toFixed(1)}% while every execution was sending), accepted ${shared.toFixed(3)} of the limit while every execution was sending (${sharedSeconds.toFixed(0)} s), ${whole.toFixed(3)} over the whole round (${seconds.toFixed(0)} s); targets (>= ${round.minRate}, <= ${100 * round.maxRefused}% 429s, over ${SECONDS} s of all sending) ${met ? 'met' : 'NOT met'}; ${problems.length === 0 ? 'all executions succeeded, no item lost or sent twice' : 'FAILED'}`,
	);
	return problems;
}

const emailOf = (rate: number, execution: number, item: number) =>
	`lead-${rate}-${execution}-${item}@example.com`;

/** Webhook (answers with the last node's items) -> the round's emails -> Email node at its rate. */
function emailWorkflow(round: Round): Workflow {
	const { rate } = round;
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
					jsonOutput: `={{ JSON.stringify({ emails: Array.from({ length: ${itemsOf(round)} }, (_, item) => 'lead-${rate}-' + $json.body.execution + '-' + item + '@example.com') }) }}`,
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
				credentials: {
					abstractEmailApi: { id: `queue-email-${rate}`, name: `Email (sandbox, ${rate}/s)` },
				},
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

/** An email credential per rate, all on the sandbox's one email key. */
async function importCredentials(
	prepared: Prepared,
	env: NodeJS.ProcessEnv,
	sandbox: Sandbox,
	rates: number[],
) {
	const file = path.join(prepared.workFolder, 'queue-credentials.json');
	await fs.writeFile(
		file,
		JSON.stringify(
			rates.map((rate) => ({
				id: `queue-email-${rate}`,
				name: `Email (sandbox, ${rate}/s)`,
				type: 'abstractEmailApi',
				data: {
					apiKey: sandbox.keys.email,
					baseUrl: sandbox.baseUrls.email,
					requestsPerSecond: rate,
				},
			})),
		),
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
		[prepared.runtime.n8nBin, 'worker', `--concurrency=${EXECUTIONS_PER_WORKER}`],
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
