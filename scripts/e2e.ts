import { promises as fs } from 'fs';

import { startSandbox, type Sandbox } from '../test/sandbox/server';
import { breakInstalledFiles } from './n8n/communityPackage';
import { cliRunnable, exampleCredentialIds, importIntoN8n, readExamples, type Example, type Workflow } from './n8n/examples';
import { n8nCommand } from './n8n/instance';
import { runQueueMode } from './n8n/queueMode';
import { checkImported, type LoadReport } from './n8n/loadingCheck';
import { checkRun, parseExecution } from './n8n/runChecks';
import { environmentFor, prepare, ROOT, startAndCheck, type Prepared } from './n8n/setup';

/**
 * `npm run test:e2e`: the package in a real n8n (2.x, installed once into a cache folder),
 * headless. It installs the packed package into a fresh user folder as n8n installs community
 * packages, imports credentials pointing at the sandbox (which runs in this process) and every
 * workflow of examples/, then
 *  1. proves the loading check can fail: with one node file and one credential file of the
 *     installed copy replaced by a module that throws, the check must name exactly those two;
 *  2. checks that n8n offers every node (with its icons) and credential type package.json lists;
 *  3. runs every example with `n8n execute` and checks its output items, binaries, written
 *     files and the sandbox's request log, printing one line per example with its item counts.
 *
 * Flags: --queue runs n8n in queue mode instead (main, 2 workers, Redis: scripts/n8n/queueMode.ts);
 * --keep keeps the temporary user folder; --break <dist file> replaces that file of the
 * installed copy with a throwing module before the check (to watch the e2e fail on it);
 * --no-self-test skips step 1.
 */
interface Flags {
	keep: boolean;
	queue: boolean;
	selfTest: boolean;
	breakFiles: string[];
}

function parseFlags(argv: string[]): Flags {
	const flags: Flags = { keep: false, queue: false, selfTest: true, breakFiles: [] };
	for (let index = 0; index < argv.length; index++) {
		if (argv[index] === '--keep') flags.keep = true;
		else if (argv[index] === '--queue') flags.queue = true;
		else if (argv[index] === '--no-self-test') flags.selfTest = false;
		else if (argv[index] === '--break' && argv[index + 1]) flags.breakFiles.push(argv[++index]);
		else throw new Error(`unknown flag ${argv[index]} (known: --keep, --queue, --no-self-test, --break <dist file>)`);
	}
	return flags;
}

const log = (line: string) => console.log(line);

async function main(): Promise<number> {
	const flags = parseFlags(process.argv.slice(2));
	const started = Date.now();
	const prepared = await prepare('e2e', log);
	let sandbox: Sandbox | undefined;
	const failures: string[] = [];
	try {
		sandbox = await startSandbox(flags.queue ? { port: 5720 } : {});
		if (flags.queue) {
			failures.push(...(await runQueueMode(prepared, sandbox, log)));
			return report(failures, started);
		}
		const examples = await readExamples(ROOT);
		const runs = examples.map((example) => ({ example, runnable: cliRunnable(example) }));
		const workflows: Workflow[] = [
			...examples.map((example) => ({ ...example.workflow, id: example.id })),
			...runs.flatMap(({ example, runnable }) => (runnable && runnable.workflow.id !== example.id ? [runnable.workflow] : [])),
		];
		const env = await environmentFor(prepared);
		await importIntoN8n(prepared.runtime, env, sandbox, workflows);
		log(`Imported ${exampleCredentialIds().length} sandbox credentials and ${workflows.length} workflow(s) from examples/ (${examples.length} file(s)).`);

		if (flags.selfTest) failures.push(...(await selfTest(prepared)));
		if (flags.breakFiles.length > 0) {
			await breakInstalledFiles(prepared.packageDir, flags.breakFiles);
			log(`Broke ${flags.breakFiles.join(', ')} in the installed copy (--break): the loading check must fail.`);
		}
		const loading = await loadingCheck(prepared, env, workflows);
		failures.push(...loading.problems);

		if (!loading.allLoaded) failures.push('examples not run: n8n did not load every type of the package');
		else for (const { example, runnable } of runs) failures.push(...(await runExample(prepared, env, sandbox, example, runnable)));
	} finally {
		await sandbox?.close();
		if (flags.keep || failures.length > 0) log(`The run's n8n user folder is kept: ${prepared.userFolder}`);
		else await fs.rm(prepared.workFolder, { recursive: true, force: true });
	}

	return report(failures, started);
}

