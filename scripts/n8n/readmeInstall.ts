import { promises as fs } from 'fs';
import path from 'path';

import { installedPackageDir, nodesFolder, type PackageManifest } from './communityPackage';
import { assertSucceeded, childEnv, runCommand } from './processes';

/**
 * The package goes into n8n the way the README's "Installation in n8n" tells a person to, from a
 * clone: the commands of its shell block that packs the package and installs the tarball into
 * `~/.n8n/nodes`, read from the README and run as written. So a command that does not work, or
 * that installs n8n's own packages again, fails every run of the e2e, dev and bench scripts.
 */
export const INSTALL_SECTION = '## Installation in n8n';

/** The commands of the install section's shell block that runs `npm pack`, one per line, comments dropped. */
export function readmeInstallCommands(readme: string): string[] {
	const start = readme.indexOf(`\n${INSTALL_SECTION}\n`);
	if (start < 0) throw new Error(`README.md has no section "${INSTALL_SECTION}"`);
	const next = readme.indexOf('\n## ', start + INSTALL_SECTION.length + 1);
	const section = readme.slice(start, next < 0 ? undefined : next);
	const blocks = [...section.matchAll(/^```(?:sh|bash|shell)\n([\s\S]*?)^```$/gm)].map(
		(match) => match[1],
	);
	const block = blocks.find((text) => /^\s*npm pack\b/m.test(text));
	if (!block)
		throw new Error(`README.md's "${INSTALL_SECTION}" has no shell block that runs npm pack`);
	return block
		.split('\n')
		.map((line) => line.replace(/\s+#.*$/, '').trim())
		.filter((line) => line !== '' && !line.startsWith('#'));
}

/**
 * Runs the README's install commands from the repository (a clone, built) with `home` as HOME,
 * and `userFolder` as N8N_USER_FOLDER when n8n's user folder is elsewhere, so the commands find
 * n8n's `nodes` folder as they would for a person; and checks what they left: the package in that
 * folder's `node_modules`, and nothing else there (n8n has its own n8n-workflow). npm's cache and
 * logs go to `npmCache`, outside that home, which keeps only what n8n and the install put there.
 * Returns where the package is installed.
 */
export async function installAsReadmeSays(
	root: string,
	home: string,
	manifest: PackageManifest,
	npmCache: string,
	userFolder = home,
): Promise<string> {
	const commands = readmeInstallCommands(await fs.readFile(path.join(root, 'README.md'), 'utf8'));
	const script = ['set -eu', ...commands].join('\n');
	const apart = userFolder === home ? {} : { N8N_USER_FOLDER: userFolder };
	const env = childEnv({ HOME: home, npm_config_cache: npmCache, ...apart });
	// A person's shell has N8N_USER_FOLDER only if they set it: not this process's (the tests').
	if (userFolder === home) delete env.N8N_USER_FOLDER;
	assertSucceeded(
		await runCommand('bash', ['-c', script], { cwd: root, env }),
		`the README's install commands (${commands.join('; ')})`,
	);
	const modules = path.join(nodesFolder(userFolder), 'node_modules');
	const installed = (await fs.readdir(modules).catch(() => [] as string[])).filter(
		(entry) => !entry.startsWith('.'),
	);
	const others = installed.filter((entry) => entry !== manifest.name);
	if (!installed.includes(manifest.name))
		throw new Error(`the README's install commands left no ${manifest.name} in ${modules}`);
	if (others.length > 0) {
		throw new Error(
			`the README's install commands installed more than ${manifest.name} into ${modules}: ${others.slice(0, 8).join(', ')}${others.length > 8 ? ', ...' : ''} (n8n's own packages must not be installed again)`,
		);
	}
	return installedPackageDir(userFolder, manifest.name);
}
