import { promises as fs } from 'fs';
import path from 'path';

import { packageCredentialTypes, ROOT } from '../harness/nodeTypes';
import {
	CREDENTIAL_DISPLAY_NAMES,
	exampleCredentialId,
	exampleCredentialName,
} from '../harness/sandboxCredentials';

/**
 * The sandbox credentials that dev, e2e and the examples use carry the name the editor gives the
 * credential type ("Abstract Email Reputation API (sandbox)"), not the type's internal name: a user
 * who imports an example, or opens `npm run dev`, meets one name per thing.
 */
describe('example credentials', () => {
	it('are named after each type as n8n loads it', () => {
		const loaded = [...packageCredentialTypes().values()];
		expect(Object.fromEntries(loaded.map((type) => [type.name, type.displayName]))).toEqual(
			CREDENTIAL_DISPLAY_NAMES,
		);
	});

	it('are referred to by those names in every example workflow', async () => {
		const folder = path.join(ROOT, 'examples');
		const wrong: string[] = [];
		for (const file of (await fs.readdir(folder)).filter((name) => name.endsWith('.json'))) {
			const workflow = JSON.parse(await fs.readFile(path.join(folder, file), 'utf8')) as {
				nodes: Array<{ name: string; credentials?: Record<string, { id: string; name: string }> }>;
			};
			for (const node of workflow.nodes) {
				for (const [type, reference] of Object.entries(node.credentials ?? {})) {
					const expected = { id: exampleCredentialId(type), name: exampleCredentialName(type) };
					if (reference.id !== expected.id || reference.name !== expected.name) {
						wrong.push(
							`${file} "${node.name}": ${JSON.stringify(reference)}, not ${JSON.stringify(expected)}`,
						);
					}
				}
			}
		}
		expect(wrong).toEqual([]);
	});
});
