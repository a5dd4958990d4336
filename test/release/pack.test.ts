/**
 * What `npm publish` uploads (`npm pack --dry-run --json`): exactly what n8n loads from a
 * community package (the compiled nodes and credentials with their modules, each node's codex
 * file, every icon a node or credential names) plus package.json, README, LICENSE and CHANGELOG.
 * No sources, tests, type declarations, source maps or build leftovers.
 */
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';

import type { ICredentialType, INodeType, INodeTypeDescription, Themed } from 'n8n-workflow';

const root = path.resolve(__dirname, '../..');
const manifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as {
	license: string;
	n8n: { nodes: string[]; credentials: string[] };
};

function packedFiles(): string[] {
	const result = spawnSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
		cwd: root,
		encoding: 'utf8',
	});
	expect(result.status).toBe(0);
	const [packed] = JSON.parse(result.stdout) as Array<{ files: Array<{ path: string }> }>;
	return packed.files.map((file) => file.path).sort();
}

function filesUnder(dir: string): string[] {
	return fs
		.readdirSync(path.join(root, dir), { recursive: true, withFileTypes: true })
		.filter((entry) => entry.isFile())
		.map((entry) => path.relative(root, path.join(entry.parentPath, entry.name)));
}

function instance<T>(file: string): T {
	const exported = require(path.join(root, file)) as Record<string, new () => T>;
	return new (Object.values(exported)[0])();
}

/** The package-relative paths of the files an icon setting (`file:...`, plain or themed) names. */
function iconFiles(
	owner: string,
	icon: INodeTypeDescription['icon'] | Themed<string> | undefined,
): string[] {
	const names = typeof icon === 'string' ? [icon] : icon ? Object.values(icon) : [];
	return names
		.filter((name): name is string => typeof name === 'string' && name.startsWith('file:'))
		.map((name) => path.join(path.dirname(owner), name.slice('file:'.length)));
}

describe('npm pack', () => {
	let files: string[];
	beforeAll(() => {
		files = packedFiles();
	}, 60_000);

	it('holds the built JavaScript, codex files and icons of dist/, and the four top-level files', () => {
		const needed = filesUnder('dist').filter((file) => /\.(js|node\.json|svg|png)$/.test(file));
		expect(files).toEqual(
			[...needed, 'CHANGELOG.md', 'LICENSE', 'README.md', 'package.json'].sort(),
		);
	});

	it('holds no sources, tests, declarations, source maps or build leftovers', () => {
		const unwanted = files.filter(
			(file) =>
				/\.(ts|map|tsbuildinfo)$/.test(file) ||
				/^(nodes|credentials|test|scripts|bench|examples|icons|\.github|\.ci)\//.test(file) ||
				file === 'dist/package.json',
		);
		expect(unwanted).toEqual([]);
	});

	it('holds every node and credential n8n loads, with the icons and codex files they name', () => {
		const required = new Set<string>();
		for (const file of manifest.n8n.nodes) {
			required.add(file);
			required.add(file.replace(/\.js$/, '.json'));
			const { description } = instance<INodeType>(file);
			iconFiles(file, description.icon).forEach((icon) => required.add(icon));
		}
		for (const file of manifest.n8n.credentials) {
			required.add(file);
			iconFiles(file, instance<ICredentialType>(file).icon).forEach((icon) => required.add(icon));
		}
		expect(required.size).toBeGreaterThan(manifest.n8n.nodes.length * 3);
		expect([...required].filter((file) => !files.includes(file))).toEqual([]);
	});

	it('carries the MIT licence that package.json states', () => {
		expect(manifest.license).toBe('MIT');
		expect(fs.readFileSync(path.join(root, 'LICENSE'), 'utf8')).toMatch(
			/^MIT License\n\nCopyright \(c\) \d{4} /,
		);
	});
});
