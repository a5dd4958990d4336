import { existsSync, promises as fs } from 'fs';
import os from 'os';
import path from 'path';

import { assertSucceeded, childEnv, runCommand } from './processes';

/**
 * The real n8n the package is tried in: a pinned n8n and the Node it needs, installed once into
 * a cache folder outside the repository and reused while its marker file says the install
 * finished.
 *
 * Why these pins (seen on this project's machines, 2026-11): n8n 2.x needs Node 24, which the
 * registry ships as the package `node-<platform>-<arch>`; n8n@2.41.1 installs from the registry
 * with two overrides (linkedom 0.18.15 wants a package the registry lacks, and @langchain/core's
 * langsmith must stay at 0.10.5); newer 2.41.x releases pin internal packages the registry does
 * not have. Install scripts stay off (several download binaries from hosts that cannot be
 * reached); the one native module n8n cannot start without, sqlite3, is then built from source
 * against Node 24's headers.
 */
export const N8N_VERSION = '2.41.1';
export const NODE_VERSION = '24.21.0';
const N8N_OVERRIDES = { linkedom: '0.18.14', '@langchain/core': { langsmith: '0.10.5' } };
const MARKER = '.installed.json';

export interface Runtime {
	/** The Node 24 binary n8n runs under. */
	node: string;
	/** n8n's command-line entry, run as `node <n8nBin> ...`. */
	n8nBin: string;
	/** The folder whose node_modules holds n8n and its dependencies. */
	n8nDir: string;
	/** PATH with Node 24 first: n8n starts its task runner as plain `node`. */
	path: string;
}

/** `N8N_ABSTRACTAPI_CACHE`, else ~/.cache/n8n-nodes-abstractapi (or under XDG_CACHE_HOME). */
export function cacheRoot(): string {
	if (process.env.N8N_ABSTRACTAPI_CACHE) return path.resolve(process.env.N8N_ABSTRACTAPI_CACHE);
	const base = process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
	return path.join(base, 'n8n-nodes-abstractapi');
}

/** Installs Node 24 and n8n into the cache when they are not there yet; returns where they are. */
export async function ensureRuntime(log: (line: string) => void = console.log): Promise<Runtime> {
	const root = cacheRoot();
	const nodePackage = `node-${process.platform}-${process.arch}`;
	const nodeDir = path.join(root, `node-${NODE_VERSION}`);
	const nodeHome = path.join(nodeDir, 'node_modules', nodePackage);
	const n8nDir = path.join(root, `n8n-${N8N_VERSION}`);
	const runtime: Runtime = {
		node: path.join(nodeHome, 'bin', 'node'),
		n8nBin: path.join(n8nDir, 'node_modules', 'n8n', 'bin', 'n8n'),
		n8nDir,
		path: [path.join(nodeHome, 'bin'), process.env.PATH ?? ''].join(path.delimiter),
	};

	await installOnce(nodeDir, `Node ${NODE_VERSION}`, log, async () => {
		await writePackageJson(nodeDir, { [nodePackage]: NODE_VERSION });
		await npm(['install', ...QUIET_INSTALL], nodeDir, 'npm install of the Node runtime');
		const version = await runCommand(runtime.node, ['--version']);
		if (version.stdout.trim() !== `v${NODE_VERSION}`) {
			throw new Error(`${runtime.node} reports ${version.stdout.trim() || version.stderr.trim()}, expected v${NODE_VERSION}`);
		}
	});

	await installOnce(n8nDir, `n8n ${N8N_VERSION} (about 2.8 GB, a few minutes)`, log, async () => {
		await writePackageJson(n8nDir, { n8n: N8N_VERSION }, N8N_OVERRIDES);
		await npm(['install', ...QUIET_INSTALL], n8nDir, `npm install of n8n ${N8N_VERSION}`, log);
		log('  building sqlite3 under Node 24 ...');
		// npm runs the build with the `node` first on PATH, against the headers of `nodedir`;
		// build-from-source skips the prebuilt-binary download that cannot reach its host.
		await npm(['rebuild', 'sqlite3'], n8nDir, 'building sqlite3 for Node 24', log, {
			PATH: runtime.path,
			npm_config_nodedir: nodeHome,
			npm_config_build_from_source: 'true',
		});
		const check = await runCommand(runtime.node, ['-e', "require('sqlite3'); console.log(require('n8n/package.json').version)"], {
			cwd: n8nDir,
		});
		assertSucceeded(check, 'loading sqlite3 and n8n under Node 24');
		if (check.stdout.trim() !== N8N_VERSION) throw new Error(`installed n8n is ${check.stdout.trim()}, expected ${N8N_VERSION}`);
	});
	return runtime;
}

const QUIET_INSTALL = ['--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error', '--no-update-notifier'];

async function writePackageJson(dir: string, dependencies: Record<string, string>, overrides?: object) {
	const manifest = { name: `${path.basename(dir)}-runtime`, private: true, dependencies, ...(overrides ? { overrides } : {}) };
	await fs.writeFile(path.join(dir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
}

/**
 * Runs `install` into `dir` unless its marker is there. A folder without the marker is the
 * remains of an interrupted install: it is emptied and the install starts over.
 */
async function installOnce(dir: string, what: string, log: (line: string) => void, install: () => Promise<void>) {
	const marker = path.join(dir, MARKER);
	if (existsSync(marker)) return;
	const started = Date.now();
	log(`Installing ${what} into ${dir} (once; later runs reuse it) ...`);
	await fs.rm(dir, { recursive: true, force: true });
	await fs.mkdir(dir, { recursive: true });
	const ticker = setInterval(() => log(`  ... still installing ${what.split(' (')[0]} (${Math.round((Date.now() - started) / 1000)} s)`), 30_000);
	try {
		await install();
	} finally {
		clearInterval(ticker);
	}
	const seconds = Math.round((Date.now() - started) / 1000);
	await fs.writeFile(marker, `${JSON.stringify({ what, installedAt: new Date().toISOString(), seconds }, null, 2)}\n`);
	log(`  done in ${seconds} s.`);
}

async function npm(args: string[], cwd: string, what: string, log?: (line: string) => void, env: NodeJS.ProcessEnv = {}) {
	const result = await runCommand('npm', args, { cwd, env: childEnv(env) });
	assertSucceeded(result, what);
	const summary = result.stdout.trim().split('\n').filter(Boolean).pop();
	if (log && summary) log(`  ${summary}`);
}
