import { promises as fs } from 'fs';
import { createRequire } from 'module';
import path from 'path';

import {
	CREDENTIAL_DISPLAY_NAMES,
	CREDENTIAL_TYPES,
	sandboxCredential,
} from '../../test/harness/sandboxCredentials';
import type { Sandbox } from '../../test/sandbox/server';
import { SAMPLE_FILES_FOLDER } from '../../test/sandbox/storedInputs';
import { openEditor, pause, type Editor } from '../editor/browser';
import { follow } from '../editor/readmeDriver';
import { readExamples, SCHEDULE_TRIGGER, type Example, type Workflow } from './examples';
import { startServer } from './instance';
import { readmeSteps, stepAbout, tokensOfStep, type ReadmeStep } from './readmeSteps';
import { checkExecution, type ExecutionOutput } from './runChecks';
import { environmentFor, ROOT, type Prepared } from './setup';
import { fileAccessProblems } from './userFolderFiles';

/**
 * `npm run test:e2e -- --as-a-newcomer`: the README's "Run an example in your n8n", done by a
 * person's hands in Chromium (scripts/editor/readmeDriver.ts) in a fresh n8n 2.41.1 home, by the
 * names the README gives the editor's buttons, menus and fields, read from the README
 * (readmeSteps.ts): a step the editor names otherwise fails the run. Nothing is placed by the
 * harness: no credential, workflow or stored file.
 *  1. the package installed with the README's commands (setup.ts, before this);
 *  2. a credential of each type the examples use, made as the README says (the sidebar's `+`,
 *     New credential, the type picked, API Key and Base URL filled in, Save), pointing at the
 *     sandbox; saving must test it, and the test must pass;
 *  3. and 4. `mkdir ~/.n8n-files` and the samples of examples/files copied into it;
 *  5. each example imported as the README says (`+`, New workflow, the workflow's … menu, Import,
 *     From file), which must put the person's credential in place of each "(sandbox)" one and say
 *     so (the notice the README quotes), and save the workflow by itself;
 *  6. each run by Execute workflow, in the README's order (the stored database example after the
 *     one that stores it), checked as the e2e checks every run; the scheduled one then published
 *     as the README says, and must be active.
 * With the user folder apart (`N8N_USER_FOLDER`, prepare's userFolderApart), it first proves the
 * README's file-access rule (userFolderFiles.ts), then does the same with the examples of
 * USER_FOLDER_EXAMPLES.
 */
export async function runAsNewcomer(
	prepared: Prepared,
	sandbox: Sandbox,
	log: (line: string) => void,
): Promise<string[]> {
	const apart = prepared.userFolder !== prepared.home;
	const label = apart ? 'newcomer, N8N_USER_FOLDER set' : 'newcomer';
	const env = await environmentFor(prepared);
	const failures: string[] = [];
	const readme = await fs.readFile(path.join(ROOT, 'README.md'), 'utf8');
	const steps = readmeSteps(readme);
	const credentialStep = stepAbout(steps, /credential/i);
	const importStep = stepAbout(steps, /import/i);
	const runStep = stepAbout(steps, /^run/i);

	log(
		`\nAs a newcomer${apart ? `, with N8N_USER_FOLDER=${prepared.userFolder} and n8n started in its home folder ${prepared.home}` : ''}: the README's steps in Chromium`,
	);
	if (apart) {
		const problems = await fileAccessProblems(prepared, env);
		failures.push(...problems.map((problem) => `${label}: ${problem}`));
		log(
			`  the file-access rule: ${problems.length === 0 ? "a .n8n-files in the user folder is refused, the home folder's is written" : 'FAILED'}`,
		);
	}

	// 3. and 4. mkdir ~/.n8n-files, and the samples copied into it.
	await fs.rm(prepared.filesFolder, { recursive: true, force: true });
	await fs.mkdir(prepared.filesFolder);
	const samples = (await fs.readdir(SAMPLE_FILES_FOLDER)).filter((file) => file.endsWith('.csv'));
	for (const sample of samples)
		await fs.copyFile(
			path.join(SAMPLE_FILES_FOLDER, sample),
			path.join(prepared.filesFolder, sample),
		);
	log(`  mkdir ~/.n8n-files; copied ${samples.join(', ')} into it`);

	const examples = inReadmeOrder(await readExamples(ROOT)).filter(
		(example) => !apart || USER_FOLDER_EXAMPLES.includes(example.file),
	);
	const server = await startServer(prepared.runtime, env);
	const editor = await openEditor(server.url);
	try {
		const mine = await createCredentials(editor, sandbox, credentialStep, examples, readme, log);
		failures.push(...mine.problems.map((problem) => `${label}: ${problem}`));
		for (const example of examples) {
			try {
				const problems = await importAndRun(
					{ editor, prepared, sandbox, readme, log },
					{ importStep, runStep },
					example,
					mine.ids,
				);
				failures.push(...problems.map((problem) => `${label}: ${example.file}: ${problem}`));
			} catch (error) {
				failures.push(`${label}: ${example.file}: ${(error as Error).message}`);
			}
		}
	} finally {
		await editor.close();
		await server.stop();
	}
	return failures;
}

