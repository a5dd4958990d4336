import { createHash } from 'crypto';
import {
	createReadStream,
	existsSync,
	mkdirSync,
	promises as fs,
	readFileSync,
	writeFileSync,
} from 'fs';
import path from 'path';

import type { Workflow } from '../scripts/n8n/examples';
import { importIntoN8n } from '../scripts/n8n/examples';
import { environmentFor, prepare } from '../scripts/n8n/setup';
import { exampleCredentialId, exampleCredentialName } from '../test/harness/sandboxCredentials';
import { startSandbox } from '../test/sandbox/server';
import { databaseControls } from '../test/sandbox/services/database';
import { fullGeolocationArchive } from './downloadData';
import { median, mib } from './processMemory';
import {
	cgroupValue,
	executeMeasured,
	nodeItems,
	nodeTimeInOutput,
	oomKills,
	spawnIn,
} from './realN8nRuns';

/**
 * `node .out/bench/realN8nDownload.js` (after `npm run build && npm run build:tools`): the IP
 * Database Download node in a real n8n 2.41.1 (`n8n execute`, filesystem binary mode) inside n8n
 * Cloud's Pro-1 memory, against the shell pipeline a user would write instead, in the same memory
 * cgroup, from the same server, in the same process tree: the full geolocation CSV archive
 * (bench/downloadData.ts) served by the sandbox behind the download endpoint's redirect (a 302 to the link).
 *
 *  - Database File output against `curl -sSfL URL | tee >(sha256sum) | tar xzO FILE | tee FILE | sha256sum`
 *  - Archive output against `curl -sSfL URL | tee ARCHIVE | tar xzO FILE | sha256sum`
 *
 * The node's time is its own executionTime in the run n8n printed (the link request included, as
 * curl follows the redirect); the pipeline's is its wall time. Each round runs the four one after
 * another, the order flipped every round (the machine is shared); printed: each round's ratios
 * and their median, the node's peak RSS, the cgroup's peak and its OOM kills. After each node run
 * (untimed) the file n8n stored is read back and held to the database file's or the archive's
 * SHA-256. Every file written is removed first and after.
 *
 * The cgroup: as root on cgroup v1, a new group under this process's own memory group with
 * BENCH_CGROUP_MIB (default 640, Pro-1) as its limit, removed at the end; BENCH_CGROUP=none runs
 * without one. BENCH_ROUNDS (default 5). BENCH_CPU_PROF=1 writes a V8 CPU profile of each node run
 * (NODE_OPTIONS=--cpu-prof) into the cache folder's bench/profiles, BENCH_KEEP_OUTPUT=1 what each
 * `n8n execute` printed; BENCH_N8N_NODE_ARGS options for the Node that runs it (--trace-gc).
 */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const LIMIT_MIB = Number(process.env.BENCH_CGROUP_MIB ?? 640);
const NODE = 'IP Database Download';

const log = (line: string) => console.log(line);

/** A memory cgroup (v1) of its own under this process's group, with the Pro-1 limit. */
function makeCgroup(): string | undefined {
	if (process.env.BENCH_CGROUP === 'none') return undefined;
	const line = readFileSync('/proc/self/cgroup', 'utf8')
		.split('\n')
		.find((entry) => /^\d+:memory:/.test(entry));
	if (!line) throw new Error('No memory cgroup (v1) here: run with BENCH_CGROUP=none');
	const folder = path.join(
		'/sys/fs/cgroup/memory',
		line.split(':')[2],
		`abstractapi-download-${process.pid}`,
	);
	// mkdir on cgroupfs makes the group; the kernel fills it with its control files.
	mkdirSync(folder);
	writeFileSync(path.join(folder, 'memory.limit_in_bytes'), String(LIMIT_MIB * 1024 * 1024));
	return folder;
}

function downloadWorkflow(id: string, output: 'databaseFile' | 'archive'): Workflow {
	return {
		id,
		name: `Bench: IP Database Download, ${output}`,
		nodes: [
			{
				name: 'Run',
				type: 'n8n-nodes-base.manualTrigger',
				typeVersion: 1,
				position: [0, 0],
				parameters: {},
			},
			{
				name: NODE,
				type: 'n8n-nodes-abstractapi.abstractIpDatabase',
				typeVersion: 1,
				position: [200, 0],
				parameters: { database: 'ip-geolocation', format: 'csv', output },
				credentials: {
					abstractIpIntelligenceApi: {
						id: exampleCredentialId('abstractIpIntelligenceApi'),
						name: exampleCredentialName('abstractIpIntelligenceApi'),
					},
				},
			},
		],
		connections: { Run: { main: [[{ node: NODE, type: 'main', index: 0 }]] } },
		settings: { executionOrder: 'v1' },
	};
}

