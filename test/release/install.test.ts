/**
 * The README's "Installation in n8n" is true today: it says whether the version package.json
 * holds is released (as CHANGELOG.md says), and its commands, run as written from this
 * repository into a fresh home, pack the package and install the tarball into `~/.n8n/nodes`
 * with nothing else beside it (n8n brings its own n8n-workflow). The e2e runs the same
 * commands before n8n loads the package (scripts/n8n/readmeInstall.ts).
 */
import { promises as fs } from 'fs';
import os from 'os';
import path from 'path';

import { readManifest } from '../../scripts/n8n/communityPackage';
import { installAsReadmeSays, readmeInstallCommands } from '../../scripts/n8n/readmeInstall';

const root = path.resolve(__dirname, '../..');
const readme = () => fs.readFile(path.join(root, 'README.md'), 'utf8');

describe("the README's install section", () => {
	it('says the version is not released while the CHANGELOG says so, and names its tarball', async () => {
		const manifest = await readManifest(root);
		const changelog = await fs.readFile(path.join(root, 'CHANGELOG.md'), 'utf8');
		const unreleased = new RegExp(
			`^## ${manifest.version.replace(/\./g, '\\.')} \\(unreleased\\)$`,
			'm',
		).test(changelog);
		const text = (await readme()).replace(/\s+/g, ' ');
		expect({
			unreleased,
			readmeSays: text.includes(
				`**Not released yet**: version ${manifest.version} is not on the npm registry`,
			),
		}).toEqual({
			unreleased,
			readmeSays: unreleased,
		});
		expect(readmeInstallCommands(await readme()).join('\n')).toContain(
			`./${manifest.name}-${manifest.version}.tgz`,
		);
	});

	it('reads the commands of the block that packs the package, and refuses a README without one', async () => {
		const commands = readmeInstallCommands(await readme());
		expect(commands.some((command) => command.startsWith('npm pack'))).toBe(true);
		expect(commands.some((command) => /^npm install .*--legacy-peer-deps/.test(command))).toBe(
			true,
		);
		expect(() =>
			readmeInstallCommands('# x\n\n## Installation in n8n\n\n```sh\nnpm install x\n```\n'),
		).toThrow(/no shell block that runs npm pack/);
	});

	it('installs the package alone into ~/.n8n/nodes when run as written', async () => {
		const work = await fs.mkdtemp(path.join(os.tmpdir(), 'readme-install-'));
		try {
			const home = path.join(work, 'home');
			await fs.mkdir(home);
			const manifest = await readManifest(root);
			const installed = await installAsReadmeSays(
				root,
				home,
				manifest,
				path.join(work, 'npm-cache'),
			);
			const packageJson = JSON.parse(
				await fs.readFile(path.join(installed, 'package.json'), 'utf8'),
			) as { name: string; version: string };
			expect([installed, packageJson.name, packageJson.version]).toEqual([
				path.join(home, '.n8n', 'nodes', 'node_modules', manifest.name),
				manifest.name,
				manifest.version,
			]);
			for (const file of [...manifest.n8n.nodes, ...manifest.n8n.credentials])
				await fs.access(path.join(installed, file));
		} finally {
			await fs.rm(work, { recursive: true, force: true });
		}
	}, 120_000);
});
