import { fork } from 'child_process';
import { createWriteStream, promises as fs } from 'fs';
import os from 'os';
import path from 'path';
import { pipeline } from 'stream/promises';

import { request } from 'undici';

import { runNode, useBinaryMode } from '../test/harness/run';
import type { BenchSandboxReady } from './databaseSandbox';

/**
 * IP database download, ~100 MB archive from the sandbox (served by a child process):
 * - the node's wall time (link request, download, gunzip, tar, SHA-256, store) over a plain
 *   undici download of the same archive streamed to disk, measured in this same process;
 * - the peak resident memory of the node's run in n8n's filesystem binary mode, against the
 *   archive's size (RSS sampled every 10 ms during the run).
 */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const MB = 1024 * 1024;

function startSandbox(): Promise<{ ready: BenchSandboxReady; stop: () => void }> {
	const child = fork(path.join(__dirname, 'databaseSandbox.js'), [], {
		stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
	});
	return new Promise((resolve, reject) => {
		child.once('message', (ready) =>
			resolve({ ready: ready as BenchSandboxReady, stop: () => child.disconnect() }),
		);
		child.once('exit', (code) => reject(new Error(`The benchmark sandbox stopped (${code})`)));
	});
}

/** The plain way: ask for the link (JSON form), then stream the archive to a file with undici. */
async function plainDownload(ready: BenchSandboxReady, file: string): Promise<number> {
	const started = performance.now();
	const query = new URLSearchParams({
		api_key: ready.apiKey,
		database: 'ip-geolocation',
		format: 'csv',
		response: 'json',
	});
	const answer = await request(`${ready.baseUrl}/v1/database/download/?${query}`);
	const { url } = (await answer.body.json()) as { url: string };
	const download = await request(url);
	await pipeline(download.body, createWriteStream(file));
	return performance.now() - started;
}

/** Peak RSS while `work` runs, sampled every 10 ms. */
async function withPeakRss<T>(
	work: () => Promise<T>,
): Promise<{ result: T; peak: number; before: number }> {
	const before = process.memoryUsage().rss;
	let peak = before;
	const sampler = setInterval(() => {
		peak = Math.max(peak, process.memoryUsage().rss);
	}, 10);
	try {
		const result = await work();
		peak = Math.max(peak, process.memoryUsage().rss);
		return { result, peak, before };
	} finally {
		clearInterval(sampler);
	}
}

async function nodeDownload(
	ready: BenchSandboxReady,
	output: string,
	database = 'ip-geolocation',
	format = 'csv',
) {
	const started = performance.now();
	const run = await runNode({
		type: 'abstractIpDatabase',
		parameters: { database, format, output },
		credential: {
			type: 'abstractIpIntelligenceApi',
			data: { apiKey: ready.apiKey, baseUrl: ready.baseUrl },
		},
	});
	const ms = performance.now() - started;
	if (run.error) throw run.error;
	return { ms, json: run.items[0].json };
}

const median = (values: number[]) =>
	[...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const mb = (bytes: number) => `${(bytes / MB).toFixed(1)} MB`;

export async function run(): Promise<void> {
	await useBinaryMode('filesystem');
	const { ready, stop } = await startSandbox();
	const scratch = await fs.mkdtemp(path.join(os.tmpdir(), 'abstractapi-bench-'));
	try {
		console.log(
			`IP database download bench: ip-geolocation CSV archive ${mb(ready.archiveBytes)} (database file ${mb(ready.databaseFileBytes)}), ` +
				`${ready.cached ? 'taken from the temporary folder' : `built in ${ready.buildSeconds.toFixed(1)} s`}; ${ROUNDS} rounds, filesystem binary mode`,
		);
		// Warm-up on a small archive: n8n-core's modules load here, not inside the measured runs.
		await nodeDownload(ready, 'archive', 'ip-asn', 'mmdb');

		const plain: number[] = [];
		const results: Record<string, { times: number[]; peak: number; growth: number }> = {};
		for (let round = 0; round < ROUNDS; round++) {
			plain.push(await plainDownload(ready, path.join(scratch, 'plain.tar.gz')));
			for (const output of ['archive', 'databaseFile']) {
				const measured = await withPeakRss(async () => await nodeDownload(ready, output));
				if (measured.result.json.sha256 !== ready.sha256)
					throw new Error('The node returned another checksum');
				const entry = (results[output] ??= { times: [], peak: 0, growth: 0 });
				entry.times.push(measured.result.ms);
				entry.peak = Math.max(entry.peak, measured.peak);
				entry.growth = Math.max(entry.growth, measured.peak - measured.before);
			}
		}
		const baseline = median(plain);
		console.log(
			`  plain undici download streamed to disk: ${(baseline / 1000).toFixed(2)} s (median)`,
		);
		for (const [output, entry] of Object.entries(results)) {
			const time = median(entry.times);
			console.log(
				`  node, output ${output}: ${(time / 1000).toFixed(2)} s (median) = ${(time / baseline).toFixed(1)} x the plain download; ` +
					`peak RSS ${mb(entry.peak)} (${(entry.peak / ready.archiveBytes).toFixed(2)} x the archive), ` +
					`growth during the run ${mb(entry.growth)} (${(entry.growth / ready.archiveBytes).toFixed(2)} x the archive)`,
			);
		}
	} finally {
		stop();
		await fs.rm(scratch, { recursive: true, force: true });
	}
}

if (require.main === module) {
	run().then(
		() => process.exit(0),
		(error: unknown) => {
			console.error(error);
			process.exit(1);
		},
	);
}
