import { newWorkflowId } from '../test/harness/retryOnFail';
import { keptAnswers as kept, keptAnswersHeld } from '../test/harness/keptStore';
import { runNode, type NodeRun } from '../test/harness/run';
import { sandboxCredential } from '../test/harness/sandboxCredentials';
import { startSandbox, type Sandbox } from '../test/sandbox/server';

/**
 * What a person building a workflow pays (Email Reputation, CSV rows as items, pacing off),
 * through n8n-core's WorkflowExecute in n8n's `manual` mode against the sandbox:
 * - requests per answered row over repeated test runs of one workflow (goal: 1.00 the first
 *   time, 0.00 after it), and of a production run after them (1.00: production asks afresh);
 * - rows per second (and CPU time per row) of a test run that reuses nothing (a new workflow
 *   each round) with Reuse Answers of Test Runs on, against the option off, in alternating
 *   rounds: keeping must cost a run nothing measurable;
 * - the memory kept per 1,000 answers (as the store counts it, and the heap it holds after a
 *   forced collection when run with --expose-gc).
 */
const MiB = 1024 * 1024;

const leads = (count: number) => {
	let text = 'name,email\n';
	for (let row = 1; row <= count; row++) text += `Lead ${row},lead${row}@example.com\n`;
	return {
		json: {},
		binary: { data: { bytes: Buffer.from(text), mimeType: 'text/csv', fileName: 'leads.csv' } },
	};
};

const emailFile = (
	sandbox: Sandbox,
	rows: number,
	workflowId: string,
	extra: Partial<NodeRun> & { options?: Record<string, unknown> } = {},
) =>
	runNode({
		type: 'abstractEmail',
		parameters: {
			input: 'csvFile',
			binaryPropertyName: 'data',
			emailColumn: 'email',
			options: extra.options ?? {},
		},
		credential: sandboxCredential(sandbox, 'email'),
		items: [leads(rows)],
		workflowId,
		...extra,
	});

export async function run(): Promise<void> {
	const sandbox = await startSandbox();
	try {
		console.log('\n## Test runs (Email Reputation, CSV rows as items, pacing off, manual mode)');
		await repeatedRuns(sandbox);
		await keptMemory(sandbox);
		await speed(sandbox);
	} finally {
		kept.dropKeptAnswers();
		await sandbox.close();
	}
}

/** Five test runs of one 1,000-row workflow, then a production run of it. */
async function repeatedRuns(sandbox: Sandbox): Promise<void> {
	const rows = 1_000;
	const workflowId = newWorkflowId('bench-test-runs');
	const perRow: string[] = [];
	for (const [label, mode] of [
		['test run 1', 'manual'],
		['test run 2', 'manual'],
		['test run 3', 'manual'],
		['test run 4', 'manual'],
		['test run 5', 'manual'],
		['production run', 'trigger'],
	] as const) {
		sandbox.reset();
		const result = await emailFile(sandbox, rows, workflowId, { mode });
		const answered = result.output('Node').filter((item) => item.json.error === undefined).length;
		if (result.error || answered !== rows)
			throw new Error(`${label} did not answer every row: ${result.error?.message}`);
		perRow.push(`${label} ${(sandbox.requests('email').length / answered).toFixed(2)}`);
	}
	console.log(
		`Requests per answered row, ${rows.toLocaleString('en-US')} rows, one workflow (goal 1.00, then 0.00): ${perRow.join(', ')}`,
	);
	kept.dropKeptAnswers();
}

