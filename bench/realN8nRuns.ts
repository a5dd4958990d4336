import { spawn, type ChildProcess, type SpawnOptions } from 'child_process';
import { closeSync, openSync, readFileSync, statSync } from 'fs';
import path from 'path';

import type { Prepared } from '../scripts/n8n/setup';
import { median, PeakSampler } from './processMemory';

/**
 * What the real-n8n benches share: `n8n execute` of an imported workflow with its memory sampled,
 * a node's own time and items read from what it printed, and the memory cgroup (v1) a run is
 * measured in: its peak, its OOM kills, and a child started inside it.
 */

/** Starts `command` inside the memory cgroup `cgroup` (a folder under /sys/fs/cgroup/memory), or plainly. */
export function spawnIn(
	cgroup: string | undefined,
	command: string,
	args: string[],
	options: SpawnOptions,
): ChildProcess {
	if (!cgroup) return spawn(command, args, options);
	// The shell joins the group, then becomes the command (same pid): nothing runs outside it.
	return spawn(
		'/bin/sh',
		['-c', 'echo $$ > "$0/cgroup.procs" && exec "$@"', cgroup, command, ...args],
		options,
	);
}

/** What one `n8n execute` did: its exit, peak RSS, wall time, and what it printed (in a file). */
export interface CliRun {
	code: number | null;
	peak: number;
	samples: number;
	seconds: number;
	stdoutBytes: number;
	stdoutFile: string;
}

/** `n8n execute --id=<id> --rawOutput`, its stdout to a file (it can be hundreds of MB), its memory sampled. */
export async function executeMeasured(
	prepared: Prepared,
	env: NodeJS.ProcessEnv,
	workflowId: string,
	label: string,
	/** The memory cgroup to run in; options for n8n's Node itself (those NODE_OPTIONS refuses). */
	where: { cgroup?: string; nodeArgs?: string[] } = {},
): Promise<CliRun> {
	const stdoutFile = path.join(prepared.workFolder, `${label}.out`);
	const fd = openSync(stdoutFile, 'w');
	const started = Date.now();
	const child = spawnIn(
		where.cgroup,
		prepared.runtime.node,
		[
			...(where.nodeArgs ?? []),
			prepared.runtime.n8nBin,
			'execute',
			`--id=${workflowId}`,
			'--rawOutput',
		],
		{
			env,
			cwd: env.N8N_USER_FOLDER,
			stdio: ['ignore', fd, 'pipe'],
		},
	);
	const stderr: string[] = [];
	child.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk.toString('utf8')));
	const sampler = new PeakSampler(child.pid!, 50);
	const code = await new Promise<number | null>((resolve) => {
		// The last samples are taken as the process ends: the kernel's peak mark holds the peak.
		child.once('exit', (exitCode) => resolve(exitCode));
	});
	const { peak, samples } = sampler.stop();
	closeSync(fd);
	const stdoutBytes = statSync(stdoutFile).size;
	if (code !== 0) {
		const tail = `${readFileSync(stdoutFile, 'utf8').slice(-3000)}\n${stderr.join('')}`
			.split('\n')
			.filter((line) => /error|fail|message/i.test(line));
		throw new Error(`n8n execute of ${label} exited with ${code}: ${tail.slice(0, 8).join(' | ')}`);
	}
	return { code, peak, samples, seconds: (Date.now() - started) / 1000, stdoutBytes, stdoutFile };
}

/**
 * A node's own executionTime (ms) in the run `n8n execute` printed, found in the bytes without
 * parsing them (the output of 50,000 items is too large for one string): the first
 * `"executionTime"` after the node's entry in runData.
 */
export function nodeTimeInOutput(file: string, nodeName: string): number | undefined {
	const bytes = readFileSync(file);
	const entry = bytes.indexOf(Buffer.from(`${JSON.stringify(nodeName)}: [`));
	if (entry < 0) return undefined;
	const at = bytes.indexOf(Buffer.from('"executionTime": '), entry);
	if (at < 0) return undefined;
	return Number(/^"executionTime": (\d+)/.exec(bytes.subarray(at, at + 40).toString('utf8'))?.[1]);
}

/** The items a node output in that run, counted by parsing it (only for outputs small enough). */
export function nodeItems(
	file: string,
	nodeName: string,
): Array<Record<string, unknown>> | undefined {
	const text = readFileSync(file, 'utf8');
	const start = text.search(/^\{\s*$\n^\s+"data": /m);
	if (start < 0) return undefined;
	const end = text.indexOf('\n}', start);
	const run = JSON.parse(text.slice(start, end < 0 ? undefined : end + 2)) as {
		data: {
			resultData: {
				runData: Record<
					string,
					Array<{ data?: { main?: Array<Array<{ json: Record<string, unknown> }> | null> } }>
				>;
			};
		};
	};
	return run.data.resultData.runData[nodeName]?.[0]?.data?.main?.[0]?.map((item) => item.json);
}

export const range = (values: number[], format: (value: number) => string) =>
	`median ${format(median(values))} (range ${format(Math.min(...values))} .. ${format(Math.max(...values))}, ${values.length} runs)`;

/** The memory cgroup (v1) this process runs in, if it has a limit: where its peak and OOM count are read. */
export function memoryCgroup(): string | undefined {
	const line = readFileSync('/proc/self/cgroup', 'utf8')
		.split('\n')
		.find((entry) => /^\d+:memory:/.test(entry));
	const folder = line && path.join('/sys/fs/cgroup/memory', line.split(':')[2]);
	if (!folder) return undefined;
	const limit = Number(readFileSync(path.join(folder, 'memory.limit_in_bytes'), 'utf8'));
	return limit < 2 ** 50 ? folder : undefined;
}

export const cgroupValue = (folder: string, file: string) =>
	Number(readFileSync(path.join(folder, file), 'utf8').trim().split('\n')[0].replace(/^\D+/, ''));

/** OOM kills so far in the group (the kernel's oom_kill counter, where it has one). */
export function oomKills(cgroup: string): number {
	const match = /oom_kill (\d+)/.exec(
		readFileSync(path.join(cgroup, 'memory.oom_control'), 'utf8'),
	);
	return match ? Number(match[1]) : 0;
}
