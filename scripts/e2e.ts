import { promises as fs } from 'fs';

import { placeStoredDatabases } from '../test/sandbox/ipDatabases/storedFiles';
import { placeStoredInputs } from '../test/sandbox/storedInputs';
import { startSandbox, type Sandbox } from '../test/sandbox/server';
import { breakInstalledFiles } from './n8n/communityPackage';
import {
	cliRunnable,
	exampleCredentialIds,
	importIntoN8n,
	readExamples,
	type Example,
	type Workflow,
} from './n8n/examples';
import { n8nCommand } from './n8n/instance';
import { runQueueMode } from './n8n/queueMode';
import { runHttpRequestCheck } from './n8n/httpRequestCheck';
import { checkImported, type LoadReport } from './n8n/loadingCheck';
import { runAsNewcomer } from './n8n/newcomer';
import { runEstimateCheck } from './n8n/estimateCheck';
import { runRetryChecks, runTestRunChecks } from './n8n/retries';
import { executeAndCheck } from './n8n/runChecks';
import { runtimeSpec } from './n8n/runtime';
import {
	emptyFilesFolder,
	environmentFor,
	prepare,
	ROOT,
	startAndCheck,
	type Prepared,
} from './n8n/setup';

/**
 * `npm run test:e2e`: the package in a real n8n (2.x, or 1.x with `--n8n 1`, installed once into
 * a cache folder), headless, with n8n's default settings for file access and a fresh home folder
 * holding only an empty `~/.n8n-files`, where the examples write. It installs the package into
 * that home's `~/.n8n/nodes` with the README's own install commands (scripts/n8n/readmeInstall.ts),
 * imports credentials pointing at the sandbox (which runs in this process) and every
 * workflow of examples/, then
 *  1. proves the loading check can fail: with one node file and one credential file of the
 *     installed copy replaced by a module that throws, the check must name exactly those two;
 *  2. checks that n8n offers every node (with its icons) and credential type package.json lists;
 *  3. proves the examples need `~/.n8n-files` and nothing more: one that writes a file must fail
 *     with that folder removed;
 *  4. runs every example with `n8n execute` and checks its output items, binaries, written
 *     files and the sandbox's request log, printing one line per example with its item counts;
 *  5. runs a node under Retry On Fail, and retries a failed execution through n8n's REST API:
 *     neither pays again for an answer (scripts/n8n/retries.ts);
 *  6. executes a workflow twice as the editor does, then calls its production webhook twice: test
 *     runs reuse answers, production runs ask afresh unless the node says otherwise (same file);
 *  7. estimates a 50,000-row lead file through Company Enrichment (Estimate Credits Only), then
 *     runs it: the estimate sends nothing, the run sends what it counted (scripts/n8n/estimateCheck.ts);
 *  8. calls every service from n8n's own HTTP Request node with the package's credential as its
 *     Predefined Credential Type: each key arrives once, where its service's form puts it
 *     (scripts/n8n/httpRequestCheck.ts).
 *
 * Flags: --queue runs n8n in queue mode instead (main, 2-3 workers, Redis, PostgreSQL: scripts/n8n/queueMode.ts);
 * --keep keeps the temporary user folder; --break <dist file> replaces that file of the
 * installed copy with a throwing module before the check (to watch the e2e fail on it);
 * --no-self-test skips steps 1 and 3; --reuse-only runs steps 5 and 6 alone; --estimate-only runs step 7 alone; --http-request-only step 8 alone; --n8n 1 (or an exact version, 1.85.4) runs it all on n8n 1.x;
 * --as-a-newcomer runs instead the README's "Run an example in your n8n" steps in Chromium, by the
 * README's own names, and nothing more (scripts/n8n/newcomer.ts): every example must run; then
 * again with n8n's user folder apart from its home (N8N_USER_FOLDER), after proving the README's
 * file-access rule for it.
 */
interface Flags {
	keep: boolean;
	queue: boolean;
	newcomer: boolean;
	selfTest: boolean;
	breakFiles: string[];
	n8n?: string;
	reuseOnly: boolean;
	estimateOnly: boolean;
	httpRequestOnly: boolean;
}

function parseFlags(argv: string[]): Flags {
	const flags: Flags = {
		keep: false,
		queue: false,
		newcomer: false,
		selfTest: true,
		breakFiles: [],
		reuseOnly: false,
		estimateOnly: false,
		httpRequestOnly: false,
	};
	for (let index = 0; index < argv.length; index++) {
		if (argv[index] === '--keep') flags.keep = true;
		else if (argv[index] === '--queue') flags.queue = true;
		else if (argv[index] === '--as-a-newcomer') flags.newcomer = true;
		else if (argv[index] === '--no-self-test') flags.selfTest = false;
		else if (argv[index] === '--reuse-only') flags.reuseOnly = true;
		else if (argv[index] === '--estimate-only') flags.estimateOnly = true;
		else if (argv[index] === '--http-request-only') flags.httpRequestOnly = true;
		else if (argv[index] === '--break' && argv[index + 1]) flags.breakFiles.push(argv[++index]);
		else if (argv[index] === '--n8n' && argv[index + 1]) flags.n8n = argv[++index];
		else if (argv[index].startsWith('--n8n=')) flags.n8n = argv[index].slice('--n8n='.length);
		else
			throw new Error(
				`unknown flag ${argv[index]} (known: --keep, --queue, --as-a-newcomer, --no-self-test, --reuse-only, --estimate-only, --http-request-only, --break <dist file>, --n8n <1|2|version>)`,
			);
	}
	return flags;
}

