import { promises as fs } from 'fs';
import path from 'path';

import { assertSucceeded, childEnv, runCommand } from './processes';

/** The package.json fields that say what n8n should load. */
export interface PackageManifest {
	name: string;
	version: string;
	n8n: { nodes: string[]; credentials: string[] };
}

export async function readManifest(root: string): Promise<PackageManifest> {
	return JSON.parse(await fs.readFile(path.join(root, 'package.json'), 'utf8')) as PackageManifest;
}

/** The tarball `npm publish` would upload, built from the repository's dist/ into `destination`. */
export async function packPackage(root: string, destination: string): Promise<string> {
	await fs.mkdir(destination, { recursive: true });
	const result = assertSucceeded(
		await runCommand('npm', ['pack', '--json', '--pack-destination', destination], { cwd: root, env: childEnv() }),
		'npm pack',
	);
	const [packed] = JSON.parse(result.stdout.slice(result.stdout.indexOf('['))) as Array<{ filename: string }>;
	return path.join(destination, packed.filename);
}

/** Where n8n keeps community packages of a user folder (`N8N_USER_FOLDER`). */
export const nodesFolder = (userFolder: string) => path.join(userFolder, '.n8n', 'nodes');
export const installedPackageDir = (userFolder: string, name: string) => path.join(nodesFolder(userFolder), 'node_modules', name);

/**
 * Installs a package tarball into a user folder the way n8n 2.x installs a community package
 * (CommunityPackagesService.downloadPackage): unpack it into nodes/node_modules/<name>, drop
 * its dev, peer and optional dependencies, `npm install` its own dependencies with scripts
 * off, and record it in nodes/package.json. n8n then loads it from there at start.
 */
export async function installCommunityPackage(userFolder: string, tarball: string): Promise<string> {
	const manifest = await readTarballManifest(tarball);
	const packageDir = installedPackageDir(userFolder, manifest.name);
	await fs.mkdir(packageDir, { recursive: true });
	assertSucceeded(await runCommand('tar', ['-xzf', tarball, '-C', packageDir, '--strip-components=1']), 'unpacking the package');

	const packageJsonPath = path.join(packageDir, 'package.json');
	const packageJson = JSON.parse(await fs.readFile(packageJsonPath, 'utf8')) as Record<string, unknown>;
	for (const field of ['devDependencies', 'peerDependencies', 'optionalDependencies']) delete packageJson[field];
	await fs.writeFile(packageJsonPath, JSON.stringify(packageJson, null, 2));
	const installFlags = ['--audit=false', '--fund=false', '--bin-links=false', '--install-strategy=shallow', '--ignore-scripts=true', '--package-lock=false'];
	assertSucceeded(await runCommand('npm', ['install', ...installFlags], { cwd: packageDir, env: childEnv() }), 'npm install in the package folder');

	const nodesPackageJson = path.join(nodesFolder(userFolder), 'package.json');
	const dependencies = { [manifest.name]: manifest.version };
	await fs.writeFile(nodesPackageJson, JSON.stringify({ name: 'installed-nodes', private: true, dependencies }, null, 2));
	return packageDir;
}

async function readTarballManifest(tarball: string): Promise<PackageManifest> {
	const result = assertSucceeded(await runCommand('tar', ['-xzOf', tarball, 'package/package.json']), 'reading the tarball');
	return JSON.parse(result.stdout) as PackageManifest;
}

/**
 * Replaces files of an installed package with a module that throws when n8n loads it (the
 * loading check's self-test), and returns how to put the originals back.
 */
export async function breakInstalledFiles(packageDir: string, files: string[]): Promise<() => Promise<void>> {
	const originals = new Map<string, Buffer>();
	for (const file of files) {
		const target = path.join(packageDir, file);
		originals.set(target, await fs.readFile(target));
		await fs.writeFile(target, `throw new Error('${path.basename(file)} broken on purpose by test:e2e');\n`);
	}
	return async () => {
		for (const [target, bytes] of originals) await fs.writeFile(target, bytes);
	};
}
