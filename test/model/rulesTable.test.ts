import { readFileSync } from 'fs';
import path from 'path';

import { ROOT } from '../harness/root';
import { RULES } from './paidAnswersModel';

/**
 * The table "Who may take a paid answer" of docs/errors-and-credits.md is the model's rows
 * (paidAnswersModel.ts's RULES), in their order: a row changed in one and not the other fails
 * here, and the random histories (histories.test.ts) hold the model's rows to the nodes.
 */
const page = readFileSync(path.join(ROOT, 'docs', 'errors-and-credits.md'), 'utf8');
const start = page.indexOf('\n## Who may take a paid answer\n');
const section = page.slice(start, page.indexOf('\n## ', start + 1));

/** The rows of the section's first table, each as its cells, without its header and rule lines. */
function firstTable(text: string): string[][] {
	const lines = text.split('\n');
	const first = lines.findIndex((line) => line.startsWith('|'));
	const table = lines.slice(
		first,
		lines.findIndex((line, index) => index > first && !line.startsWith('|')),
	);
	return table.slice(2).map((line) =>
		line
			.slice(1, -1)
			.split('|')
			.map((cell) => cell.trim()),
	);
}

it('the rules table of docs/errors-and-credits.md is the model, row by row', () => {
	expect(start).toBeGreaterThan(0);
	expect(firstTable(section)).toEqual(RULES.map(({ who, which, until }) => [who, which, until]));
});
