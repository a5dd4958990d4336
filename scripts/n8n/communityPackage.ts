import { promises as fs } from 'fs';
import path from 'path';

/** The package.json fields that say what n8n should load. */
export interface PackageManifest {
	name: string;
	version: string;
	n8n: { nodes: string[]; credentials: string[] };
}

export async function readManifest(root: string): Promise<PackageManifest> {
	return JSON.parse(await fs.readFile(path.join(root, 'package.json'), 'utf8')) as PackageManifest;
}

/** Where n8n keeps community packages of a user folder (`N8N_USER_FOLDER`). */
export const nodesFolder = (userFolder: string) => path.join(userFolder, '.n8n', 'nodes');
export const installedPackageDir = (userFolder: string, name: string) =>
	path.join(nodesFolder(userFolder), 'node_modules', name);

/**
 * Replaces files of an installed package with a module that throws when n8n loads it (the
 * loading check's self-test), and returns how to put the originals back.
 */
export async function breakInstalledFiles(
	packageDir: string,
	files: string[],
): Promise<() => Promise<void>> {
	const originals = new Map<string, Buffer>();
	for (const file of files) {
		const target = path.join(packageDir, file);
		originals.set(target, await fs.readFile(target));
		await fs.writeFile(
			target,
			`throw new Error('${path.basename(file)} broken on purpose by test:e2e');\n`,
		);
	}
	return async () => {
		for (const [target, bytes] of originals) await fs.writeFile(target, bytes);
	};
}
