import { promises as fs } from 'fs';
import path from 'path';

import {
	CREDENTIAL_DISPLAY_NAMES,
	CREDENTIAL_TYPES,
	sandboxCredential,
} from '../../test/harness/sandboxCredentials';
import type { Sandbox } from '../../test/sandbox/server';
import { SAMPLE_FILES_FOLDER } from '../../test/sandbox/storedInputs';
import { cliRunnable, readExamples, type Example } from './examples';
import { assertSucceeded } from './processes';
import { importThroughEditor, type EditorImport } from './editorImport';
import { n8nCommand, startServer } from './instance';
import { executeAndCheck } from './runChecks';
import { environmentFor, ROOT, type Prepared } from './setup';

/**
 * `npm run test:e2e -- --as-a-newcomer`: the README's "Run an example in your n8n", step by step,
 * in a fresh n8n home, and nothing else: no stored input or database placed by the harness, no
 * folder emptied between examples. The steps, as a person does them in the editor:
 *  1. one credential per service, under a name of the person's own (not the examples' "...
 *     (sandbox)" ones), its Base URL the sandbox's (a person's would stay empty, for the live
 *     address);
 *  2. `mkdir ~/.n8n-files` and the three samples of examples/files/ copied into it;
 *  3. every example imported through the editor's Import from File (Chromium driving it), which
 *     must put the person's credential in place of each "(sandbox)" reference by itself and say
 *     "Credentials auto-added", and saved (a workflow that kept a "(sandbox)" reference fails
 *     the check: that credential is not the person's);
 *  4. the examples run in the README's order (the one that stores the database before the one
 *     that reads it), each checked as the e2e checks it.
 */
export async function runAsNewcomer(
	prepared: Prepared,
	sandbox: Sandbox,
	log: (line: string) => void,
): Promise<string[]> {
	const env = await environmentFor(prepared);
	const failures: string[] = [];
	const imports = path.join(prepared.workFolder, 'newcomer-imports');
	await fs.mkdir(imports, { recursive: true });

	// 1. The person's credentials: their own ids and names.
	const credentials = Object.entries(CREDENTIAL_TYPES).map(([service, type]) => ({
		id: `my-${type}`,
		name: `My ${CREDENTIAL_DISPLAY_NAMES[type]}`,
		type,
		data: sandboxCredential(sandbox, service).data,
	}));
	const idOf = new Map(credentials.map((credential) => [credential.type, credential]));
	await fs.writeFile(path.join(imports, 'credentials.json'), JSON.stringify(credentials));
	assertSucceeded(
		await n8nCommand(prepared.runtime, env, [
			'import:credentials',
			`--input=${path.join(imports, 'credentials.json')}`,
		]),
		'n8n import:credentials',
	);
	log(
		`\nAs a newcomer: ${credentials.length} credentials of the person's own ("${credentials[1].name}", ...)`,
	);

	// 2. mkdir ~/.n8n-files, and the samples copied into it.
	await fs.rm(prepared.filesFolder, { recursive: true, force: true });
	await fs.mkdir(prepared.filesFolder);
	const samples = (await fs.readdir(SAMPLE_FILES_FOLDER)).filter((file) => file.endsWith('.csv'));
	for (const sample of samples)
		await fs.copyFile(
			path.join(SAMPLE_FILES_FOLDER, sample),
			path.join(prepared.filesFolder, sample),
		);
	log(`  mkdir ~/.n8n-files; copied ${samples.join(', ')} into it`);

	// 3. Every example imported through the editor (Import from File), as a person does: with one
	// credential of each type, n8n puts it in place of the examples' "(sandbox)" references by
	// itself and says so ("Credentials auto-added"); each is saved. The Schedule Trigger example
	// is imported in the form n8n's CLI can start (a Manual Trigger in its place).
	const examples = inReadmeOrder(await readExamples(ROOT));
	const uploads = await Promise.all(
		examples.map(async (example) => {
			const runnable = cliRunnable(example);
			if (!runnable || runnable.workflow.id === example.id)
				return path.join(ROOT, 'examples', example.file);
			const file = path.join(imports, example.file);
			await fs.writeFile(file, JSON.stringify({ ...runnable.workflow, id: undefined }));
			return file;
		}),
	);
	const server = await startServer(prepared.runtime, env);
	let imported: EditorImport[];
	try {
		imported = await importThroughEditor(server.url, uploads);
	} finally {
		await server.stop();
	}
	const runs = examples.map((example, index) => ({
		example,
		workflow: cliRunnable(example) ? imported[index].workflow : undefined,
	}));
	examples.forEach((example, index) => {
		const { workflow, notices } = imported[index];
		const wrong = workflow.nodes.flatMap((node) =>
			Object.entries(node.credentials ?? {}).flatMap(([type, reference]) =>
				reference.id === idOf.get(type)?.id ? [] : [`${node.name}: ${reference.name}`],
			),
		);
		const needsOne = example.workflow.nodes.some((node) => node.credentials);
		const said = notices.find((notice) => notice.startsWith('Credentials auto-added'));
		if (wrong.length > 0)
			failures.push(
				`newcomer: ${example.file} imported in the editor keeps credentials that are not the person's: ${wrong.join(', ')}`,
			);
		else if (needsOne && !said)
			failures.push(
				`newcomer: ${example.file} imported in the editor without "Credentials auto-added" (it said: ${notices.join(' | ') || 'nothing'})`,
			);
	});
	log(
		`  imported ${imported.length} examples through the editor's Import from File; it said, for instance: "${imported.map((each) => each.notices.find((notice) => notice.startsWith('Credentials auto-added'))).find((notice) => notice?.includes('We selected')) ?? ''}"`,
	);

	await fs.rm(imports, { recursive: true, force: true });

	// 4. Every example, in the README's order.
	for (const { example, workflow } of runs) {
		if (!workflow) {
			failures.push(`newcomer: ${example.file} has no trigger n8n's CLI can start`);
			continue;
		}
		sandbox.reset();
		const ran = await executeAndCheck(prepared, env, sandbox, example, workflow, 4);
		if ('exitCode' in ran) {
			failures.push(
				`newcomer: ${example.file}: n8n execute exited with ${ran.exitCode}: ${ran.why.join(' | ')}`,
			);
			continue;
		}
		const { check } = ran;
		log(`  ${check.summary}`);
		failures.push(...check.problems.map((problem) => `newcomer: ${example.file}: ${problem}`));
	}
	return failures;
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
