import { firstTimeOnly, newWorkflowId, RETRY_ON_FAIL } from '../test/harness/retryOnFail';
import { keptAnswers as kept, keptAnswersHeld } from '../test/harness/keptStore';
import { retryExecution, runNode, type NodeRun, type RunResult } from '../test/harness/run';
import { sandboxCredential } from '../test/harness/sandboxCredentials';
import { startSandbox, type Sandbox } from '../test/sandbox/server';
import type { SandboxRequest } from '../test/sandbox/types';

/**
 * What n8n's second runs of a node cost (Email Reputation, CSV input as items, pacing off),
 * through n8n-core's WorkflowExecute in a production mode (`trigger`) against the sandbox, each figure against the same run in
 * the same process with keeping off (a budget of 0: the code path that keeps nothing):
 * - requests per answered row under Retry On Fail (3 tries) in three cases: a row
 *   refused once mid-file (default On Error), a first row that fails its check under either
 *   Continue setting, and a spent plan followed by a Retry of the execution once credits are
 *   raised. Goal 1.00 (a refused or quota answer counts, so a little above it).
 * - the memory a 50,000-row try keeps for the next one (as the store counts it, and the heap it
 *   holds after a forced collection when run with --expose-gc);
 * - rows per second (and CPU time per row) with Retry On Fail off, keeping on against keeping off,
 *   alternating rounds: keeping must cost a run that does not fail nothing measurable.
 */
const MiB = 1024 * 1024;

const leads = (count: number, firstEmpty = false) => {
	let text = 'name,email\n';
	for (let row = 1; row <= count; row++)
		text += row === 1 && firstEmpty ? 'Nobody,\n' : `Lead ${row},lead${row}@example.com\n`;
	return {
		json: {},
		binary: { data: { bytes: Buffer.from(text), mimeType: 'text/csv', fileName: 'leads.csv' } },
	};
};

const emailFile = (
	sandbox: Sandbox,
	rows: number,
	extra: Partial<NodeRun> & { firstEmpty?: boolean } = {},
) =>
	runNode({
		type: 'abstractEmail',
		parameters: { input: 'csvFile', binaryPropertyName: 'data', emailColumn: 'email', options: {} },
		credential: sandboxCredential(sandbox, 'email'),
		items: [leads(rows, extra.firstEmpty)],
		workflowId: newWorkflowId('bench-retries'),
		// A production run: n8n's retries alone, without the answers a test run keeps for the next.
		mode: 'trigger',
		...extra,
	});

const valueOf = (request: { fields: Record<string, unknown>; query: Record<string, string> }) =>
	String(request.fields.email ?? request.query.email);
const answeredRows = (result: RunResult) =>
	result.output('Node').filter((item) => item.json.error === undefined).length;

/** Each case with keeping on, then off, in the same process. */
async function perRow(
	sandbox: Sandbox,
	name: string,
	runCase: () => Promise<{ answered: number }>,
): Promise<void> {
	const figures: string[] = [];
	for (const budget of [kept.KEPT_ANSWERS_BUDGET, 0]) {
		const previous = kept.setKeptAnswersBudget(budget);
		sandbox.reset();
		const { answered } = await runCase();
		const requests = sandbox.requests('email');
		const paid = requests.filter((request) => request.status === 200).length;
		figures.push(
			`${budget ? 'kept' : 'without keeping'}: ${(paid / answered).toFixed(2)} paid requests per answered row, ${(requests.length / answered).toFixed(2)} with refusals (${requests.length} requests, ${paid} answered 200, ${answered} rows)`,
		);
		kept.setKeptAnswersBudget(previous);
	}
	console.log(`  ${name}\n    ${figures.join('\n    ')}`);
}

export async function run(): Promise<void> {
	const sandbox = await startSandbox();
	try {
		console.log(
			'\n## Retries (Email Reputation, CSV rows as items, pacing off, Retry On Fail: 3 tries)',
		);
		console.log(
			'Requests per answered row (goal 1.00; without keeping: 1.75 and 3.00). Refusals (the 400, the quota answers in flight) are not charged',
		);
		await perRow(
			sandbox,
			'a 200-row file, row 121 refused (400) once, default On Error',
			async () => {
				sandbox.faultWhen(
					'email',
					firstTimeOnly((request) => valueOf(request) === 'lead120@example.com'),
					{ kind: 'status', status: 400 },
				);
				return {
					answered: answeredRows(await emailFile(sandbox, 200, { settings: RETRY_ON_FAIL })),
				};
			},
		);
		for (const onError of ['continueRegularOutput', 'continueErrorOutput'] as const) {
			await perRow(
				sandbox,
				`a 200-row file whose first row has no address, ${onError}`,
				async () => ({
					answered: answeredRows(
						await emailFile(sandbox, 200, { settings: RETRY_ON_FAIL, onError, firstEmpty: true }),
					),
				}),
			);
		}
		await perRow(
			sandbox,
			'a 400-row file, the plan runs out at row 301; Retry of the execution after credits are added',
			async () => {
				sandbox.setQuota('email', 300);
				const failed = await emailFile(sandbox, 400);
				sandbox.setQuota('email', 10_000);
				return { answered: answeredRows(await retryExecution(failed)) };
			},
		);

		await keptMemory(sandbox);
		await speed(sandbox);
	} finally {
		kept.setKeptAnswersBudget(kept.KEPT_ANSWERS_BUDGET);
		await sandbox.close();
	}
}

