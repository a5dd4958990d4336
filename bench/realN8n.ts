import { spawn } from 'child_process';
import { openSync, closeSync, promises as fs, readFileSync, statSync } from 'fs';
import { createRequire } from 'module';
import path from 'path';

import { importIntoN8n, type Workflow } from '../scripts/n8n/examples';
import { LOCAL_OWNER, n8nCommand, signIn, startServer, type Server } from '../scripts/n8n/instance';
import { assertSucceeded } from '../scripts/n8n/processes';
import { environmentFor, prepare, ROOT, type Prepared } from '../scripts/n8n/setup';
import { databaseFileOf } from '../test/sandbox/ipDatabases/archives';
import { randomIpv4 } from '../test/sandbox/ipDatabases/addresses';
import { random32 } from '../test/sandbox/random';
import { startSandbox, type Sandbox } from '../test/sandbox/server';
import { addresses as csvAddresses, csvChunks } from './ipLookupData';
import { tinyCsv } from './ipLookupMemory';
import { hostileCases, hostileFiles } from './realN8nHostile';
import { mmdbTwin } from './realN8nTwins';
import { median, mib, MIB, PeakSampler, readMemory, resetPeak } from './processMemory';
import {
	bulkEmailWorkflow,
	EMAIL_NODE,
	FLOOR_NODE,
	floorWorkflow,
	LOOKUP_NODE,
	logLookupWorkflow,
	lookupWorkflow,
	type OutputMode,
} from './realN8nWorkflows';
import { DATABASE_ROWS, fullDatabase, LOG_LINES, logChunks, writeChunks } from './ipLookupLog';

/**
 * `npm run bench:n8n`: memory and time of the package in a real n8n 2.41.1 (the e2e's runtime,
 * scripts/n8n/*), in filesystem binary mode (N8N_DEFAULT_BINARY_DATA_MODE=filesystem, set here
 * explicitly), with a fresh user folder and the packed package installed, against the sandbox.
 * Not part of `npm test`: it prints the IP lookup and bulk CSV memory figures, it asserts nothing.
 *
 *  1. IP lookup memory: 10,000 lookups in MaxMind's GeoLite2-City.mmdb and in the
 *     1,000,000-row geolocation CSV of bench/ipLookupData.ts, each read from ~/.n8n-files by
 *     Read/Write Files, run with `n8n execute` as the e2e runs workflows. Measured: the peak RSS
 *     of that `n8n execute` process (its /proc status sampled every 50 ms, and its kernel peak
 *     mark VmHWM) on the real file, less the same on the same workflow over a small file, over
 *     the real file's size; median of BENCH_N8N_RUNS (3) runs. Two small files: the sandbox's
 *     tiny build of the format (most lookups miss, so the items are smaller: the difference counts
 *     the answers too), and a file whose answers are as large (MMDB: a twin holding exactly the
 *     real file's networks and records for these addresses; CSV: the n8n-core bench's tiny CSV),
 *     whose difference is what holding and reading the file costs. `n8n execute` prints the whole
 *     run data at its end (JSON): that string is part of both peaks, and its size is printed.
 *  2. The database cache across executions: a fresh `n8n start` per address count (10,000, and
 *     10 where the node's time is mostly the file's), the lookup workflow (webhook-started) on the
 *     answers-alike file, then twice on the real file; the lookup node's own executionTime of each
 *     call (from the saved execution, REST API), and the server's peak RSS growth per call (its
 *     peak mark reset through /proc/<pid>/clear_refs before the call; V8 keeps the heap of
 *     earlier calls, so these growths are rough).
 *  3. Bulk CSV: a 50,000-row lead CSV (name,email; distinct emails) through the Email
 *     node (Input: CSV File) against an unpaced credential, one item per row and, where the node
 *     has it, Result File (written back to ~/.n8n-files); `n8n execute`'s peak RSS on 50,000 rows
 *     less on a 10-row file, and rows per second of the node's own executionTime. First its floor:
 *     50,000 requests (less 10) through n8n's own request helper by a node that does nothing else
 *     (bench/n8nFloor, loaded from N8N_CUSTOM_EXTENSIONS), what any node pays for the requests.
 *
 *  4. A month of access log (part "log"): the IP Database Lookup node on a 1,000,000-line log
 *     (bench/ipLookupLog.ts: IPv4 and IPv6, most addresses repeated) against the full
 *     geolocation database (1,000,000 networks), MMDB and CSV, Input: CSV File, Output: Result
 *     File written back to ~/.n8n-files; rows per second of the node's executionTime, and
 *     `n8n execute`'s peak RSS against the same workflow on a 10-line log. Run inside a memory
 *     cgroup (v1), it prints the group's peak too (reset before each run) and names an OOM kill.
 *     The databases come from the cache (made by `node .out/bench/ipLookupLog.js` or
 *     `npm run bench`; making the MMDB takes 1.2 GB, more than a Pro-1 cgroup holds).
 *
 *  5. Hostile files (part "hostile", bench/realN8nHostile.ts): crafted files that took n8n down,
 *     each run in a memory cgroup of n8n Cloud Starter's 320 MiB; the node's clear error, or not.
 *
 * Env: BENCH_N8N_RUNS (default 3), BENCH_N8N_PARTS (default "lookup,cache,bulk,log,hostile"), BENCH_N8N_MODES
 * (default "floor,items,resultFile"), BENCH_N8N_NODE_OPTIONS (NODE_OPTIONS for n8n, e.g. --max-old-space-size=256).
 */
