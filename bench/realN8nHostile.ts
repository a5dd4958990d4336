import { spawn } from 'child_process';
import {
	closeSync,
	existsSync,
	mkdirSync,
	openSync,
	promises as fs,
	readFileSync,
	rmdirSync,
	writeFileSync,
} from 'fs';
import path from 'path';

import type { Workflow } from '../scripts/n8n/examples';
import type { Prepared } from '../scripts/n8n/setup';
import { lineOfCommas } from '../test/hostileFiles/craftedCsv';
import { metadataPointerBomb, recordPointerBomb } from '../test/hostileFiles/craftedMmdb';
import { databaseFileOf } from '../test/sandbox/ipDatabases/archives';
import { mib, PeakSampler } from './processMemory';
import { bulkEmailWorkflow, logLookupWorkflow, lookupWorkflow } from './realN8nWorkflows';

/**
 * Part "hostile" of `npm run bench:n8n`: files crafted to take n8n down (test/hostileFiles/),
 * each given to a node by the workflow a user builds (Read/Write Files, then the node), run by
 * `n8n execute` in a memory cgroup of n8n Cloud Starter's 320 MiB (cgroup v1, made for the run,
 * which needs root; without it the runs are not limited and say so). Each must end in the
 * node's clear error with the process alive; printed: its exit, the error, its peak RSS, the
 * group's peak and OOM kills, against the same workflow on a good file.
 */

const STARTER = 320 * 1024 * 1024;

interface HostileCase {
	label: string;
	workflow: Workflow;
	/** The node's error the run must end in; undefined for the good file it is set against. */
	expected?: RegExp;
}

/** Writes the crafted files into ~/.n8n-files and returns the cases' workflows. */
export async function hostileCases(filesFolder: string): Promise<HostileCase[]> {
	const write = async (name: string, bytes: Buffer) =>
		await fs.writeFile(path.join(filesFolder, name), bytes);
	await write('commas-email.csv', lineOfCommas(30_000_000, 'email\n'));
	await write('commas-log.csv', lineOfCommas(30_000_000, 'ip\n'));
	await write('commas-database.csv', lineOfCommas(30_000_000, 'network'));
	await write('record-bomb.mmdb', recordPointerBomb());
	await write('metadata-bomb.mmdb', metadataPointerBomb());
	const rows = (header: string, row: (index: number) => string) =>
		Buffer.from(`${header}\n${Array.from({ length: 10 }, (_, index) => row(index)).join('\n')}\n`);
	await write(
		'hostile-leads-10.csv',
		rows('email', (index) => `lead${index}@example.com`),
	);
	await write(
		'hostile-log-10.csv',
		rows('ip', (index) => `1.2.3.${index}`),
	);
	await write('hostile-tiny.mmdb', databaseFileOf('ip-asn', 'mmdb', 1));
	const cells = /has more than 16,384 cells/;
	const bound = /decodes to more than 64 KiB/;
	return [
		{
			label: 'Email, 10 good leads',
			workflow: bulkEmailWorkflow('benchHostileLeads', 'hostile-leads-10.csv', 'items', {}),
		},
		{
			label: 'Email, a 30 MB line of commas',
			workflow: bulkEmailWorkflow('benchHostileCommasEmail', 'commas-email.csv', 'items', {}),
			expected: cells,
		},
		{
			label: 'IP Database Lookup, a 10-line log',
			workflow: logLookupWorkflow('benchHostileLog', 'hostile-tiny.mmdb', 'hostile-log-10.csv'),
		},
		{
			label: 'IP Database Lookup, a 30 MB line of commas as the log',
			workflow: logLookupWorkflow('benchHostileCommasLog', 'hostile-tiny.mmdb', 'commas-log.csv'),
			expected: cells,
		},
		{
			label: 'IP Database Lookup, a 30 MB line of commas as a CSV database',
			workflow: lookupWorkflow('benchHostileCommasDatabase', 'commas-database.csv', ['1.2.3.4']),
			expected: cells,
		},
		{
			label: 'IP Database Lookup, an MMDB record of 100,000 pointers to 16 KiB',
			workflow: lookupWorkflow('benchHostileRecordBomb', 'record-bomb.mmdb', ['1.2.3.4']),
			expected: bound,
		},
		{
			label: 'IP Database Lookup, an MMDB metadata of 50,000 pointers to 16 KiB',
			workflow: lookupWorkflow('benchHostileMetadataBomb', 'metadata-bomb.mmdb', ['1.2.3.4']),
			expected: bound,
		},
	];
}

