import { promises as fs } from 'fs';
import path from 'path';

import { importIntoN8n, MANUAL_TRIGGER, type Workflow } from '../scripts/n8n/examples';
import { runCommand } from '../scripts/n8n/processes';
import { environmentFor, prepare } from '../scripts/n8n/setup';
import { startSandbox, type Sandbox } from '../test/sandbox/server';

/**
 * Issue 17's measure, in a real n8n (2.41.1, the one `npm run test:e2e` caches; installed when
 * missing): the peak RSS of `n8n execute` running Read/Write Files (a CSV from ~/.n8n-files) into
 * Email Reputation, pacing off, against the sandbox, for a 50,000-row file and for a 10-row file;
 * the growth is the difference (n8n's own start-up and the 10-row run's cost cancel out). Both
 * outputs: Result File, and one item per row. Peak RSS is the kernel's (GNU time's "Maximum
 * resident set size"), binary data in n8n's default filesystem mode.
 *
 * Not part of `npm run bench` (it needs the cached n8n and a few minutes):
 * `npm run build && npm run build:tools && node .out/bench/csvResultFileN8n.js`.
 */
const BIG = Number(process.env.BENCH_CSV_ROWS ?? 50_000);
const SMALL = 10;
const SANDBOX_PORT = Number(process.env.SANDBOX_PORT ?? 5722);
/** BENCH_N8N_HEAP_MIB: n8n's V8 old space limited (NODE_OPTIONS), as a small container makes V8 collect early. */
const HEAP_MIB = Number(process.env.BENCH_N8N_HEAP_MIB ?? 0);
type Mode = 'resultFile' | 'rowItems';

function leads(count: number): string {
	let text = 'name,email,company,note\n';
	for (let index = 0; index < count; index++) text += `"Lead ${index}",lead${index}@example.com,"Acme, Inc.","met at the ""expo"", ${index % 7} times"\n`;
	return text;
}

function workflow(packageName: string, mode: Mode, rows: number): Workflow {
	return {
		id: `benchCsv${mode === 'resultFile' ? 'File' : 'Rows'}${rows}`,
		name: `CSV ${mode} ${rows}`,
		nodes: [
			{ name: 'Start', type: MANUAL_TRIGGER, typeVersion: 1, position: [0, 0], parameters: {} },
			{ name: 'Read', type: 'n8n-nodes-base.readWriteFile', typeVersion: 1, position: [200, 0], parameters: { operation: 'read', fileSelector: `.n8n-files/leads-${rows}.csv`, options: {} } },
			{
				name: 'Target',
				type: `${packageName}.abstractEmail`,
				typeVersion: 1,
				position: [400, 0],
				parameters: { input: 'csvFile', binaryPropertyName: 'data', emailColumn: 'email', output: mode, resultBinaryPropertyName: 'data', options: {} },
				credentials: { abstractEmailApi: { id: 'sandbox-abstractEmailApi', name: 'Abstract Email Reputation API (sandbox)' } },
				onError: 'continueErrorOutput',
			},
		],
		connections: {
			Start: { main: [[{ node: 'Read', type: 'main', index: 0 }]] },
			Read: { main: [[{ node: 'Target', type: 'main', index: 0 }]] },
		},
		settings: { executionOrder: 'v1' },
	};
}

async function main() {
	const log = (line: string) => console.log(line);
	const prepared = await prepare('bench-csv', log);
	const sandbox: Sandbox = await startSandbox({ port: SANDBOX_PORT });
	try {
		const env = await environmentFor(prepared);
		const runEnv = HEAP_MIB ? { ...env, NODE_OPTIONS: `${env.NODE_OPTIONS ?? ''} --max-old-space-size=${HEAP_MIB}`.trim() } : env;
		for (const rows of [SMALL, BIG]) await fs.writeFile(path.join(prepared.filesFolder, `leads-${rows}.csv`), leads(rows));
		const modes: Mode[] = ['resultFile', 'rowItems'];
		const workflows = modes.flatMap((mode) => [workflow(prepared.manifest.name, mode, SMALL), workflow(prepared.manifest.name, mode, BIG)]);
		await importIntoN8n(prepared.runtime, env, sandbox, workflows, { requestsPerSecond: 0 });

		const peakOf = async (mode: Mode, rows: number) => {
			sandbox.reset();
			const started = Date.now();
			const result = await runCommand('/usr/bin/time', ['-v', prepared.runtime.node, prepared.runtime.n8nBin, 'execute', `--id=${workflow('', mode, rows).id}`], {
				env: runEnv,
				cwd: env.N8N_USER_FOLDER,
			});
			const outOfMemory = /heap out of memory|Allocation failed/i.test(result.stderr + result.stdout);
			const kilobytes = Number(/Maximum resident set size \(kbytes\): (\d+)/.exec(result.stderr)?.[1]);
			const answered = sandbox.requests('email').filter((entry) => entry.status === 200).length;
			if (!kilobytes) throw new Error(`${mode} ${rows}: no peak RSS from GNU time (exit ${result.code})\n${result.stderr.slice(-1500)}`);
			return { mib: kilobytes / 1024, answered, seconds: (Date.now() - started) / 1000, code: outOfMemory ? 'out of heap' : result.code };
		};
		console.log(`\n## Bulk CSV in n8n ${prepared.runtime.n8nVersion}: peak RSS of \`n8n execute\`, ${BIG.toLocaleString('en-US')} rows against ${SMALL}, pacing off, filesystem binary mode${HEAP_MIB ? `, V8 old space limited to ${HEAP_MIB} MiB` : ''}`);
		for (const mode of modes) {
			const small = await peakOf(mode, SMALL);
			const big = await peakOf(mode, BIG);
			console.log(
				`    ${mode === 'resultFile' ? 'Result File     ' : 'one item per row'}: ${SMALL} rows ${small.mib.toFixed(0)} MiB, ${BIG.toLocaleString('en-US')} rows ${big.mib.toFixed(0)} MiB (${big.answered} answered, exit ${big.code}, ${big.seconds.toFixed(0)} s with n8n's start): growth ${(big.mib - small.mib).toFixed(0)} MiB`,
			);
		}
	} finally {
		await sandbox.close();
		await fs.rm(prepared.workFolder, { recursive: true, force: true });
	}
}

main().then(
	() => process.exit(0),
	(error: Error) => {
		console.error(error.stack ?? error.message);
		process.exit(1);
	},
);