/** A 50,000-row try whose last row is refused: what it keeps for the next try. */
async function keptMemory(sandbox: Sandbox): Promise<void> {
	const gc = (globalThis as { gc?: () => void }).gc;
	sandbox.reset();
	sandbox.faultWhen(
		'email',
		(request: SandboxRequest) => valueOf(request) === 'lead50000@example.com',
		{ kind: 'status', status: 400 },
	);
	gc?.();
	const before = process.memoryUsage().heapUsed;
	const failed = await emailFile(sandbox, 50_000);
	if (!failed.error) throw new Error('the 50,000-row try was meant to fail on its last row');
	const held = keptAnswersHeld();
	// The sandbox's request log is not the node's.
	sandbox.reset();
	gc?.();
	const heap = gc
		? `; heap held after a forced collection: ${((process.memoryUsage().heapUsed - before) / MiB).toFixed(1)} MiB`
		: ' (node --expose-gc also prints the heap it holds)';
	console.log(
		`Memory a 50,000-row try keeps for the next (its last row refused, default On Error): ${held.answers.toLocaleString('en-US')} answers, ${(held.size / MiB).toFixed(1)} MiB as counted against the ${kept.KEPT_ANSWERS_BUDGET / MiB} MiB budget${heap}`,
	);
	// Let them go: the store keeps them an hour otherwise.
	const previous = kept.setKeptAnswersBudget(0);
	kept.setKeptAnswersBudget(previous);
}

/**
 * Rows per second with Retry On Fail off and nothing failing: keeping on against off, in
 * alternating rounds, with this process's CPU time per row (the sandbox runs in it too, the same
 * for both), which a machine shared with other work disturbs less than the wall clock.
 */
async function speed(sandbox: Sandbox): Promise<void> {
	const rows = Number(process.env.BENCH_RETRIES_ROWS ?? 5_000);
	const rounds = Number(process.env.BENCH_RETRIES_ROUNDS ?? 5);
	const figures: Record<'kept' | 'off', { rate: number[]; cpu: number[] }> = {
		kept: { rate: [], cpu: [] },
		off: { rate: [], cpu: [] },
	};
	for (let round = 0; round < rounds; round++) {
		for (const mode of round % 2 === 0 ? (['kept', 'off'] as const) : (['off', 'kept'] as const)) {
			const previous = kept.setKeptAnswersBudget(mode === 'kept' ? kept.KEPT_ANSWERS_BUDGET : 0);
			sandbox.reset();
			const started = performance.now();
			const cpu = process.cpuUsage();
			const result = await emailFile(sandbox, rows);
			const used = process.cpuUsage(cpu);
			const seconds = (performance.now() - started) / 1000;
			if (result.error || result.items.length !== rows)
				throw new Error(`the ${mode} run did not answer every row: ${result.error?.message}`);
			figures[mode].rate.push(rows / seconds);
			figures[mode].cpu.push((used.user + used.system) / rows);
			kept.setKeptAnswersBudget(previous);
		}
	}
	const median = (values: number[]) =>
		[...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
	const rate = { kept: median(figures.kept.rate), off: median(figures.off.rate) };
	const cpu = { kept: median(figures.kept.cpu), off: median(figures.off.cpu) };
	console.log(
		`Retry On Fail off, nothing failing, ${rows.toLocaleString('en-US')} rows, median of ${rounds} alternating rounds:\n` +
			`    rows/s: keeping ${rate.kept.toFixed(0)}, without keeping ${rate.off.toFixed(0)}, ratio ${(rate.kept / rate.off).toFixed(2)} (rounds: ${figures.kept.rate.map((value) => value.toFixed(0)).join(', ')} against ${figures.off.rate.map((value) => value.toFixed(0)).join(', ')})\n` +
			`    CPU per row: keeping ${cpu.kept.toFixed(0)} µs, without keeping ${cpu.off.toFixed(0)} µs, ratio ${(cpu.kept / cpu.off).toFixed(2)}`,
	);
}

if (require.main === module) {
	void run()
		.then(() => process.exit(0))
		.catch((error: Error) => {
			console.error(error);
			process.exit(1);
		});
}