/** The shell pipeline in the cgroup: its wall time, and the SHA-256 sums it printed. */
async function shell(
	cgroup: string | undefined,
	script: string,
	env: NodeJS.ProcessEnv,
): Promise<number> {
	const started = performance.now();
	const child = spawnIn(cgroup, '/bin/bash', ['-c', `set -o pipefail; ${script}`], {
		env: { ...process.env, ...env },
		stdio: ['ignore', 'ignore', 'pipe'],
	});
	const stderr: string[] = [];
	child.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk.toString()));
	const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
	if (code !== 0) throw new Error(`The shell pipeline failed (${code}): ${stderr.join('')}`);
	return performance.now() - started;
}

const sumIn = (file: string) => readFileSync(file, 'utf8').split(/\s/)[0];

/** The SHA-256 of the largest file n8n stored under its binary data folders (after the run, untimed). */
async function largestStoredSha256(folders: string[]): Promise<string | undefined> {
	let largest: { file: string; size: number } | undefined;
	for (const folder of folders.filter((each) => existsSync(each))) {
		for (const entry of await fs.readdir(folder, { recursive: true, withFileTypes: true })) {
			if (!entry.isFile()) continue;
			const file = path.join(entry.parentPath, entry.name);
			const { size } = await fs.stat(file);
			if (!largest || size > largest.size) largest = { file, size };
		}
	}
	if (!largest) return undefined;
	const hash = createHash('sha256');
	for await (const chunk of createReadStream(largest.file)) hash.update(chunk as Buffer);
	return hash.digest('hex');
}

