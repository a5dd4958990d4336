/**
 * The "What costs a credit" table of docs/errors-and-credits.md: every line names the test that
 * checks it, and that test exists and reads the sandbox's request log (what was sent is what the
 * line says). Every node of package.json is in the table, so a new node cannot go unpriced.
 */
import * as fs from 'fs';
import * as path from 'path';

const root = path.resolve(__dirname, '../..');
const page = fs.readFileSync(path.join(root, 'docs', 'errors-and-credits.md'), 'utf8');
const section = page.slice(
	page.indexOf('## What costs a credit'),
	page.indexOf('\n## ', page.indexOf('## What costs a credit') + 3),
);
const rows = section
	.split('\n')
	.filter(
		(line) => line.startsWith('| ') && !line.startsWith('| What |') && !line.startsWith('|---'),
	)
	.map((line) =>
		line
			.split('|')
			.slice(1, -1)
			.map((cell) => cell.trim()),
	);

describe('What costs a credit', () => {
	it('is a table of at least ten lines', () => {
		expect(rows.length).toBeGreaterThanOrEqual(10);
	});

	it('names, on every line, a test that exists and checks what was sent in the request log', () => {
		const problems = rows.flatMap(([what, , checkedBy]) => {
			const files = [...(checkedBy ?? '').matchAll(/`([^`]+\.test\.ts)`/g)].map(
				(match) => match[1],
			);
			if (files.length === 0) return [`"${what}": no test named`];
			return files.flatMap((file) => {
				const full = path.join(root, file);
				if (!fs.existsSync(full)) return [`"${what}": ${file} does not exist`];
				return /\.requests\(|sandbox\.log\b/.test(fs.readFileSync(full, 'utf8'))
					? []
					: [`"${what}": ${file} does not read the request log`];
			});
		});
		expect(problems).toEqual([]);
	});

	it('prices every node of the package', () => {
		const manifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as {
			n8n: { nodes: string[] };
		};
		const names = manifest.n8n.nodes.map((file) => {
			const exported = require(path.join(root, file)) as Record<
				string,
				new () => {
					description?: { displayName: string };
					nodeVersions?: Record<string, { description: { displayName: string } }>;
				}
			>;
			const node = new (Object.values(exported)[0])();
			return (
				node.description ?? Object.values(node.nodeVersions ?? {})[0].description
			).displayName.replace(/^Abstract /, '');
		});
		const firstColumn = rows.map(([what]) => what).join(' | ');
		expect(names.filter((name) => !firstColumn.includes(name))).toEqual([]);
	});
});
