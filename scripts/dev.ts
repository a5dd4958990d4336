import { promises as fs } from 'fs';
import path from 'path';

import { CREDENTIAL_TYPES } from '../test/harness/sandboxCredentials';
import { startSandbox, type Sandbox } from '../test/sandbox/server';
import { SAMPLE_FILES_FOLDER } from '../test/sandbox/storedInputs';
import { importIntoN8n, readExamples } from './n8n/examples';
import { LOCAL_OWNER, type Server } from './n8n/instance';
import { freePort, portInUse, stopChild } from './n8n/processes';
import { sandboxLines } from './sandboxPrintout';
import { runtimeSpec } from './n8n/runtime';
import { environmentFor, prepare, ROOT, startAndCheck } from './n8n/setup';

/**
 * `npm run dev`: the package in a real n8n editor on 127.0.0.1, with the sandbox behind it.
 * n8n (2.x) is installed once into a cache folder; each run installs the built package into a
 * fresh n8n user folder with the README's install commands, imports a credential per service
 * pointing at the sandbox and every workflow of examples/, signs the owner up, and starts the
 * editor. n8n runs with its default file access and a fresh home folder holding only
 * `~/.n8n-files` with the sample lists of examples/files (as the README asks a user to put them
 * there), where the examples read and write. Ctrl-C stops n8n and the sandbox and removes that
 * folder (--keep keeps it). --n8n 1 runs the last n8n 1.x instead.
 *
 * Ports, all checked free and distinct before anything starts (a run that cannot start leaves
 * nothing behind): N8N_PORT the editor's (default 5678, or a free one if that is taken);
 * N8N_RUNNERS_BROKER_PORT n8n's task broker's (default: a free one; n8n's own default would be
 * 5679); SANDBOX_PORT the sandbox's, its storage host on the port after (default: free ones).
 */

/** The sandbox plays a paid plan of this many requests a second; the imported credentials pace to it. */
const RATE = 5;

const log = (line: string) => console.log(line);

interface Ports {
	editor: number;
	broker: number;
	sandbox: number;
	storage: number;
}

async function main() {
	const keep = process.argv.includes('--keep');
	const version =
		process.argv.find((arg, index) => process.argv[index - 1] === '--n8n') ??
		process.argv.find((arg) => arg.startsWith('--n8n='))?.slice(6);
	const ports = await choosePorts();
	const prepared = await prepare('dev', log, runtimeSpec(version));
	let sandbox: Sandbox | undefined;
	let server: Server | undefined;
	let stopping = false;

	const shutdown = async (code: number) => {
		if (stopping) return;
		stopping = true;
		log('\nStopping n8n and the sandbox ...');
		if (server) await stopChild(server.child);
		await sandbox?.close();
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

	try {
		for (const sample of await fs.readdir(SAMPLE_FILES_FOLDER))
			await fs.copyFile(
				path.join(SAMPLE_FILES_FOLDER, sample),
				path.join(prepared.filesFolder, sample),
			);
		sandbox = await startSandbox({ port: ports.sandbox, storagePort: ports.storage });
		for (const service of Object.keys(sandbox.baseUrls)) sandbox.limitRate(service, RATE);
		log('');
		for (const line of sandboxLines(sandbox, RATE)) log(line);
		log('');
		const env = await environmentFor(prepared, ports.editor, ports.broker);
		const examples = await readExamples(ROOT);
		await importIntoN8n(
			prepared.runtime,
			env,
			sandbox,
			examples.map((example) => ({ ...example.workflow, id: example.id })),
			{ requestsPerSecond: RATE },
		);
		log(
			`Imported ${Object.keys(CREDENTIAL_TYPES).length} sandbox credentials and ${examples.length} example workflow(s).`,
		);

		log(`Starting n8n (editor on port ${ports.editor}, task broker on ${ports.broker}) ...`);
		let ready = false;
		const started = await startAndCheck(prepared, env, (line) => {
			if (ready && line.trim()) console.log(`  n8n | ${line}`);
		});
		server = started.server;
		ready = true;
		server.child.once('exit', (code, signal) => {
			if (stopping) return;
			console.error(
				`n8n stopped by itself (exit ${code ?? signal}):\n${server?.log.slice(-20).join('\n')}`,
			);
			void shutdown(1);
		});

		for (const line of started.report.lines) log(line);
		for (const problem of started.report.problems) console.error(`  PROBLEM: ${problem}`);
		log('');
		log(`n8n is ready: ${server.url}`);
		log(`  Sign in as ${LOCAL_OWNER.email}, password ${LOCAL_OWNER.password}`);
		for (const example of examples)
			log(`  ${example.workflow.name}: ${server.url}/workflow/${example.id}`);
		log(
			`  n8n runs with the fresh home folder ${prepared.userFolder} (default file access: ~/.n8n-files only);`,
		);
		log(
			`  the examples read the sample lists from, and write into, ${prepared.filesFolder}. The credentials "Abstract <service> API (sandbox)" point at the sandbox above.`,
		);
		log('Ctrl-C stops n8n and the sandbox.');
	} catch (error) {
		console.error(`npm run dev failed: ${(error as Error).stack ?? (error as Error).message}`);
		await shutdown(1);
	}
}

/**
 * The four ports of a run, from the environment or free ones, refused before anything starts
 * when two are the same or one is in use, naming the setting to change.
 */
async function choosePorts(): Promise<Ports> {
	const fromEnv = (name: string) => Number(process.env[name]) || undefined;
	let editor = fromEnv('N8N_PORT');
	if (editor === undefined) {
		editor = (await portInUse(5678)) ? await freePort() : 5678;
		if (editor !== 5678) log(`Port 5678 is taken; the editor uses ${editor}.`);
	}
	const sandboxPort = fromEnv('SANDBOX_PORT');
	const wanted: Array<[string, number]> = [
		['N8N_PORT (the editor)', editor],
		[
			"N8N_RUNNERS_BROKER_PORT (n8n's task broker)",
			fromEnv('N8N_RUNNERS_BROKER_PORT') ?? (await freePort()),
		],
		['SANDBOX_PORT (the sandbox)', sandboxPort ?? (await freePort())],
		[
			"SANDBOX_PORT + 1 (the sandbox's storage host)",
			sandboxPort ? sandboxPort + 1 : await freePort(),
		],
	];
	const problems: string[] = [];
	for (const [index, [name, port]] of wanted.entries()) {
		const earlier = wanted.slice(0, index).find(([, other]) => other === port);
		if (earlier) problems.push(`${name} and ${earlier[0]} are both ${port}`);
		else if (await portInUse(port)) problems.push(`${name}: port ${port} is already in use`);
	}
	if (problems.length > 0) {
		console.error(
			`npm run dev cannot start:\n${problems.map((problem) => `  - ${problem}`).join('\n')}\nChoose free ports (see docs/development.md#try-it-in-n8n).`,
		);
		process.exit(1);
	}
	const [, broker, sandbox, storage] = wanted.map(([, port]) => port);
	return { editor, broker, sandbox, storage };
}

main().catch((error: Error) => {
	console.error(`npm run dev failed: ${error.stack ?? error.message}`);
	process.exit(1);
});