const log = (line: string) => console.log(line);

async function main(): Promise<number> {
	const flags = parseFlags(process.argv.slice(2));
	const started = Date.now();
	const prepared = await prepare('e2e', log, runtimeSpec(flags.n8n));
	let sandbox: Sandbox | undefined;
	const failures: string[] = [];
	try {
		sandbox = await startSandbox({ port: Number(process.env.SANDBOX_PORT) || undefined });
		if (flags.queue) {
			failures.push(...(await runQueueMode(prepared, sandbox, log)));
			return report(failures, started);
		}
		if (flags.newcomer) {
			failures.push(...(await runAsNewcomer(prepared, sandbox, log)));
			// Once more with n8n's user folder apart from its home, as a person who sets N8N_USER_FOLDER.
			const apart = await prepare('e2e-user-folder', log, runtimeSpec(flags.n8n), {
				userFolderApart: true,
			});
			try {
				failures.push(...(await runAsNewcomer(apart, sandbox, log)));
			} finally {
				if (flags.keep || failures.length > 0)
					log(`The second run's folder is kept: ${apart.workFolder}`);
				else await fs.rm(apart.workFolder, { recursive: true, force: true });
			}
			return report(failures, started);
		}
		if (flags.reuseOnly) {
			failures.push(
				...(await runRetryChecks(prepared, sandbox, log)),
				...(await runTestRunChecks(prepared, sandbox, log)),
			);
			return report(failures, started);
		}
		if (flags.httpRequestOnly) {
			failures.push(...(await runHttpRequestCheck(prepared, sandbox, log)));
			return report(failures, started);
		}
		if (flags.estimateOnly) {
			failures.push(...(await runEstimateCheck(prepared, sandbox, log)));
			return report(failures, started);
		}
		const examples = await readExamples(ROOT);
		const runs = examples.map((example) => ({ example, runnable: cliRunnable(example) }));
		const workflows: Workflow[] = [
			...examples.map((example) => ({ ...example.workflow, id: example.id })),
			...runs.flatMap(({ example, runnable }) =>
				runnable && runnable.workflow.id !== example.id ? [runnable.workflow] : [],
			),
		];
		const env = await environmentFor(prepared);
		await importIntoN8n(prepared.runtime, env, sandbox, workflows);
		log(
			`Imported ${exampleCredentialIds().length} sandbox credentials and ${workflows.length} workflow(s) from examples/ (${examples.length} file(s)).`,
		);

		if (flags.selfTest) failures.push(...(await selfTest(prepared)));
		if (flags.breakFiles.length > 0) {
			await breakInstalledFiles(prepared.packageDir, flags.breakFiles);
			log(
				`Broke ${flags.breakFiles.join(', ')} in the installed copy (--break): the loading check must fail.`,
			);
		}
		const loading = await loadingCheck(prepared, env, workflows);
		failures.push(...loading.problems);

		if (!loading.allLoaded)
			failures.push('examples not run: n8n did not load every type of the package');
		else {
			if (flags.selfTest) failures.push(...(await filesFolderSelfTest(prepared, env, runs)));
			for (const { example, runnable } of runs)
				failures.push(...(await runExample(prepared, env, sandbox, example, runnable)));
			failures.push(...(await runRetryChecks(prepared, sandbox, log)));
			failures.push(...(await runTestRunChecks(prepared, sandbox, log)));
			failures.push(...(await runEstimateCheck(prepared, sandbox, log)));
			failures.push(...(await runHttpRequestCheck(prepared, sandbox, log)));
		}
	} finally {
		await sandbox?.close();
		if (flags.keep || failures.length > 0)
			log(`The run's n8n user folder is kept: ${prepared.userFolder}`);
		else await fs.rm(prepared.workFolder, { recursive: true, force: true });
	}

	return report(failures, started);
}

