import { emailOf, newWorkflowId, paidEmails, RETRY_ON_FAIL } from '../test/harness/retryOnFail';
import { keptAnswers as kept, keptAnswersHeld } from '../test/harness/keptStore';
import { retryExecution, runNode, type NodeRun, type RunResult } from '../test/harness/run';
import { sandboxCredential } from '../test/harness/sandboxCredentials';
import { randomFraction } from '../test/sandbox/random';
import { PaidAnswersModel, type ModelRun } from '../test/model/paidAnswersModel';
import { startSandbox, type Sandbox } from '../test/sandbox/server';

/**
 * Kept answers over a simulated day of an n8n instance: 1,000 executions of three Email
 * Reputation workflows through n8n-core's WorkflowExecute against the sandbox, the store's clock
 * moved 86.4 s per execution:
 * - a form (webhook, Reuse Answers For (Hours) 2): 3 addresses from 150;
 * - an hourly sync (trigger): 12 addresses from 60; 30% of its runs meet a spent plan and fail,
 *   and half of the later slots Retry the oldest failed one (within the hour or not);
 * - a person's test runs (manual, Retry On Fail): 15 addresses from 40, 5% stopped by a spent
 *   plan and retried later, one refused once in 30% of the others (the next try heals it; half of
 *   those tries last over an hour).
 * The model of the rules (test/model/paidAnswersModel.ts: who may take what, until when) counts
 * every answer paid again where a rule said it should have been taken: goal 0 with the default
 * budget; with a small budget that fills, each such answer was dropped for room. It also prints the
 * most memory the store held, against the budget.
 */
const EXECUTIONS = Number(process.env.BENCH_SOAK_EXECUTIONS ?? 1_000);
const STEP_MS = (24 * 60 * 60 * 1000) / 1_000;
const HOUR_MS = 60 * 60 * 1000;
const KiB = 1024;

interface Workflow {
	id: string;
	mode: NodeRun['mode'];
	pool: string[];
	size: number;
	hours: number;
	settings?: NodeRun['settings'];
}

interface Soak {
	executions: number;
	retries: number;
	failed: number;
	requests: number;
	paid: number;
	paidAgain: number;
	maxHeld: number;
	longTries: number;
	hours: number;
}

export async function run(): Promise<void> {
	const sandbox = await startSandbox();
	try {
		console.log('\n## Kept answers over a simulated day (Email Reputation, 3 workflows, n8n-core)');
		for (const budget of [kept.KEPT_ANSWERS_BUDGET, 128 * KiB]) {
			const started = performance.now();
			const soak = await day(sandbox, budget);
			const seconds = (performance.now() - started) / 1000;
			console.log(
				`Budget ${budget >= 1024 * KiB ? `${budget / 1024 / KiB} MiB` : `${budget / KiB} KiB`}: ${soak.executions.toLocaleString('en-US')} executions over ${soak.hours.toFixed(0)} simulated hours (${soak.failed} failed, ${soak.retries} Retries, ${soak.longTries} tries longer than an hour), ` +
					`${soak.requests.toLocaleString('en-US')} requests, ${soak.paid.toLocaleString('en-US')} answers paid; ` +
					`paid again where a rule said take: ${soak.paidAgain} (goal 0${budget < kept.KEPT_ANSWERS_BUDGET ? ' with room; here each was dropped for room' : ''}); ` +
					`most memory held ${(soak.maxHeld / KiB).toFixed(0)} KiB of ${(budget / KiB).toFixed(0)} KiB (${((soak.maxHeld / budget) * 100).toFixed(1)}%); ${seconds.toFixed(0)} s`,
			);
		}
	} finally {
		kept.dropKeptAnswers();
		await sandbox.close();
	}
}

