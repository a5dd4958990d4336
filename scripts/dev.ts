import { promises as fs } from 'fs';
import path from 'path';

import { CREDENTIAL_TYPES } from '../test/harness/sandboxCredentials';
import { startSandbox, type Sandbox } from '../test/sandbox/server';
import { SAMPLE_FILES_FOLDER } from '../test/sandbox/storedInputs';
import { importIntoN8n, readExamples } from './n8n/examples';
import { LOCAL_OWNER, type Server } from './n8n/instance';
import { freePort, portInUse, stopChild } from './n8n/processes';
import { runtimeSpec } from './n8n/runtime';
import { environmentFor, prepare, ROOT, startAndCheck } from './n8n/setup';

/**
 * `npm run dev`: the package in a real n8n editor on 127.0.0.1, with the sandbox behind it.
 * n8n (2.x) is installed once into a cache folder; each run packs the built package, installs it
 * into a fresh n8n user folder as n8n installs community packages, imports a credential per
 * service pointing at the sandbox and every workflow of examples/, signs the owner up, and
 * starts the editor. n8n runs with its default file access and a fresh home folder holding only
 * `~/.n8n-files` with the sample lists of examples/files (as the README asks a user to put them
 * there), where the examples read and write. Ctrl-C stops n8n and the sandbox and
 * removes that folder (--keep keeps it). --n8n 1 runs the last n8n 1.x instead.
 *
 * N8N_PORT chooses the editor's port (default 5678, or a free one if that is taken);
 * SANDBOX_PORT the sandbox's (default: a free one).
 */

/** The sandbox plays a paid plan of this many requests a second; the imported credentials pace to it. */
const RATE = 5;

const log = (line: string) => console.log(line);

async function main() {
	const keep = process.argv.includes('--keep');
	const version = process.argv.find((arg, index) => process.argv[index - 1] === '--n8n') ?? process.argv.find((arg) => arg.startsWith('--n8n='))?.slice(6);
	const prepared = await prepare('dev', log, runtimeSpec(version));
	for (const sample of await fs.readdir(SAMPLE_FILES_FOLDER)) await fs.copyFile(path.join(SAMPLE_FILES_FOLDER, sample), path.join(prepared.filesFolder, sample));
	const sandbox = await startSandbox({ port: Number(process.env.SANDBOX_PORT ?? 0) || undefined });
	for (const service of Object.keys(sandbox.baseUrls)) sandbox.limitRate(service, RATE);
	let server: Server | undefined;
	let stopping = false;

	const shutdown = async (code: number) => {
		if (stopping) return;
		stopping = true;
		log('\nStopping n8n and the sandbox ...');
		if (server) await stopChild(server.child);
		await sandbox.close();
		if (keep) log(`Kept the n8n user folder: ${prepared.userFolder}`);
		else await fs.rm(prepared.workFolder, { recursive: true, force: true });
		process.exit(code);
	};
	let signals = 0;
	const onSignal = () => {
		// A second Ctrl-C does not wait for n8n's orderly shutdown.
		if (++signals > 1) {
			if (server?.child.pid) process.kill(-server.child.pid, 'SIGKILL');
			process.exit(130);
		}
		void shutdown(0);
	};
	process.on('SIGINT', onSignal);
	process.on('SIGTERM', onSignal);

	printSandbox(sandbox);
	const env = await environmentFor(prepared, await editorPort());
	const examples = await readExamples(ROOT);
	await importIntoN8n(
		prepared.runtime,
		env,
		sandbox,
		examples.map((example) => ({ ...example.workflow, id: example.id })),
		{ requestsPerSecond: RATE },
	);
	log(`Imported ${Object.keys(CREDENTIAL_TYPES).length} sandbox credentials and ${examples.length} example workflow(s).`);

	log('Starting n8n ...');
	let ready = false;
	const started = await startAndCheck(prepared, env, (line) => {
		if (ready && line.trim()) console.log(`  n8n | ${line}`);
	});
	server = started.server;
	ready = true;
	server.child.once('exit', (code, signal) => {
		if (stopping) return;
		console.error(`n8n stopped by itself (exit ${code ?? signal}):\n${server?.log.slice(-20).join('\n')}`);
		void shutdown(1);
	});

	for (const line of started.report.lines) log(line);
	for (const problem of started.report.problems) console.error(`  PROBLEM: ${problem}`);
	log('');
	log(`n8n is ready: ${server.url}`);
	log(`  Sign in as ${LOCAL_OWNER.email}, password ${LOCAL_OWNER.password}`);
	for (const example of examples) log(`  ${example.workflow.name}: ${server.url}/workflow/${example.id}`);
	log(`  n8n runs with the fresh home folder ${prepared.userFolder} (default file access: ~/.n8n-files only);`);
	log(`  the examples read the sample lists from, and write into, ${prepared.filesFolder}. The credentials "Abstract <service> API (sandbox)" point at the sandbox above.`);
	log('Ctrl-C stops n8n and the sandbox.');
}

/** The sandbox's address and key for each credential type, for credentials made by hand. */
function printSandbox(sandbox: Sandbox) {
	log(`\nAbstract API sandbox on 127.0.0.1 (plays a plan of ${RATE} requests a second per service):`);
	const rows = Object.entries(CREDENTIAL_TYPES).map(([service, type]) => ({ type, baseUrl: sandbox.baseUrls[service], key: sandbox.keys[service] }));
	const width = Math.max(...rows.map((row) => row.type.length));
	for (const row of rows) log(`  ${row.type.padEnd(width)}  Base URL ${row.baseUrl}  API key ${row.key}`);
	log('');
}

/** N8N_PORT if given; else n8n's usual 5678, unless something already listens there. */
async function editorPort(): Promise<number> {
	if (process.env.N8N_PORT) return Number(process.env.N8N_PORT);
	if (!(await portInUse(5678))) return 5678;
	const port = await freePort();
	log(`Port 5678 is taken; the editor uses ${port}.`);
	return port;
}

main().catch((error: Error) => {
	console.error(`npm run dev failed: ${error.stack ?? error.message}`);
	process.exit(1);
});
