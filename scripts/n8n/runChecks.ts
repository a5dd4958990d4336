import { promises as fs } from 'fs';
import path from 'path';

import { CREDENTIAL_TYPES } from '../../test/harness/sandboxCredentials';
import type { Sandbox } from '../../test/sandbox/server';
import type { LoggedRequest } from '../../test/sandbox/types';
import { EXAMPLE_EXPECTATIONS, type Example, type Workflow } from './examples';
import { signatureProblem } from './fileSignatures';
import { n8nCommand } from './instance';
import type { Prepared } from './setup';

/** The parts of `n8n execute --rawOutput`'s JSON (an IRun) these checks read. */
export interface ExecutionOutput {
	status: string;
	data: {
		resultData: {
			runData: Record<string, TaskData[]>;
			error?: { message: string; description?: string; node?: { name: string } };
		};
	};
}

interface TaskData {
	executionIndex: number;
	source: Array<{
		previousNode: string;
		previousNodeOutput?: number;
		previousNodeRun?: number;
	} | null>;
	error?: { message: string };
	data?: { main?: Array<Item[] | null> };
}

interface Item {
	json: Record<string, unknown>;
	binary?: Record<string, BinaryReference>;
}

interface BinaryReference {
	mimeType: string;
	fileName?: string;
	id?: string;
	data?: string;
	bytes?: number;
}

const WRITE_FILE_NODE = 'n8n-nodes-base.readWriteFile';
const BINARY_PREFIX = 'filesystem-v2:';

/**
 * The run's JSON from what `n8n execute --rawOutput` printed: n8n writes a few log lines before
 * it, so the JSON is taken from its opening line on.
 */
