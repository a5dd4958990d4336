import { readFileSync, promises as fs } from 'fs';
import path from 'path';

import { ROOT } from '../harness/root';

/**
 * The files examples read from storage (a Read/Write Files node reading `.n8n-files/<name>`), by
 * file name. They are the samples shipped in `examples/files/`, the ones the README tells a user
 * to copy into `~/.n8n-files`: the demo, the tests and `npm run test:e2e` put the same bytes in
 * place before an example runs, so what they prove is what a user who follows the README gets.
 * A relative path (the examples' `.n8n-files/...`) is taken from n8n's working directory, as n8n
 * takes it; the folder must exist, as it must for n8n.
 *
 * - `leads.csv`: a header row, quoted commas and quotes, a note over two lines, non-ASCII names,
 *   CRLF line ends, and addresses the sandbox answers in different ways (free provider, a typo
 *   domain, a disposable domain, a role address).
 * - `domains.csv`: a lead export's company domains, with the same traps.
 * - `access-log.csv`: a web server's access log as a CSV export: a user agent quoted with commas
 *   and quotes in it, IPv4 and IPv6 clients that come back again and again, a private address
 *   (found in no database).
 */
export const SAMPLE_FILES_FOLDER = path.join(ROOT, 'examples', 'files');

const SAMPLE_NAMES = ['leads.csv', 'domains.csv', 'access-log.csv'];

/** Each stored input by the file name an example reads, as the shipped sample holds it. */
export const STORED_INPUTS: Record<string, string> = Object.fromEntries(
	SAMPLE_NAMES.map((name) => [name, readFileSync(path.join(SAMPLE_FILES_FOLDER, name), 'utf8')]),
);

interface WorkflowLike {
	nodes: Array<{ type: string; parameters: Record<string, unknown> }>;
}

/** Puts each stored input a workflow reads in place; returns the paths written. */
export async function placeStoredInputs(
	workflow: WorkflowLike,
	workingDirectory: string,
): Promise<string[]> {
	const placed: string[] = [];
	for (const node of workflow.nodes) {
		if (node.type !== 'n8n-nodes-base.readWriteFile' || node.parameters.operation !== 'read')
			continue;
		const filePath = path.resolve(workingDirectory, String(node.parameters.fileSelector ?? ''));
		const name = path.basename(filePath);
		if (!Object.hasOwn(STORED_INPUTS, name)) continue;
		await fs.rm(filePath, { force: true });
		await fs.copyFile(path.join(SAMPLE_FILES_FOLDER, name), filePath);
		placed.push(filePath);
	}
	return placed;
}
