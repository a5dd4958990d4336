import { existsSync } from 'fs';
import path from 'path';

/**
 * The repository's folder (where package.json is), from test/harness or from its compiled copy
 * under .out/. A module of its own, free of side effects: the n8n scripts need it without the
 * harness's environment (./env.ts).
 */
export const ROOT = findPackageRoot(__dirname);

function findPackageRoot(from: string): string {
	let dir = from;
	while (!existsSync(path.join(dir, 'package.json')) || path.basename(dir) === '.out') {
		const parent = path.dirname(dir);
		if (parent === dir) throw new Error('package.json not found above the harness');
		dir = parent;
	}
	return dir;
}
