/**
 * n8n's community-package scan (scripts/scan.mjs: @n8n/scan-community-package's own analyzePackage
 * over the source and over the `npm pack` tarball) passes on this package, and fails on a copy of
 * it with one planted violation in either place: in the source even under an inline
 * eslint-disable (n8n ignores those), in the tarball even where the source is clean.
 */
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

const root = path.resolve(__dirname, '../..');
const scanScript = path.join(root, 'scripts/scan.mjs');

function scan(dir: string) {
	const result = spawnSync(process.execPath, [scanScript, dir], { encoding: 'utf8' });
	return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

/** A copy of the built package (without node_modules and git): it scans as clean as the original. */
function copyPackage(): string {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'n8n-abstractapi-scan-test-'));
	const skipped = new Set(['node_modules', '.git', '.out'].map((entry) => path.join(root, entry)));
	try {
		fs.cpSync(root, dir, { recursive: true, filter: (source) => !skipped.has(source) });
	} catch (error) {
		fs.rmSync(dir, { recursive: true, force: true });
		throw error;
	}
	return dir;
}

/** An unsorted options list, the rule the scanner first found here, hidden by an inline disable. */
const UNSORTED_OPTIONS_UNDER_DISABLE = `import type { INodeProperties } from 'n8n-workflow';

export const planted: INodeProperties = {
	displayName: 'Planted',
	name: 'planted',
	type: 'options',
	default: 'c',
	// eslint-disable-next-line n8n-nodes-base/node-param-options-type-unsorted-items
	options: [
		{ name: 'Charlie', value: 'c' },
		{ name: 'Alpha', value: 'a' },
		{ name: 'Bravo', value: 'b' },
		{ name: 'Delta', value: 'd' },
		{ name: 'Echo', value: 'e' },
	],
};
`;

describe("n8n's community-package scan", () => {
	const copies: string[] = [];
	afterAll(() => copies.forEach((dir) => fs.rmSync(dir, { recursive: true, force: true })));

	it('passes on the source and on the packed tarball', () => {
		const { status, output } = scan(root);
		expect(output).toContain('✔ source:');
		expect(output).toContain('✔ npm pack tarball:');
		expect(status).toBe(0);
	}, 180_000);

	it('fails on a source violation hidden by an inline eslint-disable', () => {
		const dir = copyPackage();
		copies.push(dir);
		fs.writeFileSync(
			path.join(dir, 'nodes/AbstractIban/planted.ts'),
			UNSORTED_OPTIONS_UNDER_DISABLE,
		);
		const { status, output } = scan(dir);
		expect(output).toMatch(
			/✖ source: ESLint violations found[\s\S]*planted\.ts[\s\S]*node-param-options-type-unsorted-items/,
		);
		expect(output).toContain('✔ npm pack tarball:');
		expect(status).toBe(1);
	}, 180_000);

	it('fails on a violation only the packed JavaScript holds', () => {
		const dir = copyPackage();
		copies.push(dir);
		fs.writeFileSync(
			path.join(dir, 'dist/nodes/AbstractIban/planted.js'),
			'setTimeout(() => undefined, 10);\n',
		);
		const { status, output } = scan(dir);
		expect(output).toContain('✔ source:');
		expect(output).toMatch(
			/✖ npm pack tarball: ESLint violations found[\s\S]*planted\.js[\s\S]*no-restricted-globals/,
		);
		expect(status).toBe(1);
	}, 180_000);

	it('fails when the tarball lacks the built nodes', () => {
		const dir = copyPackage();
		copies.push(dir);
		fs.rmSync(path.join(dir, 'dist'), { recursive: true });
		const { status, output } = scan(dir);
		expect(output).toContain('the tarball lacks the registered nodes/credentials');
		expect(status).toBe(1);
	}, 180_000);
});
