import { promises as fs } from 'fs';
import path from 'path';

import { CREDENTIAL_DISPLAY_NAMES, CREDENTIAL_TYPES, sandboxCredential } from '../../test/harness/sandboxCredentials';
import type { Sandbox } from '../../test/sandbox/server';
import { SAMPLE_FILES_FOLDER } from '../../test/sandbox/storedInputs';
import { cliRunnable, readExamples, workflowId, type Example, type Workflow } from './examples';
import { n8nCommand } from './instance';
import { assertSucceeded } from './processes';
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
 *  3. every example imported, and each of its Abstract nodes given the person's credential (what
 *     choosing it under "Credential to connect with" and saving does); one example imported as it
 *     is, without that step, must fail: the step is needed;
 *  4. the examples run in the README's order (the one that stores the database before the one
 *     that reads it), each checked as the e2e checks it.
 */
export async function runAsNewcomer(prepared: Prepared, sandbox: Sandbox, log: (line: string) => void): Promise<string[]> {
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
	assertSucceeded(await n8nCommand(prepared.runtime, env, ['import:credentials', `--input=${path.join(imports, 'credentials.json')}`]), 'n8n import:credentials');
	log(`\nAs a newcomer: ${credentials.length} credentials of the person's own ("${credentials[1].name}", ...)`);

	// 2. mkdir ~/.n8n-files, and the samples copied into it.
	await fs.rm(prepared.filesFolder, { recursive: true, force: true });
	await fs.mkdir(prepared.filesFolder);
	const samples = (await fs.readdir(SAMPLE_FILES_FOLDER)).filter((file) => file.endsWith('.csv'));
	for (const sample of samples) await fs.copyFile(path.join(SAMPLE_FILES_FOLDER, sample), path.join(prepared.filesFolder, sample));
	log(`  mkdir ~/.n8n-files; copied ${samples.join(', ')} into it`);

	// 3. The examples imported, their credentials chosen; one left as imported.
	const examples = inReadmeOrder(await readExamples(ROOT));
	const picked = (workflow: Workflow): Workflow => ({
		...workflow,
		nodes: workflow.nodes.map((node) =>
			node.credentials
				? {
						...node,
						credentials: Object.fromEntries(
							Object.keys(node.credentials).map((type) => [type, { id: idOf.get(type)!.id, name: idOf.get(type)!.name }]),
						),
					}
				: node,
		),
	});
	const runs = examples.map((example) => {
		const runnable = cliRunnable(example);
		return { example, workflow: runnable ? { ...picked(runnable.workflow), id: workflowId(example.file, 'newcomer') } : undefined };
	});
	const unpicked = runs.find(({ workflow }) => workflow?.nodes.some((node) => node.credentials))!;
	const unpickedWorkflow = { ...cliRunnable(unpicked.example)!.workflow, id: workflowId(unpicked.example.file, 'newcomer-unpicked') };
	const workflows = [...runs.flatMap(({ workflow }) => (workflow ? [workflow] : [])), unpickedWorkflow];
	await fs.writeFile(path.join(imports, 'workflows.json'), JSON.stringify(workflows.map((workflow) => ({ ...workflow, active: false }))));
	assertSucceeded(await n8nCommand(prepared.runtime, env, ['import:workflow', `--input=${path.join(imports, 'workflows.json')}`]), 'n8n import:workflow');
	await fs.rm(imports, { recursive: true, force: true });

	// n8n 2.41.1 refuses such a run before it starts ("Node ... does not have access to the
	// credential", in the execution it records); its CLI then prints only "No active execution
	// found". The same workflow with the credential chosen runs below, so the references are
	// what fails it.
	const asImported = await n8nCommand(prepared.runtime, env, ['execute', `--id=${unpickedWorkflow.id}`, '--rawOutput']);
	const said = `${asImported.stdout}\n${asImported.stderr}`.split('\n').filter((line) => /error|credential/i.test(line)).slice(-1)[0] ?? '';
	if (asImported.code !== 0) log(`  ${unpicked.example.file} as imported, no credential chosen: fails as it must (exit ${asImported.code}: ${said.trim().slice(0, 120)})`);
	else failures.push(`newcomer: ${unpicked.example.file} ran with the examples' own credential references: the README's step of choosing a credential would not be needed`);

	// 4. Every example, in the README's order.
	for (const { example, workflow } of runs) {
		if (!workflow) {
			failures.push(`newcomer: ${example.file} has no trigger n8n's CLI can start`);
			continue;
		}
		sandbox.reset();
		const ran = await executeAndCheck(prepared, env, sandbox, example, workflow, 4);
		if ('exitCode' in ran) {
			failures.push(`newcomer: ${example.file}: n8n execute exited with ${ran.exitCode}: ${ran.why.join(' | ')}`);
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
			(node) => node.type === 'n8n-nodes-base.readWriteFile' && node.parameters.operation === 'read' && !String(node.parameters.fileSelector ?? '').endsWith('.csv'),
		);
	return [...examples.filter((example) => !readsStored(example)), ...examples.filter(readsStored)];
}