/** The examples run again with n8n's user folder apart: the lead, a stored list, the database stored and read. */
export const USER_FOLDER_EXAMPLES = [
	'lead-enrichment.json',
	'bulk-email-result-file.json',
	'scheduled-database-download.json',
	'ip-lookup-stored-database.json',
];

/** The notice n8n shows when a credential's test passes, as the README quotes it. */
const TESTED = 'Connection tested successfully';

/** Step 2, once per credential type the examples use; the ids n8n gave them, by type. */
async function createCredentials(
	editor: Editor,
	sandbox: Sandbox,
	step: ReadmeStep,
	examples: Example[],
	readme: string,
	log: (line: string) => void,
): Promise<{ ids: Map<string, string>; problems: string[] }> {
	const problems: string[] = [];
	if (!readme.includes(`*${TESTED}*`))
		problems.push(`the README no longer quotes n8n's "${TESTED}"`);
	const types = new Set(
		examples.flatMap((example) =>
			example.workflow.nodes.flatMap((node) => Object.keys(node.credentials ?? {})),
		),
	);
	const { page } = editor;
	for (const [service, type] of Object.entries(CREDENTIAL_TYPES).filter(([, each]) =>
		types.has(each),
	)) {
		const { data } = sandboxCredential(sandbox, service);
		await page.goto(`${editor.url}/home/workflows`, { waitUntil: 'domcontentloaded' });
		await follow(page, tokensOfStep(step), {
			pick: CREDENTIAL_DISPLAY_NAMES[type],
			fields: { 'API Key': String(data.apiKey), 'Base URL': String(data.baseUrl) },
		});
		const said = await waitForText(page, '[role="dialog"]', [TESTED, "Couldn't connect"]);
		if (!said.includes(TESTED))
			problems.push(`saving a ${CREDENTIAL_DISPLAY_NAMES[type]} credential said: ${said}`);
		await (await page.$('[role="dialog"] .el-dialog__headerbtn'))?.click();
		await pause(500);
	}
	const made = await editor.api<Array<{ id: string; name: string; type: string }>>(
		'GET',
		'/rest/credentials',
	);
	log(
		`  made ${made.length} credentials through + → New credential, each tested on Save: ${made.map((each) => `"${each.name}"`).join(', ')}`,
	);
	return { ids: new Map(made.map((each) => [each.type, each.id])), problems };
}

interface Context {
	editor: Editor;
	prepared: Prepared;
	sandbox: Sandbox;
	readme: string;
	log: (line: string) => void;
}

/** Steps 5 and 6 for one example: imported, saved by n8n, executed, checked, and published if it runs on a schedule. */
async function importAndRun(
	{ editor, prepared, sandbox, log }: Context,
	{ importStep, runStep }: { importStep: ReadmeStep; runStep: ReadmeStep },
	example: Example,
	mine: Map<string, string>,
): Promise<string[]> {
	const { page } = editor;
	const problems: string[] = [];
	sandbox.reset();
	await page.goto(`${editor.url}/home/workflows`, { waitUntil: 'domcontentloaded' });
	const notices = watchNotices(page);
	await follow(page, tokensOfStep(importStep), {
		file: path.join(ROOT, 'examples', example.file),
	});
	const workflow = await savedByN8n(editor, example);
	const said = await notices();

	// The person's credentials in place of the examples' "(sandbox)" ones, said by the notice the README quotes.
	const wrong = workflow.nodes.flatMap((node) =>
		Object.entries(node.credentials ?? {}).flatMap(([type, reference]) =>
			reference.id === mine.get(type) ? [] : [`${node.name}: ${reference.name}`],
		),
	);
	if (wrong.length > 0)
		problems.push(`imported with credentials not the person's: ${wrong.join(', ')}`);
	const expected = tokensOfStep(importStep)
		.filter((token) => token.kind === 'quote')
		.map((token) => token.text);
	const needsOne = example.workflow.nodes.some((node) => node.credentials);
	if (needsOne && !expected.some((quote) => said.some((notice) => notice.startsWith(quote))))
		problems.push(
			`the import said ${said.map((notice) => `"${notice}"`).join(', ') || 'nothing'}, not the README's ${expected.map((quote) => `"${quote}"`).join(', ')}`,
		);

	// Step 6: Execute workflow, as the README's first sentence of the step says.
	const startedAt = Date.now();
	const started = page.waitForResponse(
		(response) =>
			response.request().method() === 'POST' &&
			response.url().endsWith(`/rest/workflows/${workflow.id}/run`),
		{ timeout: 60_000 },
	);
	await follow(page, tokensOfStep(runStep, /^(?![\s\S]*schedule)/i), {});
	const { data } = (await (await started).json()) as { data: { executionId: string } };
	const execution = await executionOf(editor, prepared, data.executionId);
	const check = await checkExecution(prepared, sandbox, example, workflow, {
		stdout: JSON.stringify(execution),
		execution,
		startedAt,
	});
	log(`  ${check.summary}`);
	problems.push(...check.problems);

	if (example.workflow.nodes.some((node) => node.type === SCHEDULE_TRIGGER)) {
		await follow(page, tokensOfStep(runStep, /schedule/i), {});
		const published = await until(async () => {
			const state = await editor.api<Workflow & { activeVersionId?: string | null }>(
				'GET',
				`/rest/workflows/${workflow.id}`,
			);
			return state.active === true || Boolean(state.activeVersionId) ? state : undefined;
		});
		log(`  published ${example.file} as the README says: ${published ? 'active' : 'NOT active'}`);
		if (!published) problems.push('not active after the README\'s "Publish" steps');
	}
	return problems;
}