async function main(): Promise<void> {
	const archive = await fullGeolocationArchive(log);
	const prepared = await prepare('bench-download', log);
	const sandbox = await startSandbox({});
	const cgroup = makeCgroup();
	const scratch = path.join(prepared.workFolder, 'shell');
	const profiles = path.join(path.dirname(archive.file), 'profiles');
	try {
		const archiveBytes = await fs.readFile(archive.file);
		const archiveSha256 = createHash('sha256').update(archiveBytes).digest('hex');
		databaseControls(sandbox).serve({ ...archive, bytes: archiveBytes });
		const env = {
			...(await environmentFor(prepared)),
			N8N_DEFAULT_BINARY_DATA_MODE: 'filesystem',
			NODE_OPTIONS: [
				process.env.BENCH_CPU_PROF ? `--cpu-prof --cpu-prof-dir=${profiles}` : '',
			].join(' '),
		};
		await importIntoN8n(
			prepared.runtime,
			env,
			sandbox,
			[
				downloadWorkflow('benchDownloadFile', 'databaseFile'),
				downloadWorkflow('benchDownloadArchive', 'archive'),
			],
			{ requestsPerSecond: 0 },
		);
		const query = new URLSearchParams({
			api_key: sandbox.keys.api,
			database: 'ip-geolocation',
			format: 'csv',
		});
		const shellEnv = {
			URL: `${sandbox.baseUrls.api}/v1/database/download/?${query}`,
			OUT: scratch,
			FILE: archive.databaseFileName,
		};
		// n8n 2.x keeps execution files under storage/workflows (binaryData/ before, and where it exists).
		const storedFolders = [
			path.join(prepared.userFolder, '.n8n', 'binaryData'),
			path.join(prepared.userFolder, '.n8n', 'storage', 'workflows'),
		];
		log(
			`IP database download, n8n ${prepared.runtime.n8nVersion} (filesystem binary mode) against the shell, ${cgroup ? `in a ${LIMIT_MIB} MiB memory cgroup (${cgroup})` : 'in no memory cgroup'}: ` +
				`${archive.fileName} ${mib(archive.bytes)}, ${archive.databaseFileName} ${mib(archive.databaseFileSize)}; ${ROUNDS} rounds`,
		);

		const fresh = async () => {
			await fs.rm(scratch, { recursive: true, force: true });
			await fs.mkdir(scratch, { recursive: true });
			for (const folder of storedFolders) await fs.rm(folder, { recursive: true, force: true });
		};
		const runShell = async (kind: 'file' | 'archive') => {
			await fresh();
			const ms = await shell(
				cgroup,
				kind === 'file'
					? 'curl -sSfL "$URL" | tee >(sha256sum > "$OUT/archive.sum") | tar xzO "$FILE" | tee "$OUT/$FILE" | sha256sum > "$OUT/file.sum"'
					: 'curl -sSfL "$URL" | tee "$OUT/archive.tar.gz" | tar xzO "$FILE" | sha256sum > "$OUT/file.sum"',
				shellEnv,
			);
			if (sumIn(path.join(scratch, 'file.sum')) !== archive.sha256)
				throw new Error(`The shell pipeline (${kind}) printed another checksum`);
			return ms;
		};
		const runNode = async (kind: 'file' | 'archive', label: string) => {
			await fresh();
			const killsBefore = cgroup ? oomKills(cgroup) : 0;
			if (cgroup) writeFileSync(path.join(cgroup, 'memory.max_usage_in_bytes'), '0');
			const run = await executeMeasured(
				prepared,
				env,
				kind === 'file' ? 'benchDownloadFile' : 'benchDownloadArchive',
				label,
				{ cgroup, nodeArgs: (process.env.BENCH_N8N_NODE_ARGS ?? '').split(' ').filter(Boolean) },
			).catch((error: Error) => {
				const killed = cgroup && oomKills(cgroup) > killsBefore;
				throw new Error(killed ? `${label}: OOM-killed in the cgroup` : error.message);
			});
			const json = nodeItems(run.stdoutFile, NODE)?.[0];
			if (json?.sha256 !== archive.sha256)
				throw new Error(`${label}: the node output ${JSON.stringify(json)}`);
			// What n8n stored, byte for byte: the database file, or the archive as served.
			const stored = await largestStoredSha256(storedFolders);
			const expected = kind === 'file' ? archive.sha256 : archiveSha256;
			if (stored !== expected)
				throw new Error(`${label}: n8n stored a file of SHA-256 ${stored}, not ${expected}`);
			const ms = nodeTimeInOutput(run.stdoutFile, NODE) ?? NaN;
			if (process.env.BENCH_KEEP_OUTPUT) {
				await fs.mkdir(profiles, { recursive: true });
				await fs.copyFile(run.stdoutFile, path.join(profiles, `${label}.out`));
			}
			await fs.rm(run.stdoutFile);
			return {
				ms,
				peak: run.peak,
				cgroupPeak: cgroup ? cgroupValue(cgroup, 'memory.max_usage_in_bytes') : 0,
				kills: cgroup ? oomKills(cgroup) - killsBefore : 0,
			};
		};

		const ratios = { file: [] as number[], archive: [] as number[] };
		const times = { file: [] as number[], archive: [] as number[] };
		const shells = { file: [] as number[], archive: [] as number[] };
		const peaks: number[] = [];
		const groupPeaks: number[] = [];
		let kills = 0;
		for (let round = 1; round <= ROUNDS; round++) {
			for (const kind of ['file', 'archive'] as const) {
				const shellFirst = round % 2 === 1;
				const shellMs = shellFirst ? await runShell(kind) : NaN;
				const node = await runNode(kind, `${kind}-${round}`);
				const pipelineMs = shellFirst ? shellMs : await runShell(kind);
				ratios[kind].push(node.ms / pipelineMs);
				times[kind].push(node.ms);
				shells[kind].push(pipelineMs);
				peaks.push(node.peak);
				groupPeaks.push(node.cgroupPeak);
				kills += node.kills;
				log(
					`  round ${round}, ${kind === 'file' ? 'Database File' : 'Archive'}: node ${(node.ms / 1000).toFixed(2)} s, shell ${(pipelineMs / 1000).toFixed(2)} s: ${(node.ms / pipelineMs).toFixed(2)}x; ` +
						`n8n execute peak RSS ${mib(node.peak)}${cgroup ? `, cgroup peak ${mib(node.cgroupPeak)}, OOM kills ${node.kills}` : ''}`,
				);
			}
		}
		const seconds = (values: number[]) => `${(median(values) / 1000).toFixed(2)} s`;
		log(
			`\nDatabase File: node ${seconds(times.file)} against the shell's ${seconds(shells.file)} (medians); ratio median ${median(ratios.file).toFixed(2)}x (${ratios.file.map((ratio) => ratio.toFixed(2)).join(', ')}); goal <= 1.5x: ${median(ratios.file) <= 1.5 ? 'met' : 'NOT met'}` +
				`\nArchive: node ${seconds(times.archive)} against the shell's ${seconds(shells.archive)} (medians); ratio median ${median(ratios.archive).toFixed(2)}x (${ratios.archive.map((ratio) => ratio.toFixed(2)).join(', ')}); goal <= 1.0x: ${median(ratios.archive) <= 1 ? 'met' : 'NOT met'}` +
				`\nn8n execute peak RSS ${mib(Math.max(...peaks))} at most${cgroup ? `; cgroup peak (page cache included) ${mib(Math.max(...groupPeaks))} of ${LIMIT_MIB} MiB; OOM kills ${kills}` : ''}` +
				(process.env.BENCH_CPU_PROF ? `\nCPU profiles in ${profiles}` : ''),
		);
	} finally {
		await sandbox.close();
		await fs.rm(prepared.workFolder, { recursive: true, force: true });
		if (cgroup && existsSync(cgroup)) await fs.rmdir(cgroup).catch(() => undefined);
	}
}

main().then(
	() => process.exit(0),
	(error: Error) => {
		console.error(`The download bench could not run: ${error.stack ?? error.message}`);
		process.exit(1);
	},
);
