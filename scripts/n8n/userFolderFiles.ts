import { promises as fs } from 'fs';
import path from 'path';

import { MANUAL_TRIGGER, type Workflow } from './examples';
import { n8nCommand } from './instance';
import type { Prepared } from './setup';

/**
 * The README's file-access rule, proved in the real n8n before the newcomer e2e relies on it
 * with n8n's user folder apart (`N8N_USER_FOLDER`): n8n 2.x lets its file nodes write only into
 * the `.n8n-files` of its HOME, whatever the user folder, and the examples name their files
 * `.n8n-files/...` from the folder n8n starts in. So a workflow of n8n's own nodes that writes
 * `.n8n-files/probe.json` must be refused when n8n starts in the user folder (a `.n8n-files` made
 * there), and must write into the home folder's when n8n starts there, as the README says to.
 * Returns what did not hold; leaves neither probe file nor folder behind.
 */
export async function fileAccessProblems(
	prepared: Prepared,
	env: NodeJS.ProcessEnv,
): Promise<string[]> {
	const file = path.join(prepared.workFolder, 'probe-workflow.json');
	await fs.writeFile(file, JSON.stringify([PROBE]));
	const imported = await n8nCommand(prepared.runtime, env, ['import:workflow', `--input=${file}`]);
	await fs.rm(file, { force: true });
	if (imported.code !== 0) return [`importing the file-access probe failed: ${imported.stderr}`];

	const problems: string[] = [];
	const inUserFolder = path.join(prepared.userFolder, '.n8n-files');
	await fs.mkdir(inUserFolder, { recursive: true });
	try {
		const refused = await n8nCommand(
			prepared.runtime,
			env,
			['execute', `--id=${PROBE.id}`],
			prepared.userFolder,
		);
		const said = `${refused.stdout}\n${refused.stderr}`;
		if (!said.includes('Access to the file is not allowed'))
			problems.push(
				`n8n started in its user folder wrote .n8n-files/probe.json there (exit ${refused.code}): the README's rule would not be needed`,
			);
		const written = await n8nCommand(prepared.runtime, env, ['execute', `--id=${PROBE.id}`]);
		const probe = path.join(prepared.filesFolder, 'probe.json');
		const there = await fs.stat(probe).then(
			() => true,
			() => false,
		);
		if (written.code !== 0 || !there)
			problems.push(
				`n8n started in its home folder did not write ~/.n8n-files/probe.json (exit ${written.code}): ${`${written.stdout}\n${written.stderr}`
					.split('\n')
					.filter((line) => /error|allowed|ENOENT/i.test(line))
					.slice(0, 3)
					.join(' | ')}`,
			);
		await fs.rm(probe, { force: true });
	} finally {
		await fs.rm(inUserFolder, { recursive: true, force: true });
	}
	return problems;
}

/** n8n's own nodes only: a Manual Trigger, a JSON file made of its item, the file written where the examples write. */
const PROBE: Workflow = {
	id: 'newcomerFileProbe',
	name: 'File access probe (e2e)',
	active: false,
	settings: { executionOrder: 'v1' },
	nodes: [
		{
			id: 'start',
			name: 'Start',
			type: MANUAL_TRIGGER,
			typeVersion: 1,
			position: [0, 0],
			parameters: {},
		},
		{
			id: 'file',
			name: 'Make file',
			type: 'n8n-nodes-base.convertToFile',
			typeVersion: 1.1,
			position: [220, 0],
			parameters: { operation: 'toJson', options: {} },
		},
		{
			id: 'write',
			name: 'Write',
			type: 'n8n-nodes-base.readWriteFile',
			typeVersion: 1,
			position: [440, 0],
			parameters: { operation: 'write', fileName: '=.n8n-files/probe.json', options: {} },
		},
	],
	connections: {
		Start: { main: [[{ node: 'Make file', type: 'main', index: 0 }]] },
		'Make file': { main: [[{ node: 'Write', type: 'main', index: 0 }]] },
	},
};