/** What a 10,000-row test run keeps for the next, per 1,000 answers. */
async function keptMemory(sandbox: Sandbox): Promise<void> {
	const rows = 10_000;
	const gc = (globalThis as { gc?: () => void }).gc;
	kept.dropKeptAnswers();
	sandbox.reset();
	let result: Awaited<ReturnType<typeof emailFile>> | undefined = await emailFile(
		sandbox,
		rows,
		newWorkflowId('bench-test-runs'),
	);
	if (result.error) throw new Error(`the ${rows}-row test run failed: ${result.error.message}`);
	// The run's own output is n8n's, not the store's: the heap is measured with the store's
	// answers, then without them, so that only what the store holds counts.
	result = undefined;
	sandbox.reset();
	const held = keptAnswersHeld();
	const perThousand = (bytes: number) => ((bytes / held.forNextRuns) * 1000) / MiB;
	let heap = ' (node --expose-gc also prints the heap it holds)';
	if (gc) {
		gc();
		const withAnswers = process.memoryUsage().heapUsed;
		kept.dropKeptAnswers();
		gc();
		heap = `; heap they hold (after a forced collection, with them and without): ${perThousand(withAnswers - process.memoryUsage().heapUsed).toFixed(2)} MiB per 1,000`;
	}
	console.log(
		`Memory a ${rows.toLocaleString('en-US')}-row test run keeps for the next: ${held.forNextRuns.toLocaleString('en-US')} answers, ${perThousand(held.size).toFixed(2)} MiB per 1,000 answers as counted against the ${kept.KEPT_ANSWERS_BUDGET / MiB} MiB budget (about ${Math.floor((kept.KEPT_ANSWERS_BUDGET / held.size) * held.forNextRuns).toLocaleString('en-US')} answers fit)${heap}`,
	);
	kept.dropKeptAnswers();
}

/**
 * Rows per second of a test run that reuses nothing (a new workflow each time): the option on
 * (it keeps every answer) against off, alternating rounds, with this process's CPU time per row.
 */
async function speed(sandbox: Sandbox): Promise<void> {
	const rows = Number(process.env.BENCH_TEST_RUNS_ROWS ?? 5_000);
	const rounds = Number(process.env.BENCH_TEST_RUNS_ROUNDS ?? 5);
	const figures: Record<'on' | 'off', { rate: number[]; cpu: number[] }> = {
		on: { rate: [], cpu: [] },
		off: { rate: [], cpu: [] },
	};
	for (let round = 0; round < rounds; round++) {
		for (const option of round % 2 === 0 ? (['on', 'off'] as const) : (['off', 'on'] as const)) {
			kept.dropKeptAnswers();
			sandbox.reset();
			const started = performance.now();
			const cpu = process.cpuUsage();
			const result = await emailFile(sandbox, rows, newWorkflowId('bench-test-runs'), {
				options: { reuseTestRunAnswers: option === 'on' },
			});
			const used = process.cpuUsage(cpu);
			const seconds = (performance.now() - started) / 1000;
			if (
				result.error ||
				result.output('Node').length !== rows ||
				sandbox.requests('email').length !== rows
			) {
				throw new Error(
					`the run with the option ${option} did not send and answer every row: ${result.error?.message}`,
				);
			}
			figures[option].rate.push(rows / seconds);
			figures[option].cpu.push((used.user + used.system) / rows);
		}
	}
	kept.dropKeptAnswers();
	const median = (values: number[]) =>
		[...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
	const rate = { on: median(figures.on.rate), off: median(figures.off.rate) };
	const cpu = { on: median(figures.on.cpu), off: median(figures.off.cpu) };
	console.log(
		`A test run that reuses nothing, ${rows.toLocaleString('en-US')} rows, median of ${rounds} alternating rounds:\n` +
			`    rows/s: option on ${rate.on.toFixed(0)}, off ${rate.off.toFixed(0)}, ratio ${(rate.on / rate.off).toFixed(2)} (rounds: ${figures.on.rate.map((value) => value.toFixed(0)).join(', ')} against ${figures.off.rate.map((value) => value.toFixed(0)).join(', ')})\n` +
			`    CPU per row: option on ${cpu.on.toFixed(0)} µs, off ${cpu.off.toFixed(0)} µs, ratio ${(cpu.on / cpu.off).toFixed(2)}`,
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