/** The workflow n8n saved by itself after the import: its address's id, once it holds the file's nodes. */
async function savedByN8n(editor: Editor, example: Example): Promise<Workflow> {
	const saved = await until(async () => {
		const id = /\/workflow\/([^/?]+)/.exec(editor.page.url())?.[1];
		if (!id || id === 'new') return undefined;
		const workflow = await editor
			.api<Workflow>('GET', `/rest/workflows/${id}`)
			.catch(() => undefined);
		return workflow && workflow.nodes.length === example.workflow.nodes.length
			? workflow
			: undefined;
	});
	if (!saved) throw new Error('n8n did not save the imported workflow by itself within 30 s');
	return saved;
}

/** The execution the editor started, once it ended, as `n8n execute --rawOutput` would print it. */
async function executionOf(
	editor: Editor,
	prepared: Prepared,
	executionId: string,
): Promise<ExecutionOutput> {
	// The REST API gives the execution's data in n8n's "flatted" form, read with n8n's own copy.
	const flatted = createRequire(
		path.join(prepared.runtime.n8nDir, 'node_modules', 'n8n', 'package.json'),
	)('flatted') as { parse: (text: string) => unknown };
	const ended = await until(async () => {
		const execution = await editor.api<{ status: string; stoppedAt?: string; data: string }>(
			'GET',
			`/rest/executions/${executionId}`,
		);
		return execution.stoppedAt ? execution : undefined;
	}, 180_000);
	if (!ended) throw new Error(`execution ${executionId} did not end within 3 minutes`);
	return {
		status: ended.status,
		data: flatted.parse(ended.data) as ExecutionOutput['data'],
	};
}

/** The texts of n8n's notices from now on, read when asked (they fade after a few seconds). */
function watchNotices(page: Editor['page']): () => Promise<string[]> {
	const seen = new Set<string>();
	let watching = true;
	const watch = (async () => {
		while (watching) {
			const texts = await page
				.evaluate(() =>
					[...document.querySelectorAll('.el-notification')].map((element) =>
						(element as HTMLElement).innerText.replace(/\s+/g, ' ').trim(),
					),
				)
				.catch(() => [] as string[]);
			for (const text of texts) seen.add(text);
			await pause(200);
		}
	})();
	return async () => {
		await pause(3000);
		watching = false;
		await watch;
		return [...seen];
	};
}

/** The first of the texts an element comes to show, or what it shows when none came. */
async function waitForText(
	page: Editor['page'],
	selector: string,
	texts: string[],
): Promise<string> {
	const shown = async () =>
		await page.evaluate(
			(selector: string) =>
				[...document.querySelectorAll(selector)]
					.map((element) => (element as HTMLElement).innerText.replace(/\s+/g, ' '))
					.join(' '),
			selector,
		);
	const found = await until(async () => {
		const text = await shown();
		return texts.find((each) => text.includes(each));
	}, 30_000);
	return found ?? (await shown()).slice(0, 300);
}

/** Polls until `check` gives a value, or `ms` pass (undefined then). */
async function until<T>(check: () => Promise<T | undefined>, ms = 30_000): Promise<T | undefined> {
	const deadline = Date.now() + ms;
	for (;;) {
		const value = await check();
		if (value !== undefined) return value;
		if (Date.now() > deadline) return undefined;
		await pause(500);
	}
}

/**
 * The README's order: file-name order, except that an example reading a file of `~/.n8n-files`
 * that no sample provides (the stored database) runs after the ones that write files there.
 */
function inReadmeOrder(examples: Example[]): Example[] {
	const readsStored = (example: Example) =>
		example.workflow.nodes.some(
			(node) =>
				node.type === 'n8n-nodes-base.readWriteFile' &&
				node.parameters.operation === 'read' &&
				!String(node.parameters.fileSelector ?? '').endsWith('.csv'),
		);
	return [...examples.filter((example) => !readsStored(example)), ...examples.filter(readsStored)];
}
