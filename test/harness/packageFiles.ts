import path from 'path';

import type { ICredentialType } from 'n8n-workflow';

import { ROOT } from './root';

/*
 * The package's files as n8n loads them, without n8n-core: the e2e and bench scripts read the
 * credential types too, and must not take on the settings the harness's engine puts into the
 * environment (test/harness/env.ts), which the n8n they start would inherit.
 */

/**
 * The package as n8n loads it: every node and credential file that package.json's `n8n` section
 * lists, required from `dist/` (so `npm run build` must have run), under the package's name.
 */
export const manifest = require(path.join(ROOT, 'package.json')) as {
	name: string;
	n8n: { nodes: string[]; credentials: string[] };
};

export const PACKAGE_NAME = manifest.name;

export function loadClass<T>(file: string): T {
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	const exported = require(path.join(ROOT, file)) as Record<string, new () => T>;
	const [Class] = Object.values(exported);
	return new Class();
}

let credentialTypes: Map<string, ICredentialType> | undefined;

export function packageCredentialTypes(): Map<string, ICredentialType> {
	credentialTypes ??= new Map(
		manifest.n8n.credentials.map((file) => {
			const type = loadClass<ICredentialType>(file);
			return [type.name, type];
		}),
	);
	return credentialTypes;
}