/** A memory cgroup (v1) of Starter's size for the runs, or undefined where one cannot be made. */
function starterGroup(): string | undefined {
	const folder = `/sys/fs/cgroup/memory/abstractapi-starter-${process.pid}`;
	try {
		mkdirSync(folder);
		writeFileSync(path.join(folder, 'memory.limit_in_bytes'), String(STARTER));
		return folder;
	} catch {
		return undefined;
	}
}

const groupValue = (folder: string, file: string) => readFileSync(path.join(folder, file), 'utf8');
const oomKills = (folder: string) =>
	Number(/oom_kill (\d+)/.exec(groupValue(folder, 'memory.oom_control'))?.[1] ?? 0);

/** `n8n execute` of one workflow in the group (its shell joins it, then becomes n8n). */
async function executeIn(
	prepared: Prepared,
	env: NodeJS.ProcessEnv,
	group: string | undefined,
	workflowId: string,
) {
	const stdoutFile = path.join(prepared.workFolder, `${workflowId}.out`);
	const fd = openSync(stdoutFile, 'w');
	const args = [prepared.runtime.n8nBin, 'execute', `--id=${workflowId}`, '--rawOutput'];
	const child = group
		? spawn(
				'sh',
				['-c', `echo $$ > ${group}/cgroup.procs && exec "$0" "$@"`, prepared.runtime.node, ...args],
				{
					env,
					cwd: env.N8N_USER_FOLDER,
					stdio: ['ignore', fd, 'pipe'],
				},
			)
		: spawn(prepared.runtime.node, args, {
				env,
				cwd: env.N8N_USER_FOLDER,
				stdio: ['ignore', fd, 'pipe'],
			});
	let stderr = '';
	child.stderr?.on(
		'data',
		(chunk: Buffer) => (stderr = (stderr + chunk.toString('utf8')).slice(-20_000)),
	);
	const sampler = new PeakSampler(child.pid!, 50);
	const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
		child.once('exit', (exitCode, exitSignal) => resolve([exitCode, exitSignal])),
	);
	const { peak } = sampler.stop();
	closeSync(fd);
	const printed = `${readFileSync(stdoutFile, 'utf8').slice(-200_000)}\n${stderr}`;
	await fs.rm(stdoutFile);
	return { code, signal, peak, printed };
}

export async function hostileFiles(
	prepared: Prepared,
	env: NodeJS.ProcessEnv,
	cases: HostileCase[],
	result: (line: string) => void,
): Promise<void> {
	const group = starterGroup();
	console.log(
		`\n== Hostile files, each run by n8n execute ${group ? `in a memory cgroup of ${mib(STARTER)} (n8n Cloud Starter)` : 'NOT in a memory cgroup (one needs root and cgroup v1 here)'} ==`,
	);
	try {
		for (const hostile of cases) {
			if (group) writeFileSync(path.join(group, 'memory.max_usage_in_bytes'), '0');
			const killsBefore = group ? oomKills(group) : 0;
			const run = await executeIn(prepared, env, group, hostile.workflow.id!);
			const killed = group ? oomKills(group) - killsBefore : 0;
			const groupPeak = group ? Number(groupValue(group, 'memory.max_usage_in_bytes')) : undefined;
			const error = hostile.expected ? hostile.expected.exec(run.printed)?.[0] : undefined;
			const fatal = /FATAL ERROR|heap out of memory/.test(run.printed);
			const verdict = hostile.expected
				? error && !fatal && killed === 0 && run.signal === null
					? "the node's clear error"
					: `NOT the node's error (exit ${run.code}, signal ${run.signal}, ${killed} OOM kills${fatal ? ', a fatal heap error' : ''})`
				: run.code === 0
					? 'succeeded'
					: `FAILED (exit ${run.code}, signal ${run.signal})`;
			result(
				`${hostile.label}: ${verdict}${error ? ` ("${error}")` : ''}; n8n execute's peak RSS ${mib(run.peak)}${groupPeak !== undefined ? `, the group's peak (page cache included) ${mib(groupPeak)}` : ''}; exit ${run.code}`,
			);
		}
	} finally {
		if (group) await removeGroup(group);
	}
}

/** Removes the group once the kernel lets go of it (it stays busy a moment after its last process exits). */
async function removeGroup(group: string): Promise<void> {
	for (let tries = 0; tries < 50 && existsSync(group); tries++) {
		try {
			rmdirSync(group);
		} catch {
			await new Promise((resolve) => setTimeout(resolve, 100));
		}
	}
	if (existsSync(group))
		console.log(`  The memory cgroup ${group} could not be removed: rmdir it.`);
}
