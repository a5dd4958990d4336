import { ROOT } from '../harness/root';
import {
	fileCycles,
	packageSources,
	roomCycles,
	roomOf,
	upwardImports,
	type Sources,
} from './importGraph';

/**
 * The package's rooms (each folder of nodes/shared, each node's folder, credentials/shared,
 * credentials) import one another in one direction only, down the layers CONTRIBUTING.md states
 * (importGraph.ts LAYERS), and so do its files: a reader can then learn a room from the rooms
 * below it, never needing the one that imports it. Type-only imports and re-exports count: they
 * tie two rooms together for the reader all the same.
 */
const sources = packageSources(ROOT);

describe('imports between the rooms of the package', () => {
	it('go down the layers only: each import up or sideways printed as file imports file, with the rule it breaks', () => {
		expect(upwardImports(sources)).toEqual([]);
	});

	it('form no cycle: each one printed as room → room → room, with the first import of each step', () => {
		expect(roomCycles(sources)).toEqual([]);
	});

	it('form no cycle between files either', () => {
		expect(fileCycles(sources)).toEqual([]);
	});

	it('are read from every room: the check is not passing on an empty package', () => {
		expect([...new Set([...sources.keys()].map(roomOf))]).toEqual(
			expect.arrayContaining([
				'credentials',
				'credentials/shared',
				'nodes/AbstractIpLookup',
				'nodes/shared/engine',
				'nodes/shared/values',
			]),
		);
	});
});

describe('the check itself', () => {
	const scratch = (files: Record<string, string>): Sources => new Map(Object.entries(files));

	it('finds a cycle made of a type-only import and a re-export, naming each step', () => {
		const sources = scratch({
			'nodes/shared/engine/run.ts': "import type { Rule } from '../values/rules';\n",
			'nodes/shared/values/rules.ts': "export { fail } from '../engine/errors';\n",
			'nodes/shared/engine/errors.ts': 'export const fail = 1;\n',
		});
		expect(roomCycles(sources)).toEqual([
			[
				'nodes/shared/engine → nodes/shared/values → nodes/shared/engine',
				'  nodes/shared/engine/run.ts imports nodes/shared/values/rules.ts',
				'  nodes/shared/values/rules.ts imports nodes/shared/engine/errors.ts',
			].join('\n'),
		]);
		expect(fileCycles(sources)).toEqual([]);
	});

	it('finds an upward import, a sideways one, a credential importing a node room and a room no layer places', () => {
		const sources = scratch({
			'nodes/shared/engine/serviceClient.ts':
				"import { live } from '../../../credentials/shared/urls';\n",
			'credentials/shared/urls.ts': 'export const live = 1;\n',
			'nodes/shared/values/rules.ts': "import type { Row } from '../csv/row';\n",
			'nodes/shared/csv/row.ts': 'export type Row = string[];\n',
			'credentials/Key.credentials.ts': "import { fail } from '../nodes/shared/engine/errors';\n",
			'nodes/shared/engine/errors.ts': 'export const fail = 1;\n',
			'nodes/shared/helpers.ts': "import { fail } from './engine/errors';\n",
		});
		expect(upwardImports(sources)).toEqual([
			'nodes/shared is a room the layers do not place (importGraph.ts LAYERS)',
			'credentials/Key.credentials.ts imports nodes/shared/engine/errors.ts: credentials imports nothing under nodes/',
			'nodes/shared/engine/serviceClient.ts imports credentials/shared/urls.ts: nodes/shared/engine (layer 0) imports only rooms of the layers below it, and credentials/shared is of layer 0',
			'nodes/shared/values/rules.ts imports nodes/shared/csv/row.ts: nodes/shared/values (layer 1) imports only rooms of the layers below it, and nodes/shared/csv is of layer 4',
		]);
	});

	it('finds a cycle between two files of one room, which no room cycle shows', () => {
		const sources = scratch({
			'credentials/shared/a.ts': "import { b } from './b';\nexport const a = b;\n",
			'credentials/shared/b.ts': "import type { A } from './a.ts';\nexport const b = 1;\n",
		});
		expect(roomCycles(sources)).toEqual([]);
		expect(fileCycles(sources)).toEqual([
			'credentials/shared/a.ts → credentials/shared/b.ts → credentials/shared/a.ts',
		]);
	});
});