async function day(sandbox: Sandbox, budget: number): Promise<Soak> {
	let now = Date.UTC(2026, 0, 1);
	kept.dropKeptAnswers(() => now);
	const previousBudget = kept.setKeptAnswersBudget(budget);
	const random = randomFraction(7);
	const pool = (prefix: string, count: number) =>
		Array.from({ length: count }, (_, index) => `${prefix}${index + 1}@example.com`);
	const form: Workflow = {
		id: newWorkflowId('soak-form'),
		mode: 'webhook',
		pool: pool('form', 150),
		size: 3,
		hours: 2,
	};
	const sync: Workflow = {
		id: newWorkflowId('soak-sync'),
		mode: 'trigger',
		pool: pool('sync', 60),
		size: 12,
		hours: 0,
	};
	const building: Workflow = {
		id: newWorkflowId('soak-test'),
		mode: 'manual',
		pool: pool('test', 40),
		size: 15,
		hours: 0,
		settings: RETRY_ON_FAIL,
	};
	const model = new PaidAnswersModel();
	let execution = 0;
	const pending: Array<{ run: RunResult; workflow: Workflow }> = [];
	const soak: Soak = {
		executions: 0,
		retries: 0,
		failed: 0,
		requests: 0,
		paid: 0,
		paidAgain: 0,
		maxHeld: 0,
		longTries: 0,
		hours: 0,
	};
	const start = now;
	try {
		for (let index = 0; index < EXECUTIONS; index++) {
			now += STEP_MS;
			sandbox.reset();
			const slot = index % 10;
			const workflow = slot < 4 ? form : slot < 7 ? sync : building;
			const retry =
				slot >= 4 && pending.length > 0 && random() < 0.25 ? pending.shift() : undefined;
			const target = retry?.workflow ?? workflow;
			const values = retry ? [] : pick(target, random);
			const mode = retry ? 'retry' : (target.mode as string);
			const asked = retry ? itemsOf(retry.run) : values;
			const run: ModelRun = {
				execution: ++execution,
				workflow: target.id,
				testRun: mode === 'manual',
				retry: mode === 'retry',
				repeatsOnce: true,
				reuseMs: mode === 'manual' ? HOUR_MS : target.hours * HOUR_MS,
			};
			const given = (value: string, at: number) => {
				model.now = at;
				return model.decide(run, [value])[0].decision !== 'send';
			};
			const shouldTake = new Map([...new Set(asked)].map((value) => [value, given(value, now)]));
			// When each value was asked, by the store's clock (a long try moves it while it runs).
			const askedAt = new Map<string, number>();
			const record = (request: Parameters<typeof emailOf>[0]) => {
				if (!askedAt.has(valueOf(request))) askedAt.set(valueOf(request), now);
				return false;
			};
			sandbox.faultWhen('email', record, { kind: 'status', status: 500 });
			let result: RunResult;
			if (retry) {
				result = await retryExecution(retry.run);
				soak.retries++;
			} else {
				if (target === sync && random() < 0.3)
					sandbox.setQuota('email', Math.floor(random() * target.size));
				if (target === building && random() < 0.05)
					sandbox.setQuota('email', Math.floor(random() * target.size));
				else if (target === building && random() < 0.3) {
					// A long try in 1 of 2 of these: each request takes 5 minutes, so the next try starts over an hour after the first answer.
					if (random() < 0.5) {
						soak.longTries++;
						const fiveMinutesLater = () => {
							now += 5 * 60_000;
							return false;
						};
						sandbox.faultWhen('email', fiveMinutesLater, { kind: 'status', status: 500 });
					}
					const refused = values[values.length - 1];
					let left = 1;
					sandbox.faultWhen('email', (request) => valueOf(request) === refused && left-- > 0, {
						kind: 'status',
						status: 400,
						message: 'Bad request, once',
					});
				}
				result = await emailRun(sandbox, target, values);
			}
			const paid = paidEmails(sandbox);
			soak.executions++;
			soak.requests += sandbox.requests('email').length;
			soak.paid += paid.length;
			const seen = new Set<string>();
			// A long try moves the clock while it runs: what a rule still gave at its end, it gave throughout.
			const stillGiven = (value: string) => shouldTake.get(value) === true && given(value, now);
			for (const value of paid) {
				// Paid twice in one execution (n8n's tries), or paid though an earlier one was to be taken.
				if (seen.has(value) || stillGiven(value)) soak.paidAgain++;
				seen.add(value);
			}
			const failed = result.error !== undefined;
			if (failed) {
				soak.failed++;
				pending.push({ run: result, workflow: target });
			}
			// The payments, each when it was asked; then the execution failed (a Retry may take them) or is done.
			model.start(run);
			for (const value of paid) {
				model.now = askedAt.get(value) ?? now;
				model.pay(run, value, run.reuseMs);
			}
			model.now = now;
			model.settle(run.execution, failed ? 'failed' : 'done');
			soak.maxHeld = Math.max(soak.maxHeld, keptAnswersHeld().size);
		}
		soak.hours = (now - start) / HOUR_MS;
	} finally {
		kept.setKeptAnswersBudget(previousBudget);
	}
	return soak;
}

const valueOf = emailOf;

function pick(workflow: Workflow, random: () => number): string[] {
	return Array.from(
		{ length: workflow.size },
		() => workflow.pool[Math.floor(random() * workflow.pool.length)],
	);
}

/** The addresses a failed execution's node was given (its stored input, which a Retry runs again). */
function itemsOf(run: RunResult): string[] {
	return run.output('Items').map((item) => String(item.json.email));
}

const emailRun = (sandbox: Sandbox, workflow: Workflow, values: string[]) =>
	runNode({
		type: 'abstractEmail',
		parameters: {
			email: '={{ $json.email }}',
			options: workflow.hours ? { reuseAnswersForHours: workflow.hours } : {},
		},
		credential: sandboxCredential(sandbox, 'email'),
		items: values.map((email) => ({ json: { email } })),
		workflowId: workflow.id,
		mode: workflow.mode,
		settings: workflow.settings ?? {},
	});

// Alone: n8n-core leaves handles open after runs; the figures are printed.
if (require.main === module) void run().then(() => process.exit(0));