function report(failures: string[], started: number): number {
	const seconds = Math.round((Date.now() - started) / 1000);
	if (failures.length > 0) {
		console.error(
			`\ntest:e2e FAILED (${seconds} s):\n${failures.map((failure) => `  - ${failure}`).join('\n')}`,
		);
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
	const broken = [
		prepared.listed.find((type) => type.kind === 'node'),
		prepared.listed.find((type) => type.kind === 'credential'),
	].filter((type) => type !== undefined);
	log(
		`\nSelf-test of the loading check: ${broken.map((type) => type.file).join(' and ')} made to throw in the installed copy ...`,
	);
	const restore = await breakInstalledFiles(
		prepared.packageDir,
		broken.map((type) => type.file),
	);
	let report: LoadReport;
	try {
		const started = await startAndCheck(prepared, await environmentFor(prepared));
		await started.server.stop();
		report = started.report;
	} finally {
		await restore();
	}
	const blamed = report.problems.filter((problem) => / does not load in n8n: /.test(problem));
	const named = broken.every((type) =>
		blamed.some((problem) => problem.startsWith(`${type.kind} ${type.name} does not load`)),
	);
	if (!report.ok && named && blamed.length === broken.length) {
		log(
			`  the check failed as it must, naming them:\n${blamed.map((problem) => `    ${problem}`).join('\n')}`,
		);
		return [];
	}
	return [
		`self-test: with ${broken.map((type) => type.name).join(' and ')} broken, the loading check reported: ${report.ok ? 'nothing' : report.problems.join(' | ')}`,
	];
}

/** n8n offers every listed node (with icons) and credential type; the imports kept their ids. */
async function loadingCheck(
	prepared: Prepared,
	env: NodeJS.ProcessEnv,
	workflows: Workflow[],
): Promise<{ problems: string[]; allLoaded: boolean }> {
	log('\nStarting n8n to check what it loaded ...');
	const { server, cookie, report } = await startAndCheck(prepared, env);
	try {
		for (const line of report.lines) log(`  ${line}`);
		const importProblems = await checkImported(
			server,
			cookie,
			exampleCredentialIds(),
			workflows.map((workflow) => workflow.id ?? ''),
		);
		const problems = [...report.problems, ...importProblems];
		for (const problem of problems) console.error(`  ${problem}`);
		return {
			problems: problems.map((problem) => `loading: ${problem}`),
			allLoaded: report.allLoaded,
		};
	} finally {
		await server.stop();
	}
}

/**
 * The examples may rely on nothing but `~/.n8n-files`: the first one that writes a file is run
 * once without that folder, and n8n must refuse the write (ENOENT on the folder), as it does on a
 * machine where the user has not made it. The folder is made again afterwards.
 */
async function filesFolderSelfTest(
	prepared: Prepared,
	env: NodeJS.ProcessEnv,
	runs: Array<{ example: Example; runnable: ReturnType<typeof cliRunnable> }>,
): Promise<string[]> {
	// One that reads nothing from the folder: without it, a read finds no file and n8n runs the
	// rest on no items, successfully, so the write is never tried.
	const files =
		(operation: string) => (node: { type: string; parameters?: { operation?: unknown } }) =>
			node.type === 'n8n-nodes-base.readWriteFile' && node.parameters?.operation === operation;
	const writer = runs.find(
		({ runnable }) =>
			runnable?.workflow.nodes.some(files('write')) && !runnable.workflow.nodes.some(files('read')),
	);
	if (!writer?.runnable) return [];
	log(`\nSelf-test of the file location: ${writer.example.file} run without ~/.n8n-files ...`);
	await fs.rm(prepared.filesFolder, { recursive: true, force: true });
	try {
		const result = await n8nCommand(prepared.runtime, env, [
			'execute',
			`--id=${writer.runnable.workflow.id}`,
			'--rawOutput',
		]);
		const output = `${result.stdout}\n${result.stderr}`;
		// n8n 2.x: "realpath '.n8n-files'"; n8n 1.x, which resolves no path first: "open '.n8n-files/<file>'".
		const refusal = output
			.split('\n')
			.find((line) => /ENOENT: no such file or directory, \w+ '[^']*\.n8n-files[/']/.test(line));
		if (result.code !== 0 && refusal) {
			log(`  n8n refused the write as it must: ${refusal.trim()}`);
			return [];
		}
		return [
			`self-test: without ~/.n8n-files, ${writer.example.file} ${result.code === 0 ? 'succeeded' : `failed otherwise (exit ${result.code})`}: it must rely on that folder alone`,
		];
	} finally {
		await emptyFilesFolder(prepared);
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
		console.error(
			`FAILED ${example.file}: no Manual or Schedule Trigger, n8n's CLI cannot start it`,
		);
		return [`${example.file}: no Manual or Schedule Trigger to start it from`];
	}
	if (runnable.note) log(`\n${example.file}: ${runnable.note}`);
	// Every output checked below is made by this run: n8n's ~/.n8n-files starts empty (a file an
	// earlier example or run left there must not pass for one this run wrote).
	await emptyFilesFolder(prepared);
	sandbox.reset();
	// A workflow that reads a stored database file finds the sandbox's build where it looks.
	await placeStoredDatabases(example.workflow, prepared.userFolder);
	// And one that reads a stored list (leads, domains) finds the sample one.
	await placeStoredInputs(example.workflow, prepared.userFolder);
	const ran = await executeAndCheck(prepared, env, sandbox, example, runnable.workflow, 8);
	if ('exitCode' in ran) {
		console.error(
			`FAILED ${example.file}: n8n execute exited with ${ran.exitCode}\n  ${ran.why.join('\n  ')}`,
		);
		return [
			`${example.file}: n8n execute exited with ${ran.exitCode}: ${ran.why.slice(-1)[0] ?? ''}`,
		];
	}
	const { check } = ran;
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