export function parseExecution(stdout: string): ExecutionOutput {
	const start = stdout.search(/^\{\s*$\n^\s+"data": /m);
	if (start < 0)
		throw new Error(
			`no run data in n8n's output:\n${stdout.trim().split('\n').slice(-20).join('\n')}`,
		);
	// The run data is printed pretty, so its one closing brace at the start of a line ends it: n8n
	// may print log lines after it (seen with 2.41.1: a shutdown notice on the same stream).
	const end = stdout.indexOf('\n}', start);
	return JSON.parse(
		end < 0 ? stdout.slice(start) : stdout.slice(start, end + 2),
	) as ExecutionOutput;
}

export interface RunCheck {
	/** The line printed per example (its nodes' item counts, in the order they ran), then requests and files. */
	summary: string;
	problems: string[];
}

/** What `n8n execute` of an example came to: the CLI's non-zero exit with the lines of its output that say why, or the run checked. */
export type ExampleExecution = { exitCode: number; why: string[] } | { check: RunCheck };

/** What `n8n execute --id` of a stored workflow came to: its exit code, the lines of its output that say why, and its run when it succeeded. */
export type WorkflowExecution =
	| { exitCode: number; why: string[] }
	| { stdout: string; stderr: string; execution: ExecutionOutput };

/** Executes a stored workflow with n8n's CLI (`n8n execute --id ... --rawOutput`). */
export async function executeWorkflow(
	prepared: Prepared,
	env: NodeJS.ProcessEnv,
	workflowId: string | undefined,
	whyLines: number,
): Promise<WorkflowExecution> {
	const result = await n8nCommand(prepared.runtime, env, [
		'execute',
		`--id=${workflowId}`,
		'--rawOutput',
	]);
	if (result.code !== 0) {
		const why = `${result.stdout}\n${result.stderr}`
			.split('\n')
			.filter((line) => /error|fail|message/i.test(line))
			.slice(0, whyLines);
		return { exitCode: result.code ?? 1, why };
	}
	return { stdout: result.stdout, stderr: result.stderr, execution: parseExecution(result.stdout) };
}

/**
 * Runs an example's workflow with n8n's CLI (`n8n execute`) and checks the run (checkRun) against
 * what the sandbox logged: the caller resets the sandbox and places the example's files first.
 */
export async function executeAndCheck(
	prepared: Prepared,
	env: NodeJS.ProcessEnv,
	sandbox: Sandbox,
	example: Example,
	workflow: Workflow,
	whyLines: number,
): Promise<ExampleExecution> {
	const startedAt = Date.now();
	const ran = await executeWorkflow(prepared, env, workflow.id, whyLines);
	if ('exitCode' in ran) return ran;
	const { stdout, execution } = ran;
	const check = await checkExecution(prepared, sandbox, example, workflow, {
		stdout,
		execution,
		startedAt,
	});
	return { check };
}

/** checkRun of an execution of this prepared n8n, against what the sandbox logged since its reset. */
export async function checkExecution(
	prepared: Prepared,
	sandbox: Sandbox,
	example: Example,
	workflow: Workflow,
	run: { stdout: string; execution: ExecutionOutput; startedAt: number },
): Promise<RunCheck> {
	return await checkRun(example, workflow, {
		...run,
		log: [...sandbox.log],
		keys: Object.values(sandbox.keys),
		userFolder: prepared.userFolder,
		home: prepared.home,
		packageName: prepared.manifest.name,
	});
}

/**
 * What a run of an example must show: it succeeded; every node of the package ran, produced
 * items and no error items (a node set to "Continue (using error output)": none on its success
 * output, and each item of its error output with `error.message` and `error.description`); the
 * branches the example's expectation names (examples.ts) hold the items it lists; the sandbox
 * got exactly one request per input item of each such node (per row of its file, for a node
 * whose input is a CSV file), less the items the expectation says fail before sending (nothing
 * else is sent, nothing repeated), and answered each without error; no API key appears in the
 * run data or reaches the storage host; every binary the nodes produced is stored by n8n with
 * bytes of its MIME type; and every file the workflow wrote exists, was written by this run,
 * and holds what its name says.
 */
export async function checkRun(
	example: Example,
	workflow: Workflow,
	context: {
		stdout: string;
		execution: ExecutionOutput;
		log: LoggedRequest[];
		keys: string[];
		startedAt: number;
		/** n8n's user folder, where it stores binary data. */
		userFolder: string;
		/** n8n's home folder and working directory, from which relative paths resolve (default: the user folder). */
		home?: string;
		packageName: string;
	},
): Promise<RunCheck> {
	const { execution } = context;
	const runData = execution.data.resultData.runData;
	const problems: string[] = [];
	const expectation = EXAMPLE_EXPECTATIONS[example.file];
	// n8n 1.85 and older print the run as their list of active executions holds it, still
	// 'running'; their CLI exits non-zero on a failed run, which the caller checks first.
	const finished = execution.status === 'success' || execution.status === 'running';
	if (!finished || execution.data.resultData.error) {
		const error = execution.data.resultData.error;
		problems.push(
			`the run did not succeed (status ${execution.status})${error ? `: ${error.node?.name ? `${error.node.name}: ` : ''}${error.message}` : ''}`,
		);
	}

	const counts = Object.entries(runData)
		.sort(([, a], [, b]) => (a[0]?.executionIndex ?? 0) - (b[0]?.executionIndex ?? 0))
		.map(([name, tasks]) => `${name} ${outputItems(tasks).length}`);

	const expectedRequests = new Map<string, number>();
	for (const node of workflow.nodes.filter((candidate) =>
		candidate.type.startsWith(`${context.packageName}.`),
	)) {
		const tasks = runData[node.name];
		if (!tasks) {
			problems.push(`node "${node.name}" did not run`);
			continue;
		}
		const items = outputItems(tasks);
		if (items.length === 0) problems.push(`node "${node.name}" output no items`);
		// With "Continue (using error output)" the node's last output holds its failures, each with
		// a message and a description; every other output holds answers only.
		const toErrorOutput = node.onError === 'continueErrorOutput';
		const answers = toErrorOutput ? outputItems(tasks, 'success') : items;
		const errorItems = answers.filter((item) => item.json.error !== undefined);
		if (errorItems.length > 0)
			problems.push(
				`node "${node.name}" output ${errorItems.length} error item(s)${toErrorOutput ? ' on its success output' : ''}: ${JSON.stringify(errorItems[0].json.error)}`,
			);
		if (toErrorOutput)
			problems.push(...errorOutputProblems(node.name, outputItems(tasks, 'error')));
		// A node without a credential (the IP database lookup) sends nothing: a request of its
		// own would show below as one too many, or as a request to a service no node uses. It
		// must have found something in the database, not only misses.
		if (Object.keys(node.credentials ?? {}).length === 0) {
			if (items.length > 0 && items.every((item) => item.json.found === false)) {
				problems.push(
					`node "${node.name}" found none of its ${items.length} addresses in the database`,
				);
			}
			continue;
		}
		const service = serviceOf(node.credentials);
		if (!service) {
			problems.push(`node "${node.name}" has no credential of the package`);
			continue;
		}
		// A node reading a CSV file sends one request per row, and outputs one item per row, or
		// (Output: Result File) one item per file whose summary counts the file's rows.
		// Items that fail before sending (an example's expected failures) cost no request, nor do
		// those a node answers without one (an example's expected skips).
		const unsent =
			(expectation?.failedBeforeSending?.[node.name] ?? 0) +
			(expectation?.skippedWithoutRequest?.[node.name] ?? 0);
		const sent =
			(node.parameters.input !== 'csvFile'
				? inputItemCount(runData, tasks)
				: node.parameters.output === 'resultFile'
					? items.reduce((total, item) => total + Number(item.json.rows ?? 0), 0)
					: items.length) - unsent;
		expectedRequests.set(service, (expectedRequests.get(service) ?? 0) + sent);
	}

	const requestCounts: string[] = [];
	for (const [service, expected] of expectedRequests) {
		const requests = context.log.filter((entry) => entry.service === service);
		requestCounts.push(`${service} ${requests.length}`);
		if (requests.length !== expected)
			problems.push(
				`the sandbox got ${requests.length} ${service} request(s), expected one per input item (per row of a CSV file): ${expected}`,
			);
		// The credential places the key by the form the node's request names, which n8n hands it
		// with the request's options: the key in one place, and nothing of the name on the wire.
		const misplaced = requests.filter((entry) => entry.keyPlaces.length !== 1);
		if (misplaced.length > 0)
			problems.push(
				`${misplaced.length} ${service} request(s) carried the key in ${misplaced.map((entry) => entry.keyPlaces.length).join(', ')} places, not one`,
			);
		if (requests.some((entry) => /requestForm/i.test(JSON.stringify(entry))))
			problems.push(`${service}: a request carried the name of its form to the service`);
		const failed = requests.filter((entry) => entry.status >= 400 || entry.status === 0);
		if (failed.length > 0)
			problems.push(
				`${failed.length} ${service} request(s) were answered ${failed.map((entry) => entry.status).join(', ')}`,
			);
	}
	const storage = context.log.filter((entry) => entry.service === 'storage');
	if (storage.length > 0) requestCounts.push(`storage ${storage.length}`);
	for (const entry of storage) {
		const sent = JSON.stringify([entry.path, entry.query, entry.headers]);
		if (context.keys.some((key) => sent.includes(key)))
			problems.push(`an API key reached the storage host (${entry.method} ${entry.path})`);
	}
	const unexpected = context.log.filter(
		(entry) => entry.service !== 'storage' && !expectedRequests.has(entry.service),
	);
	if (unexpected.length > 0)
		problems.push(
			`requests to services no node of the workflow uses: ${[...new Set(unexpected.map((entry) => entry.service))].join(', ')}`,
		);
	if (context.keys.some((key) => context.stdout.includes(key)))
		problems.push('an API key appears in the run data');

	for (const [nodeName, expected] of Object.entries(expectation?.branches ?? {})) {
		problems.push(...branchProblems(nodeName, outputItems(runData[nodeName] ?? []), expected));
	}

	const binaries = await checkBinaries(runData, context.userFolder, problems);
	const files = await checkWrittenFiles(
		workflow,
		runData,
		context.startedAt,
		context.home ?? context.userFolder,
		problems,
	);

	const summary = [
		`${problems.length === 0 ? 'ok    ' : 'FAILED'} ${example.file}: ${counts.join(', ')}`,
		`         requests: ${requestCounts.join(', ') || 'none'}; binaries checked: ${binaries}; files written: ${files.length === 0 ? 'none' : files.join(', ')}`,
	].join('\n');
	return { summary, problems };
}

/**
 * Items of all runs of a node: of all its outputs, or of its success outputs, or of its error
 * output (the last, for a node set to "Continue (using error output)").
 */
function outputItems(tasks: TaskData[], which: 'all' | 'success' | 'error' = 'all'): Item[] {
	return tasks.flatMap((task) => {
		const outputs = task.data?.main ?? [];
		const chosen =
			which === 'all' ? outputs : which === 'success' ? outputs.slice(0, -1) : outputs.slice(-1);
		return chosen.flatMap((items) => items ?? []);
	});
}

/** Each item of an error output carries `error.message` and `error.description` (n8n merged it over its input). */
function errorOutputProblems(nodeName: string, items: Item[]): string[] {
	const bare = items.filter((item) => {
		const error = item.json.error as { message?: unknown; description?: unknown } | undefined;
		return typeof error?.message !== 'string' || typeof error.description !== 'string';
	});
	return bare.length === 0
		? []
		: [
				`node "${nodeName}": ${bare.length} item(s) of its error output without error.message and error.description: ${JSON.stringify(bare[0].json)}`,
			];
}

/** The items of a node (a branch of the example) against what the example expects there, in order. */
function branchProblems(
	nodeName: string,
	items: Item[],
	expected: Array<Record<string, string | RegExp>>,
): string[] {
	const matches = (item: Item | undefined, fields: Record<string, string | RegExp>) =>
		item !== undefined &&
		Object.entries(fields).every(([field, value]) =>
			value instanceof RegExp
				? value.test(String(item.json[field] ?? ''))
				: item.json[field] === value,
		);
	const wrong = expected.findIndex((fields, index) => !matches(items[index], fields));
	if (items.length === expected.length && wrong < 0) return [];
	const shown = (fields: Record<string, string | RegExp>) =>
		JSON.stringify(fields, (_key, value: unknown) =>
			value instanceof RegExp ? String(value) : value,
		);
	return [
		`node "${nodeName}" output ${items.length} item(s), expected ${expected.length}` +
			(wrong >= 0
				? `; item ${wrong + 1} is ${JSON.stringify(items[wrong]?.json ?? null)}, expected ${shown(expected[wrong])}`
				: ''),
	];
}

/** Items a node received: the output of the node (and run, and output) each of its runs came from. */
function inputItemCount(runData: Record<string, TaskData[]>, tasks: TaskData[]): number {
	let count = 0;
	for (const task of tasks) {
		for (const source of task.source) {
			if (!source) continue;
			const previous = runData[source.previousNode]?.[source.previousNodeRun ?? 0];
			count += previous?.data?.main?.[source.previousNodeOutput ?? 0]?.length ?? 0;
		}
	}
	return count;
}

/** The sandbox service behind a node's credential. */
function serviceOf(credentials: Record<string, unknown> | undefined): string | undefined {
	const types = Object.keys(credentials ?? {});
	return Object.entries(CREDENTIAL_TYPES).find(([, type]) => types.includes(type))?.[0];
}

/**
 * n8n 2.x keeps binary data on the filesystem: an item holds `filesystem-v2:<path>` and the
 * bytes live under the user folder's .n8n/storage. Each distinct binary is read back and its
 * bytes checked against its MIME type and size.
 */
async function checkBinaries(
	runData: Record<string, TaskData[]>,
	userFolder: string,
	problems: string[],
): Promise<number> {
	const seen = new Set<string>();
	for (const [nodeName, tasks] of Object.entries(runData)) {
		for (const item of outputItems(tasks)) {
			for (const [property, binary] of Object.entries(item.binary ?? {})) {
				const key = binary.id ?? `${nodeName}/${property}/${binary.fileName}/${seen.size}`;
				if (seen.has(key)) continue;
				seen.add(key);
				const where = `binary "${property}" (${binary.fileName ?? 'no name'}) of node "${nodeName}"`;
				let bytes: Buffer;
				if (binary.id?.startsWith(BINARY_PREFIX)) {
					const file = path.join(
						userFolder,
						'.n8n',
						'storage',
						binary.id.slice(BINARY_PREFIX.length),
					);
					try {
						bytes = await fs.readFile(file);
					} catch {
						problems.push(`${where}: n8n has no file for it at ${file}`);
						continue;
					}
				} else if (binary.data) {
					bytes = Buffer.from(binary.data, 'base64');
				} else {
					problems.push(`${where}: neither a stored file nor data`);
					continue;
				}
				const problem = signatureProblem(bytes, binary.mimeType);
				if (problem) problems.push(`${where}, ${binary.mimeType}: ${problem}`);
				if (typeof binary.bytes === 'number' && binary.bytes !== bytes.length) {
					problems.push(`${where}: ${bytes.length} bytes stored, the item says ${binary.bytes}`);
				}
			}
		}
	}
	return seen.size;
}

/** Files the workflow's Read/Write Files nodes wrote (their output names each path). */
async function checkWrittenFiles(
	workflow: Workflow,
	runData: Record<string, TaskData[]>,
	startedAt: number,
	workingDirectory: string,
	problems: string[],
): Promise<string[]> {
	const written: string[] = [];
	for (const node of workflow.nodes.filter(
		(candidate) => candidate.type === WRITE_FILE_NODE && candidate.parameters.operation === 'write',
	)) {
		for (const item of outputItems(runData[node.name] ?? [])) {
			// As n8n resolves it: a relative path from n8n's working directory, its home folder here.
			const file = path.resolve(workingDirectory, String(item.json.fileName ?? ''));
			try {
				const stat = await fs.stat(file);
				// mtime has whole-second precision on some filesystems
				if (stat.mtimeMs < startedAt - 1000)
					problems.push(
						`${file} was not written by this run (modified ${stat.mtime.toISOString()})`,
					);
				const problem = signatureProblem(await fs.readFile(file), file);
				if (problem) problems.push(`${file}: ${problem}`);
				const shown = file.startsWith(workingDirectory + path.sep)
					? `~/${path.relative(workingDirectory, file)}`
					: file;
				written.push(`${shown} (${stat.size} B)`);
			} catch (error) {
				problems.push(
					`node "${node.name}" says it wrote ${file || '(no file name)'}, but: ${(error as Error).message}`,
				);
			}
		}
	}
	return written;
}