function report(failures: string[], started: number): number {
	const seconds = Math.round((Date.now() - started) / 1000);
	if (failures.length > 0) {
		console.error(`\ntest:e2e FAILED (${seconds} s):\n${failures.map((failure) => `  - ${failure}`).join('\n')}`);
		return 1;
	}
	log(`\ntest:e2e passed in ${seconds} s.`);
	return 0;
}

/**
 * The loading check must be able to fail: a node file and a credential file of the installed
 * copy are made to throw, and the check must report those two by name, and blame no other file.
 */
async function selfTest(prepared: Prepared): Promise<string[]> {
	const broken = [prepared.listed.find((type) => type.kind === 'node'), prepared.listed.find((type) => type.kind === 'credential')].filter(
		(type) => type !== undefined,
	);
	log(`\nSelf-test of the loading check: ${broken.map((type) => type.file).join(' and ')} made to throw in the installed copy ...`);
	const restore = await breakInstalledFiles(prepared.packageDir, broken.map((type) => type.file));
	let report: LoadReport;
	try {
		const started = await startAndCheck(prepared, await environmentFor(prepared));
		await started.server.stop();
		report = started.report;
	} finally {
		await restore();
	}
	const blamed = report.problems.filter((problem) => / does not load in n8n: /.test(problem));
	const named = broken.every((type) => blamed.some((problem) => problem.startsWith(`${type.kind} ${type.name} does not load`)));
	if (!report.ok && named && blamed.length === broken.length) {
		log(`  the check failed as it must, naming them:\n${blamed.map((problem) => `    ${problem}`).join('\n')}`);
		return [];
	}
	return [`self-test: with ${broken.map((type) => type.name).join(' and ')} broken, the loading check reported: ${report.ok ? 'nothing' : report.problems.join(' | ')}`];
}

/** n8n offers every listed node (with icons) and credential type; the imports kept their ids. */
async function loadingCheck(prepared: Prepared, env: NodeJS.ProcessEnv, workflows: Workflow[]): Promise<{ problems: string[]; allLoaded: boolean }> {
	log('\nStarting n8n to check what it loaded ...');
	const { server, cookie, report } = await startAndCheck(prepared, env);
	try {
		for (const line of report.lines) log(`  ${line}`);
		const importProblems = await checkImported(server, cookie, exampleCredentialIds(), workflows.map((workflow) => workflow.id ?? ''));
		const problems = [...report.problems, ...importProblems];
		for (const problem of problems) console.error(`  ${problem}`);
		return { problems: problems.map((problem) => `loading: ${problem}`), allLoaded: report.allLoaded };
	} finally {
		await server.stop();
	}
}

/** Runs one example with `n8n execute` against a fresh request log, and checks the run. */
async function runExample(
	prepared: Prepared,
	env: NodeJS.ProcessEnv,
	sandbox: Sandbox,
	example: Example,
	runnable: ReturnType<typeof cliRunnable>,
): Promise<string[]> {
	if (!runnable) {
		console.error(`FAILED ${example.file}: no Manual or Schedule Trigger, n8n's CLI cannot start it`);
		return [`${example.file}: no Manual or Schedule Trigger to start it from`];
	}
	if (runnable.note) log(`\n${example.file}: ${runnable.note}`);
	sandbox.reset();
	const startedAt = Date.now();
	const result = await n8nCommand(prepared.runtime, env, ['execute', `--id=${runnable.workflow.id}`, '--rawOutput']);
	if (result.code !== 0) {
		const tail = `${result.stdout}\n${result.stderr}`.split('\n').filter((line) => /error|fail|message/i.test(line)).slice(0, 8);
		console.error(`FAILED ${example.file}: n8n execute exited with ${result.code}\n  ${tail.join('\n  ')}`);
		return [`${example.file}: n8n execute exited with ${result.code}: ${tail.slice(-1)[0] ?? ''}`];
	}
	const check = await checkRun(example, runnable.workflow, {
		stdout: result.stdout,
		execution: parseExecution(result.stdout),
		log: [...sandbox.log],
		keys: Object.values(sandbox.keys),
		startedAt,
		userFolder: prepared.userFolder,
		packageName: prepared.manifest.name,
	});
	log(check.summary);
	for (const problem of check.problems) console.error(`         ${problem}`);
	return check.problems.map((problem) => `${example.file}: ${problem}`);
}

main().then(
	(code) => process.exit(code),
	(error: Error) => {
		console.error(`test:e2e could not run: ${error.stack ?? error.message}`);
		process.exit(1);
	},
);
