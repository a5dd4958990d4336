import { existsSync, promises as fs } from 'fs';
import os from 'os';
import path from 'path';

import { assertSucceeded, childEnv, runCommand } from './processes';

/**
 * The real n8n the package is tried in: a pinned n8n and the Node it needs, installed once into
 * a cache folder outside the repository and reused while its marker file says the install
 * finished. Two lines are tried: the current 2.x (the default) and the last 1.x (`--n8n 1`).
 *
 * Why these pins (seen on this project's machines, 2026-11): n8n 2.x needs Node 24, which the
 * registry ships as the package `node-<platform>-<arch>`; n8n@2.41.1 installs from the registry
 * with two overrides (linkedom 0.18.15 wants a package the registry lacks, and @langchain/core's
 * langsmith must stay at 0.10.5); newer 2.41.x releases pin internal packages the registry does
 * not have. n8n@1.123.81, the last 1.x, wants Node >=20.19 <=24 (Node 22 here) and one override:
 * its n8n-nodes-base names xlsx by a tarball URL off the registry, and the registry's xlsx 0.18.5
 * stands in for it. Install scripts stay off (several download binaries from hosts that cannot be
 * reached); the one native module n8n cannot start without, sqlite3, is then built from source
 * against the chosen Node's headers.
 */
export interface RuntimeSpec {
	n8nVersion: string;
	nodeVersion: string;
	overrides: object;
}

export const N8N_2: RuntimeSpec = {
	n8nVersion: '2.41.1',
	nodeVersion: '24.21.0',
	overrides: { linkedom: '0.18.14', '@langchain/core': { langsmith: '0.10.5' } },
};
export const N8N_1: RuntimeSpec = {
	n8nVersion: '1.123.81',
	nodeVersion: '22.23.3',
	overrides: { xlsx: '0.18.5' },
};
/** Kept for callers that name the default line's versions. */
export const N8N_VERSION = N8N_2.n8nVersion;
export const NODE_VERSION = N8N_2.nodeVersion;
const MARKER = '.installed.json';

/**
 * The runtime `--n8n <choice>` names: `2` (default) or `1` for the pinned lines, or an exact
 * version (`1.85.4`), installed with its line's Node and overrides.
 */
export function runtimeSpec(choice: string | undefined): RuntimeSpec {
	if (choice === undefined || choice === '2' || choice === N8N_2.n8nVersion) return N8N_2;
	if (choice === '1' || choice === N8N_1.n8nVersion) return N8N_1;
	const match = /^([12])\.\d+\.\d+$/.exec(choice);
	if (!match)
		throw new Error(`--n8n takes 1, 2 or an exact n8n version (1.123.81), not "${choice}"`);
	return { ...(match[1] === '1' ? N8N_1 : N8N_2), n8nVersion: choice };
}

export interface Runtime {
	/** The n8n version installed. */
	n8nVersion: string;
	/** The Node binary n8n runs under (24 for n8n 2.x, 22 for 1.x). */
	node: string;
	/** n8n's command-line entry, run as `node <n8nBin> ...`. */
	n8nBin: string;
	/** The folder whose node_modules holds n8n and its dependencies. */
	n8nDir: string;
	/** PATH with that Node first: n8n starts its task runner as plain `node`. */
	path: string;
}

/** `N8N_ABSTRACTAPI_CACHE`, else ~/.cache/n8n-nodes-abstractapi (or under XDG_CACHE_HOME). */
export function cacheRoot(): string {
	if (process.env.N8N_ABSTRACTAPI_CACHE) return path.resolve(process.env.N8N_ABSTRACTAPI_CACHE);
	const base = process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
	return path.join(base, 'n8n-nodes-abstractapi');
}