const RUNS = Number(process.env.BENCH_N8N_RUNS ?? 3);
const PARTS = new Set((process.env.BENCH_N8N_PARTS ?? 'lookup,cache,bulk,log,hostile').split(','));
const LOOKUPS = 10_000;
const CSV_ROWS = 1_000_000;
const LEAD_ROWS = 50_000;
const SMALL_LEAD_ROWS = 10;
const CITY = path.join(ROOT, 'node_modules/geolite2/dbs/GeoLite2-City.mmdb');

const log = (line: string) => console.log(line);
const results: string[] = [];
const result = (line: string) => {
	results.push(line);
	log(line);
};

/** What one `n8n execute` did: its exit, peak RSS, wall time, and what it printed (in a file). */
interface CliRun {
	code: number | null;
	peak: number;
	samples: number;
	seconds: number;
	stdoutBytes: number;
	stdoutFile: string;
}

/** `n8n execute --id=<id> --rawOutput`, its stdout to a file (it can be hundreds of MB), its memory sampled. */
async function executeMeasured(
	prepared: Prepared,
	env: NodeJS.ProcessEnv,
	workflowId: string,
	label: string,
): Promise<CliRun> {
	const stdoutFile = path.join(prepared.workFolder, `${label}.out`);
	const fd = openSync(stdoutFile, 'w');
	const started = Date.now();
	const child = spawn(
		prepared.runtime.node,
		[prepared.runtime.n8nBin, 'execute', `--id=${workflowId}`, '--rawOutput'],
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
function nodeTimeInOutput(file: string, nodeName: string): number | undefined {
	const bytes = readFileSync(file);
	const entry = bytes.indexOf(Buffer.from(`${JSON.stringify(nodeName)}: [`));
	if (entry < 0) return undefined;
	const at = bytes.indexOf(Buffer.from('"executionTime": '), entry);
	if (at < 0) return undefined;
	return Number(/^"executionTime": (\d+)/.exec(bytes.subarray(at, at + 40).toString('utf8'))?.[1]);
}

/** The items a node output in that run, counted by parsing it (only for outputs small enough). */
function nodeItems(file: string, nodeName: string): Array<Record<string, unknown>> | undefined {
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

const range = (values: number[], format: (value: number) => string) =>
	`median ${format(median(values))} (range ${format(Math.min(...values))} .. ${format(Math.max(...values))}, ${values.length} runs)`;

/* ------------------------------ files in ~/.n8n-files ------------------------------ */

function* leadChunks(rows: number): Generator<Buffer> {
	let lines = ['name,email\n'];
	for (let row = 1; row <= rows; row++) {
		lines.push(`Lead ${row},lead.${row}@company-${row % 997}.com\n`);
		if (lines.length >= 10_000) {
			yield Buffer.from(lines.join(''));
			lines = [];
		}
	}
	yield Buffer.from(lines.join(''));
}

/* ------------------------------------ parts ------------------------------------ */

interface LookupCase {
	format: 'mmdb' | 'csv';
	real: string;
	/** The sandbox's tiny build of the format (test/sandbox/ipDatabases): most lookups miss. */
	tiny: string;
	/** A tiny file whose records are as large as the real file's (bench/ipLookupMemory.ts): the lookups hit. */
	alike: string;
	/** What the answers-alike file is, for the printout. */
	alikeIs: string;
	realBytes: number;
	addresses: string[];
}

async function lookupMemory(
	prepared: Prepared,
	env: NodeJS.ProcessEnv,
	cases: LookupCase[],
): Promise<void> {
	log(
		`\n== IP lookup memory: ${LOOKUPS} lookups per run, \`n8n execute\` per run, its peak RSS (real file) - its peak RSS (tiny file) ==`,
	);
	for (const lookup of cases) {
		const growths: number[] = [];
		const alikeGrowths: number[] = [];
		for (let run = 1; run <= RUNS; run++) {
			const tiny = await executeMeasured(
				prepared,
				env,
				`benchLookupTiny${lookup.format}`,
				`lookup-${lookup.format}-tiny-${run}`,
			);
			const alike = await executeMeasured(
				prepared,
				env,
				`benchLookupAlike${lookup.format}`,
				`lookup-${lookup.format}-alike-${run}`,
			);
			const real = await executeMeasured(
				prepared,
				env,
				`benchLookupReal${lookup.format}`,
				`lookup-${lookup.format}-real-${run}`,
			);
			const found = (file: string) =>
				nodeItems(file, LOOKUP_NODE)?.filter((item) => item.found !== false).length;
			const growth = real.peak - tiny.peak;
			const alikeGrowth = real.peak - alike.peak;
			growths.push(growth);
			alikeGrowths.push(alikeGrowth);
			const runs = [real, tiny, alike];
			log(
				`  ${lookup.format} run ${run}: peak ${mib(real.peak)} on ${lookup.real}, ${mib(tiny.peak)} on ${lookup.tiny}, ${mib(alike.peak)} on ${lookup.alike} -> ` +
					`growth ${mib(growth)} = ${(growth / lookup.realBytes).toFixed(2)}x the file over the sandbox's tiny file, ${mib(alikeGrowth)} = ${(alikeGrowth / lookup.realBytes).toFixed(2)}x over the answers-alike one`,
			);
			log(
				`    lookup node ${runs.map((one) => `${nodeTimeInOutput(one.stdoutFile, LOOKUP_NODE)} ms`).join(' / ')}; found ${runs.map((one) => found(one.stdoutFile)).join(' / ')} of ${LOOKUPS}; ` +
					`printed run data ${runs.map((one) => mib(one.stdoutBytes)).join(' / ')}; samples ${runs.map((one) => one.samples).join(' / ')} (real / sandbox tiny / answers-alike)`,
			);
			for (const one of runs) await fs.rm(one.stdoutFile);
		}
		const goal = lookup.format === 'mmdb' ? 1.2 : 0.25;
		const ratios = (values: number[]) => values.map((growth) => growth / lookup.realBytes);
		const ratioText = (value: number) => `${value.toFixed(2)}x`;
		result(
			`IP lookup, ${lookup.format} (${lookup.real}, ${mib(lookup.realBytes)}), 10,000 lookups, n8n execute's peak RSS growth:\n` +
				`    over the sandbox's tiny ${lookup.format} (most lookups miss): ${range(growths, mib)}; ratio ${range(ratios(growths), ratioText)}\n` +
				`    over a tiny ${lookup.format} whose answers are as large (${lookup.alikeIs}): ${range(alikeGrowths, mib)}; ratio ${range(ratios(alikeGrowths), ratioText)}; goal <= ${goal}x: ${median(ratios(alikeGrowths)) <= goal ? 'met' : 'NOT met'}`,
		);
	}
}

/** The saved execution of a webhook call, through the REST API the editor uses (its data is `flatted` JSON). */
async function lastExecution(
	server: Server,
	cookie: string,
	workflowId: string,
	parse: (text: string) => unknown,
	previousId?: string,
) {
	const filter = encodeURIComponent(JSON.stringify({ workflowId }));
	for (let attempt = 0; attempt < 40; attempt++) {
		const list = (await (
			await fetch(`${server.url}/rest/executions?filter=${filter}&limit=1`, { headers: { cookie } })
		).json()) as {
			data: { results: Array<{ id: string; status: string }> };
		};
		const latest = list.data.results[0];
		// A call's execution may be listed a moment after its webhook answered: not the previous call's.
		if (
			latest &&
			latest.id !== previousId &&
			latest.status !== 'running' &&
			latest.status !== 'new'
		) {
			const full = (await (
				await fetch(`${server.url}/rest/executions/${latest.id}`, { headers: { cookie } })
			).json()) as { data: { data: string } };
			return {
				id: latest.id,
				status: latest.status,
				data: parse(full.data.data) as {
					resultData: { runData: Record<string, Array<{ executionTime: number }>> };
				},
			};
		}
		await new Promise((resolve) => setTimeout(resolve, 500));
		if (attempt === 39)
			throw new Error(
				`no finished execution of ${workflowId}: ${JSON.stringify(list).slice(0, 500)}`,
			);
	}
	throw new Error(`no finished execution of ${workflowId}`);
}

/** The address counts of the cache runs: 10,000 as in the memory runs, and 10, where the node's time is mostly the file's. */
const CACHE_COUNTS = [LOOKUPS, 10];
/** Calls on the real file after the first (which parses it) in one server. */
const CACHED_CALLS = 3;

/** Fresh servers per address count: one for 10,000 addresses (slow), BENCH_N8N_RUNS for 10. */
async function cacheFigures(
	prepared: Prepared,
	env: NodeJS.ProcessEnv,
	cases: LookupCase[],
): Promise<void> {
	for (const count of CACHE_COUNTS) {
		const rounds = count === LOOKUPS ? 1 : RUNS;
		const all: Array<Awaited<ReturnType<typeof cacheAcrossExecutions>>> = [];
		for (let round = 1; round <= rounds; round++)
			all.push(await cacheAcrossExecutions(prepared, env, cases, count, round));
		for (const lookup of cases) {
			const firsts = all.map((figures) => figures[lookup.format].first);
			const agains = all.flatMap((figures) => figures[lookup.format].again);
			const ms = (value: number) => `${value.toFixed(0)} ms`;
			result(
				`Cache, ${lookup.format} (${mib(lookup.realBytes)}), ${count} lookups, lookup node's executionTime: first call on the file (parsed) ${range(firsts, ms)}; ` +
					`later calls in the same n8n (cached) ${range(agains, ms)}; server peak RSS growth in the first call ${range(
						all.map((figures) => figures[lookup.format].firstGrowth),
						mib,
					)}`,
			);
		}
	}
}

/**
 * For each count, a fresh `n8n start` (no cached database), and per format: the answers-alike
 * file once, then the real file twice, each by its webhook.
 */
async function cacheAcrossExecutions(
	prepared: Prepared,
	env: NodeJS.ProcessEnv,
	cases: LookupCase[],
	count: number,
	round: number,
): Promise<Record<string, { first: number; again: number[]; firstGrowth: number }>> {
	log(
		`\n== Database cache across executions, round ${round}: a fresh \`n8n start\`, the lookup workflow (${count} addresses) called ${CACHED_CALLS + 1} times per file by its webhook ==`,
	);
	const figures: Record<string, { first: number; again: number[]; firstGrowth: number }> = {};
	const lastIds = new Map<string, string>();
	const { parse } = createRequire(
		path.join(prepared.runtime.n8nDir, 'node_modules', 'n8n', 'package.json'),
	)('flatted') as { parse: (text: string) => unknown };
	const server = await startServer(prepared.runtime, env);
	try {
		const cookie = await signIn(server, LOCAL_OWNER);
		const pid = server.child.pid!;
		log(
			`  n8n start (pid ${pid}) ready; RSS ${mib(readMemory(pid)?.rss ?? 0)}; peak mark reset through clear_refs: ${resetPeak(pid) ? 'allowed' : 'REFUSED (figures are peaks since start)'}`,
		);
		for (const lookup of cases) {
			const calls: Array<{ label: string; workflowId: string; path: string }> = [
				{
					label: `answers-alike tiny ${lookup.format}`,
					workflowId: hookId('Alike', lookup.format, count),
					path: hookPath('alike', lookup.format, count),
				},
				{
					label: `${lookup.format} run 1`,
					workflowId: hookId('Real', lookup.format, count),
					path: hookPath('real', lookup.format, count),
				},
				...Array.from({ length: CACHED_CALLS }, (_, index) => ({
					label: `${lookup.format} run ${index + 2}`,
					workflowId: hookId('Real', lookup.format, count),
					path: hookPath('real', lookup.format, count),
				})),
			];
			const times: number[] = [];
			const growths: number[] = [];
			// n8n registers the published workflows' webhooks after it reports ready: wait for them.
			for (let attempt = 0; ; attempt++) {
				const probe = await fetch(`${server.url}/webhook/${calls[0].path}`, { method: 'HEAD' });
				if (probe.status !== 404 || attempt === 60) break;
				await new Promise((resolve) => setTimeout(resolve, 1000));
			}
			for (const call of calls) {
				resetPeak(pid);
				const before = readMemory(pid)?.rss ?? 0;
				const sampler = new PeakSampler(pid, 50);
				const started = Date.now();
				const response = await fetch(`${server.url}/webhook/${call.path}`, {
					method: 'POST',
					headers: { 'content-type': 'application/json' },
					body: '{}',
				});
				const body = await response.text();
				const seconds = (Date.now() - started) / 1000;
				if (response.status !== 200)
					throw new Error(`${call.label}: HTTP ${response.status}: ${body.slice(0, 300)}`);
				const execution = await lastExecution(
					server,
					cookie,
					call.workflowId,
					parse,
					lastIds.get(call.workflowId),
				);
				lastIds.set(call.workflowId, execution.id);
				const { peak } = sampler.stop();
				if (execution.status !== 'success')
					throw new Error(`${call.label}: execution ${execution.id} ended ${execution.status}`);
				const nodeMs = execution.data.resultData.runData[LOOKUP_NODE]?.[0]?.executionTime ?? NaN;
				times.push(nodeMs);
				growths.push(peak - before);
				log(
					`  ${call.label}: lookup node ${nodeMs} ms (call ${seconds.toFixed(1)} s); server RSS ${mib(before)} before, peak ${mib(peak)}: growth ${mib(peak - before)}`,
				);
			}
			figures[lookup.format] = { first: times[1], again: times.slice(2), firstGrowth: growths[1] };
		}
		return figures;
	} finally {
		await server.stop();
	}
}

const hookId = (file: 'Real' | 'Alike', format: string, count: number) =>
	`benchHook${file}${format}${count}`;
const hookPath = (file: 'real' | 'alike', format: string, count: number) =>
	`bench-${file}-${format}-${count}`;

/** Lines of the small log the big one's peak is set against. */
const SMALL_LOG_LINES = 10;

/** The memory cgroup (v1) this process runs in, if it has a limit: where its peak and OOM count are read. */
function memoryCgroup(): string | undefined {
	const line = readFileSync('/proc/self/cgroup', 'utf8')
		.split('\n')
		.find((entry) => /^\d+:memory:/.test(entry));
	const folder = line && path.join('/sys/fs/cgroup/memory', line.split(':')[2]);
	if (!folder) return undefined;
	const limit = Number(readFileSync(path.join(folder, 'memory.limit_in_bytes'), 'utf8'));
	return limit < 2 ** 50 ? folder : undefined;
}

const cgroupValue = (folder: string, file: string) =>
	Number(readFileSync(path.join(folder, file), 'utf8').trim().split('\n')[0].replace(/^\D+/, ''));

/** `n8n execute` of a log workflow, with the cgroup's peak reset before it and read after; an OOM kill named. */
async function executeLog(
	prepared: Prepared,
	env: NodeJS.ProcessEnv,
	workflowId: string,
	label: string,
	cgroup: string | undefined,
) {
	const killsBefore = cgroup ? oomKills(cgroup) : 0;
	if (cgroup)
		await fs.writeFile(path.join(cgroup, 'memory.max_usage_in_bytes'), '0').catch(() => undefined);
	try {
		const run = await executeMeasured(prepared, env, workflowId, label);
		return {
			...run,
			cgroupPeak: cgroup ? cgroupValue(cgroup, 'memory.max_usage_in_bytes') : undefined,
		};
	} catch (error) {
		const killed = cgroup && oomKills(cgroup) > killsBefore;
		throw new Error(
			`${label}: ${killed ? `OOM-killed in the ${mib(Number(readFileSync(path.join(cgroup, 'memory.limit_in_bytes'), 'utf8')))} cgroup` : (error as Error).message}`,
		);
	}
}

/** OOM kills so far in the group (the kernel's oom_kill counter, where it has one). */
function oomKills(cgroup: string): number {
	const match = /oom_kill (\d+)/.exec(
		readFileSync(path.join(cgroup, 'memory.oom_control'), 'utf8'),
	);
	return match ? Number(match[1]) : 0;
}

async function logLookup(
	prepared: Prepared,
	env: NodeJS.ProcessEnv,
	formats: Array<'mmdb' | 'csv'>,
): Promise<void> {
	const cgroup = memoryCgroup();
	const limit = cgroup
		? ` inside the memory cgroup ${cgroup} (limit ${mib(Number(readFileSync(path.join(cgroup, 'memory.limit_in_bytes'), 'utf8')))})`
		: ' (no memory cgroup limit)';
	log(
		`\n== A month of access log: ${LOG_LINES.toLocaleString('en-US')} lines vs ${SMALL_LOG_LINES} through IP Database Lookup (CSV File -> Result File -> Write Result)${limit} ==`,
	);
	for (const format of formats) {
		const rates: number[] = [];
		const growths: number[] = [];
		const peaks: number[] = [];
		const groupPeaks: number[] = [];
		/** Rows per second once the database is read: what a running n8n, which keeps the parsed database, does on its next log. */
		const netRates: number[] = [];
		for (let run = 1; run <= RUNS; run++) {
			const small = await executeLog(
				prepared,
				env,
				`benchLogSmall${format}`,
				`log-${format}-small-${run}`,
				cgroup,
			);
			const large = await executeLog(
				prepared,
				env,
				`benchLogLarge${format}`,
				`log-${format}-large-${run}`,
				cgroup,
			);
			const nodeMs = nodeTimeInOutput(large.stdoutFile, LOOKUP_NODE) ?? NaN;
			// The 10-line run's node time is mostly reading the database (each `n8n execute` is a new process: no cache).
			const smallMs = nodeTimeInOutput(small.stdoutFile, LOOKUP_NODE) ?? NaN;
			const summary = nodeItems(large.stdoutFile, LOOKUP_NODE)?.[0];
			const written = await fs
				.stat(path.join(prepared.filesFolder, `access-log-${LOG_LINES}-results.csv`))
				.then(
					(stat) => stat.size,
					() => -1,
				);
			if (summary?.rows !== LOG_LINES || written <= 0)
				throw new Error(
					`log ${format} run ${run}: the summary says ${String(summary?.rows)} rows, the result file ${written} bytes`,
				);
			rates.push(LOG_LINES / (nodeMs / 1000));
			netRates.push((LOG_LINES - SMALL_LOG_LINES) / ((nodeMs - smallMs) / 1000));
			growths.push(large.peak - small.peak);
			peaks.push(large.peak);
			if (large.cgroupPeak !== undefined) groupPeaks.push(large.cgroupPeak);
			log(
				`  ${format} run ${run}: lookup node ${nodeMs} ms = ${(LOG_LINES / (nodeMs / 1000)).toFixed(0)} rows/s (${String(summary.lookups)} lookups, the rest from the memo); ` +
					`on ${SMALL_LOG_LINES} lines ${smallMs} ms (reading the database), so ${netRates[netRates.length - 1].toFixed(0)} rows/s once it is read; ` +
					`n8n execute peak RSS ${mib(large.peak)} vs ${mib(small.peak)} on ${SMALL_LOG_LINES} lines: growth ${mib(large.peak - small.peak)}` +
					`${large.cgroupPeak !== undefined ? `; cgroup peak ${mib(large.cgroupPeak)} (10 lines: ${mib(small.cgroupPeak ?? 0)})` : ''}; result file ${mib(written)}; execute ${large.seconds.toFixed(1)} s`,
			);
			await fs.rm(large.stdoutFile);
			await fs.rm(small.stdoutFile);
		}
		result(
			`Log lookup, ${format} (${DATABASE_ROWS.toLocaleString('en-US')} networks), ${LOG_LINES.toLocaleString('en-US')} lines, Result File written: rows/s (lookup node's executionTime) ${range(rates, (value) => value.toFixed(0))}; ` +
				`goal >= 50,000: ${median(rates) >= 50_000 ? 'met' : 'NOT met'}; once the database is read (the node's time less its time on ${SMALL_LOG_LINES} lines) ${range(netRates, (value) => value.toFixed(0))}; n8n execute's peak RSS ${range(peaks, mib)}, growth over ${SMALL_LOG_LINES} lines ${range(growths, mib)}` +
				(groupPeaks.length > 0
					? `; cgroup peak (page cache included) ${range(groupPeaks, mib)} of ${cgroup ? mib(Number(readFileSync(path.join(cgroup, 'memory.limit_in_bytes'), 'utf8'))) : ''}`
					: ''),
		);
	}
}

/** The bulk part's runs: n8n's helper alone (the floor), then the Email node's outputs. */
type BulkMode = 'floor' | OutputMode;

async function bulkCsv(
	prepared: Prepared,
	env: NodeJS.ProcessEnv,
	sandbox: Sandbox,
	modes: BulkMode[],
): Promise<void> {
	log(
		`\n== Bulk CSV: ${LEAD_ROWS} rows vs ${SMALL_LEAD_ROWS} rows through the Email node, unpaced; n8n execute's peak RSS ==`,
	);
	const floorGrowths: number[] = [];
	for (const mode of modes) {
		const nodeName = mode === 'floor' ? FLOOR_NODE : EMAIL_NODE;
		const growths: number[] = [];
		const rates: number[] = [];
		/** Rows per second of the whole `n8n execute` (what the 50,000 rows add to the 10-row run's time): n8n's handling of the node's output included. */
		const workflowRates: number[] = [];
		for (let run = 1; run <= RUNS; run++) {
			sandbox.reset();
			const small = await executeMeasured(
				prepared,
				env,
				`benchBulkSmall${mode}`,
				`bulk-${mode}-small-${run}`,
			);
			const smallRequests = sandbox.requests('email').length;
			sandbox.reset();
			const large = await executeMeasured(
				prepared,
				env,
				`benchBulkLarge${mode}`,
				`bulk-${mode}-large-${run}`,
			);
			const requests = sandbox.requests('email').length;
			const nodeMs = nodeTimeInOutput(large.stdoutFile, nodeName) ?? NaN;
			const growth = large.peak - small.peak;
			growths.push(growth);
			rates.push(LEAD_ROWS / (nodeMs / 1000));
			workflowRates.push((LEAD_ROWS - SMALL_LEAD_ROWS) / (large.seconds - small.seconds));
			log(
				`  ${mode} run ${run}: peak ${mib(large.peak)} on ${LEAD_ROWS} rows vs ${mib(small.peak)} on ${SMALL_LEAD_ROWS} -> growth ${mib(growth)}; ` +
					`${nodeName} node ${nodeMs} ms = ${(LEAD_ROWS / (nodeMs / 1000)).toFixed(0)} rows/s; requests ${requests} (small: ${smallRequests}); execute ${large.seconds.toFixed(1)} s (10 rows: ${small.seconds.toFixed(1)} s); printed ${mib(large.stdoutBytes)} vs ${mib(small.stdoutBytes)}`,
			);
			if (mode === 'resultFile') {
				const written = path.join(prepared.filesFolder, `result-leads-${LEAD_ROWS}.csv`);
				const size = await fs.stat(written).then(
					(stat) => stat.size,
					() => -1,
				);
				log(`    result file ${written}: ${size < 0 ? 'NOT written' : mib(size)}`);
			}
			await fs.rm(large.stdoutFile);
			await fs.rm(small.stdoutFile);
		}
		if (mode === 'floor') floorGrowths.push(...growths);
		const label = {
			floor: "n8n's request helper alone (HTTP Floor: no CSV, no items, no file)",
			items: 'one item per row',
			resultFile: 'Result File',
		}[mode];
		const overFloor =
			mode !== 'floor' && floorGrowths.length > 0
				? `; ${mib(median(growths) - median(floorGrowths))} over the floor`
				: '';
		result(
			`Bulk CSV, ${label}: peak RSS growth ${LEAD_ROWS} ${mode === 'floor' ? 'requests' : 'rows'} over ${SMALL_LEAD_ROWS} ${range(growths, mib)}${overFloor}` +
				`${mode === 'resultFile' ? `; goal <= 150 MiB: ${median(growths) <= 150 * MIB ? 'met' : 'NOT met'}` : ''}; ${mode === 'floor' ? 'requests' : 'rows'}/s (${nodeName} node's executionTime) ${range(rates, (value) => value.toFixed(0))}` +
				`; whole execution (n8n execute, less its 10-row run) ${range(workflowRates, (value) => value.toFixed(0))}/s`,
		);
	}
}

/**
 * The Email node's parameters for Result File output, read from its built description, or
 * undefined while the node has no such output.
 */
function resultFileParameters(): Record<string, unknown> | undefined {
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	const { AbstractEmail } = require(
		path.join(ROOT, 'dist/nodes/AbstractEmail/AbstractEmail.node.js'),
	) as {
		AbstractEmail: new () => {
			description: {
				properties: Array<{ name: string; options?: Array<{ value?: unknown; name?: string }> }>;
			};
		};
	};
	for (const property of new AbstractEmail().description.properties) {
		const option = property.options?.find(
			(choice) => choice.value === 'resultFile' || /result file/i.test(String(choice.name ?? '')),
		);
		if (option?.value !== undefined) return { [property.name]: option.value };
	}
	return undefined;
}

async function main(): Promise<void> {
	const started = Date.now();
	const prepared = await prepare('bench-n8n', log);
	const sandbox = await startSandbox({});
	try {
		// The floor node (bench/n8nFloor), loaded by n8n from a custom extensions folder.
		const custom = path.join(prepared.workFolder, 'custom');
		await fs.mkdir(custom, { recursive: true });
		await fs.copyFile(
			path.join(__dirname, 'n8nFloor', 'HttpFloor.node.js'),
			path.join(custom, 'HttpFloor.node.js'),
		);
		const env = {
			...(await environmentFor(prepared)),
			N8N_CUSTOM_EXTENSIONS: custom,
			N8N_DEFAULT_BINARY_DATA_MODE: 'filesystem',
			// For instance --max-old-space-size=256, as a container with little memory runs n8n.
			...(process.env.BENCH_N8N_NODE_OPTIONS
				? { NODE_OPTIONS: process.env.BENCH_N8N_NODE_OPTIONS }
				: {}),
		};
		const files = prepared.filesFolder;

		// The full databases (from the cache) and the logs of the log part.
		const logFormats = (['mmdb', 'csv'] as const).filter(
			(format) =>
				PARTS.has('log') &&
				(process.env.BENCH_N8N_LOG_FORMATS ?? 'mmdb,csv').split(',').includes(format),
		);
		for (const format of logFormats)
			await fs.copyFile(await fullDatabase(format), path.join(files, `geolocation-full.${format}`));
		if (logFormats.length > 0) {
			await writeChunks(path.join(files, `access-log-${LOG_LINES}.csv`), logChunks(LOG_LINES));
			await writeChunks(
				path.join(files, `access-log-${SMALL_LOG_LINES}.csv`),
				logChunks(SMALL_LOG_LINES),
			);
		}
		const lookups = PARTS.has('lookup') || PARTS.has('cache');

		// The databases and lead files, in ~/.n8n-files where n8n 2.x's file nodes may read.
		await fs.copyFile(CITY, path.join(files, 'GeoLite2-City.mmdb'));
		if (lookups) await writeChunks(path.join(files, 'geolocation-1m.csv'), csvChunks(CSV_ROWS));
		await fs.writeFile(path.join(files, 'tiny.mmdb'), databaseFileOf('ip-geolocation', 'mmdb', 1));
		await fs.writeFile(path.join(files, 'tiny.csv'), databaseFileOf('ip-geolocation', 'csv', 1));
		if (PARTS.has('bulk')) {
			await writeChunks(path.join(files, `leads-${LEAD_ROWS}.csv`), leadChunks(LEAD_ROWS));
			await writeChunks(
				path.join(files, `leads-${SMALL_LEAD_ROWS}.csv`),
				leadChunks(SMALL_LEAD_ROWS),
			);
		}
		// Tiny files whose records are as large as the real ones' (the n8n-core bench's): GeoLite2-City's own records over IPv4, the bench CSV's rows.
		// MMDB: random IPv4 addresses (seed 18, as bench/ipLookupMemory.ts); CSV: the bench's addresses, 9 in 10 in its networks.
		const next = random32(18);
		const cityAddresses = Array.from({ length: LOOKUPS }, () => randomIpv4(next));
		// Files whose answers are as large: for the MMDB its twin (exactly the real file's records
		// for these addresses), for the CSV the n8n-core bench's tiny CSV (the bench's own records).
		if (lookups) {
			await fs.writeFile(
				path.join(files, 'twin-city.mmdb'),
				mmdbTwin(CITY, cityAddresses, 'GeoLite2-City'),
			);
			await fs.copyFile(tinyCsv(prepared.workFolder), path.join(files, 'alike.csv'));
		}
		const size = (file: string) => {
			try {
				return statSync(path.join(files, file)).size;
			} catch {
				return 0; // a file of a part not run
			}
		};
		const cases: LookupCase[] = !lookups
			? []
			: [
					{
						format: 'mmdb',
						real: 'GeoLite2-City.mmdb',
						tiny: 'tiny.mmdb',
						alike: 'twin-city.mmdb',
						alikeIs: "the real file's own networks and records for these addresses",
						realBytes: size('GeoLite2-City.mmdb'),
						addresses: cityAddresses,
					},
					{
						format: 'csv',
						real: 'geolocation-1m.csv',
						tiny: 'tiny.csv',
						alike: 'alike.csv',
						alikeIs: "three of the bench CSV's own rows widened to cover the addresses",
						realBytes: size('geolocation-1m.csv'),
						addresses: csvAddresses(CSV_ROWS, LOOKUPS),
					},
				];
		if (lookups)
			log(
				`Files in ~/.n8n-files: ${cases.map((lookup) => `${lookup.real} ${mib(lookup.realBytes)}, ${lookup.tiny} ${(size(lookup.tiny) / 1024).toFixed(1)} KiB, ${lookup.alike} ${(size(lookup.alike) / 1024).toFixed(1)} KiB`).join('; ')}; leads-${LEAD_ROWS}.csv ${mib(size(`leads-${LEAD_ROWS}.csv`))}`,
			);

		const resultFile = resultFileParameters();
		const modes: BulkMode[] = (
			resultFile
				? (['floor', 'items', 'resultFile'] as BulkMode[])
				: (['floor', 'items'] as BulkMode[])
		).filter(
			(mode) =>
				!process.env.BENCH_N8N_MODES || process.env.BENCH_N8N_MODES.split(',').includes(mode),
		);
		const workflows: Workflow[] = [];
		for (const lookup of cases) {
			workflows.push(
				lookupWorkflow(`benchLookupReal${lookup.format}`, lookup.real, lookup.addresses),
			);
			workflows.push(
				lookupWorkflow(`benchLookupTiny${lookup.format}`, lookup.tiny, lookup.addresses),
			);
			workflows.push(
				lookupWorkflow(`benchLookupAlike${lookup.format}`, lookup.alike, lookup.addresses),
			);
			for (const count of CACHE_COUNTS) {
				const addresses = lookup.addresses.slice(0, count);
				workflows.push(
					lookupWorkflow(hookId('Real', lookup.format, count), lookup.real, addresses, {
						kind: 'webhook',
						path: hookPath('real', lookup.format, count),
					}),
				);
				workflows.push(
					lookupWorkflow(hookId('Alike', lookup.format, count), lookup.alike, addresses, {
						kind: 'webhook',
						path: hookPath('alike', lookup.format, count),
					}),
				);
			}
		}
		for (const format of logFormats) {
			workflows.push(
				logLookupWorkflow(
					`benchLogLarge${format}`,
					`geolocation-full.${format}`,
					`access-log-${LOG_LINES}.csv`,
				),
			);
			workflows.push(
				logLookupWorkflow(
					`benchLogSmall${format}`,
					`geolocation-full.${format}`,
					`access-log-${SMALL_LOG_LINES}.csv`,
				),
			);
		}
		for (const mode of PARTS.has('bulk') ? modes : []) {
			if (mode === 'floor') {
				workflows.push(
					floorWorkflow(`benchBulkLarge${mode}`, LEAD_ROWS),
					floorWorkflow(`benchBulkSmall${mode}`, SMALL_LEAD_ROWS),
				);
				continue;
			}
			workflows.push(
				bulkEmailWorkflow(
					`benchBulkLarge${mode}`,
					`leads-${LEAD_ROWS}.csv`,
					mode,
					resultFile ?? {},
				),
			);
			workflows.push(
				bulkEmailWorkflow(
					`benchBulkSmall${mode}`,
					`leads-${SMALL_LEAD_ROWS}.csv`,
					mode,
					resultFile ?? {},
				),
			);
		}
		const hostile = PARTS.has('hostile') ? await hostileCases(files) : [];
		workflows.push(...hostile.map((hostileCase) => hostileCase.workflow));
		// Credentials at the sandbox, Requests per Second 0 (unpaced).
		await importIntoN8n(prepared.runtime, env, sandbox, workflows, { requestsPerSecond: 0 });
		for (const workflow of workflows.filter((candidate) => candidate.id?.startsWith('benchHook'))) {
			assertSucceeded(
				await n8nCommand(prepared.runtime, env, ['publish:workflow', `--id=${workflow.id}`]),
				`publishing ${workflow.id}`,
			);
		}
		log(
			`n8n ${prepared.runtime.n8nVersion}, N8N_DEFAULT_BINARY_DATA_MODE=${env.N8N_DEFAULT_BINARY_DATA_MODE}; ${workflows.length} workflows imported; ${RUNS} run(s) per figure.` +
				(resultFile
					? ` Result File mode: ${JSON.stringify(resultFile)}.`
					: ' The Email node has no Result File output yet: one item per row only.'),
		);

		if (PARTS.has('lookup')) await lookupMemory(prepared, env, cases);
		if (PARTS.has('cache')) await cacheFigures(prepared, env, cases);
		if (PARTS.has('bulk')) await bulkCsv(prepared, env, sandbox, modes);
		if (logFormats.length > 0) await logLookup(prepared, env, logFormats);
		if (hostile.length > 0) await hostileFiles(prepared, env, hostile, result);
	} finally {
		await sandbox.close();
		await fs.rm(prepared.workFolder, { recursive: true, force: true });
	}
	log(
		`\n== Summary (n8n ${prepared.runtime.n8nVersion}, filesystem binary mode, ${Math.round((Date.now() - started) / 1000)} s) ==\n${results.join('\n')}`,
	);
}

main().then(
	() => process.exit(0),
	(error: Error) => {
		console.error(`bench:n8n could not run: ${error.stack ?? error.message}`);
		process.exit(1);
	},
);