/** Installs the spec's Node and n8n into the cache when they are not there yet; returns where they are. */
export async function ensureRuntime(
	log: (line: string) => void = console.log,
	spec: RuntimeSpec = N8N_2,
): Promise<Runtime> {
	const { n8nVersion, nodeVersion } = spec;
	const root = cacheRoot();
	const nodePackage = `node-${process.platform}-${process.arch}`;
	const nodeDir = path.join(root, `node-${nodeVersion}`);
	const nodeHome = path.join(nodeDir, 'node_modules', nodePackage);
	const n8nDir = path.join(root, `n8n-${n8nVersion}`);
	const runtime: Runtime = {
		n8nVersion,
		node: path.join(nodeHome, 'bin', 'node'),
		n8nBin: path.join(n8nDir, 'node_modules', 'n8n', 'bin', 'n8n'),
		n8nDir,
		path: [path.join(nodeHome, 'bin'), process.env.PATH ?? ''].join(path.delimiter),
	};

	await installOnce(nodeDir, `Node ${nodeVersion}`, log, async () => {
		await writePackageJson(nodeDir, { [nodePackage]: nodeVersion });
		await npm(['install', ...QUIET_INSTALL], nodeDir, 'npm install of the Node runtime');
		const version = await runCommand(runtime.node, ['--version']);
		if (version.stdout.trim() !== `v${nodeVersion}`) {
			throw new Error(
				`${runtime.node} reports ${version.stdout.trim() || version.stderr.trim()}, expected v${nodeVersion}`,
			);
		}
	});

	await installOnce(n8nDir, `n8n ${n8nVersion} (about 3 GB, a few minutes)`, log, async () => {
		await writePackageJson(n8nDir, { n8n: n8nVersion }, spec.overrides);
		await npm(['install', ...QUIET_INSTALL], n8nDir, `npm install of n8n ${n8nVersion}`, log);
		log(`  building sqlite3 under Node ${nodeVersion} ...`);
		// npm runs the build with the `node` first on PATH, against the headers of `nodedir`;
		// build-from-source skips the prebuilt-binary download that cannot reach its host.
		await npm(['rebuild', 'sqlite3'], n8nDir, `building sqlite3 for Node ${nodeVersion}`, log, {
			PATH: runtime.path,
			npm_config_nodedir: nodeHome,
			npm_config_build_from_source: 'true',
		});
		const check = await runCommand(
			runtime.node,
			['-e', "require('sqlite3'); console.log(require('n8n/package.json').version)"],
			{
				cwd: n8nDir,
			},
		);
		assertSucceeded(check, `loading sqlite3 and n8n under Node ${nodeVersion}`);
		if (check.stdout.trim() !== n8nVersion)
			throw new Error(`installed n8n is ${check.stdout.trim()}, expected ${n8nVersion}`);
	});
	return runtime;
}

const QUIET_INSTALL = [
	'--ignore-scripts',
	'--no-audit',
	'--no-fund',
	'--loglevel=error',
	'--no-update-notifier',
];

async function writePackageJson(
	dir: string,
	dependencies: Record<string, string>,
	overrides?: object,
) {
	const manifest = {
		name: `${path.basename(dir)}-runtime`,
		private: true,
		dependencies,
		...(overrides ? { overrides } : {}),
	};
	await fs.writeFile(path.join(dir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
}

/**
 * Runs `install` into `dir` unless its marker is there. A folder without the marker is the
 * remains of an interrupted install: it is emptied and the install starts over.
 */
async function installOnce(
	dir: string,
	what: string,
	log: (line: string) => void,
	install: () => Promise<void>,
) {
	const marker = path.join(dir, MARKER);
	if (existsSync(marker)) return;
	const started = Date.now();
	log(`Installing ${what} into ${dir} (once; later runs reuse it) ...`);
	await fs.rm(dir, { recursive: true, force: true });
	await fs.mkdir(dir, { recursive: true });
	const ticker = setInterval(
		() =>
			log(
				`  ... still installing ${what.split(' (')[0]} (${Math.round((Date.now() - started) / 1000)} s)`,
			),
		30_000,
	);
	try {
		await install();
	} finally {
		clearInterval(ticker);
	}
	const seconds = Math.round((Date.now() - started) / 1000);
	await fs.writeFile(
		marker,
		`${JSON.stringify({ what, installedAt: new Date().toISOString(), seconds }, null, 2)}\n`,
	);
	log(`  done in ${seconds} s.`);
}

async function npm(
	args: string[],
	cwd: string,
	what: string,
	log?: (line: string) => void,
	env: NodeJS.ProcessEnv = {},
) {
	const result = await runCommand('npm', args, { cwd, env: childEnv(env) });
	assertSucceeded(result, what);
	const summary = result.stdout.trim().split('\n').filter(Boolean).pop();
	if (log && summary) log(`  ${summary}`);
}
