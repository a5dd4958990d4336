import { promises as fs } from 'fs';
import path from 'path';

import { Container } from '@n8n/di';
import { BinaryDataService } from 'n8n-core';
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { parseCsv } from '../nodes/shared/csv/csv';

import { runWorkflow, type WorkflowJson } from '../test/harness/run';
import { createN8nFilesFolder, N8N_WORKING_DIRECTORY } from '../test/harness/n8nFiles';
import { allSandboxCredentials } from '../test/harness/sandboxCredentials';
import { ROOT } from '../test/harness/nodeTypes';
import { placeStoredDatabases } from '../test/sandbox/ipDatabases/storedFiles';
import { startSandbox } from '../test/sandbox/server';
import { placeStoredInputs } from '../test/sandbox/storedInputs';
import { formatTable } from './table';

/**
 * The package's main job on the embedded sandbox: every workflow in examples/, run through
 * n8n-core's engine exactly as saved, with credentials pointing at the sandbox on 127.0.0.1.
 * Lead enrichment first (its enriched rows as a table), then the media and database examples,
 * whose files land in the folder printed at the end.
 *
 * The n8n process the harness plays has a fresh home folder of its own in the system's temporary
 * folder (new every run, so runs of demo, dev and test:e2e never share files): the demo makes its
 * `~/.n8n-files`, as a user has to, and the examples write there, as in a stock n8n.
 */
const RATE = 5; // requests per second: the sandbox plays a paid plan, the nodes pace to it

async function main() {
	const sandbox = await startSandbox();
	for (const service of Object.keys(sandbox.baseUrls)) sandbox.limitRate(service, RATE);
	const outputFolder = await createN8nFilesFolder();

	const examplesDir = path.join(ROOT, 'examples');
	const files = (await fs.readdir(examplesDir))
		.filter((file) => file.endsWith('.json'))
		.sort((a, b) => Number(b === 'lead-enrichment.json') - Number(a === 'lead-enrichment.json') || a.localeCompare(b));

	let failed = false;
	for (const file of files) {
		const workflow = JSON.parse(await fs.readFile(path.join(examplesDir, file), 'utf8')) as WorkflowJson;
		// A workflow that reads a stored database file finds the sandbox's build where it looks.
		await placeStoredDatabases(workflow, N8N_WORKING_DIRECTORY);
		// And one that reads a stored list (leads, domains) finds the sample one.
		await placeStoredInputs(workflow, N8N_WORKING_DIRECTORY);
		const started = Date.now();
		const result = await runWorkflow(workflow, { credentials: allSandboxCredentials(sandbox, { requestsPerSecond: RATE }) });
		const seconds = ((Date.now() - started) / 1000).toFixed(1);
		console.log(`\n== ${workflow.name ?? file}  (examples/${file}, ${seconds} s)`);
		if (result.error) {
			failed = true;
			console.log(`   FAILED: ${result.error.message}${result.error.description ? `\n   ${result.error.description}` : ''}`);
			continue;
		}
		for (const node of lastNodesThatRan(workflow, result.run.data.resultData.runData)) {
			// A branch fed by a node's error output ("Continue (using error output)") says so, and
			// shows its reasons wider: they are what the run has to tell about those items.
			const errorSource = errorOutputFeeding(workflow, node);
			console.log(`\n${node}${errorSource ? ` (the error output of ${errorSource})` : ''}:`);
			console.log(formatTable(result.output(node).map(describeItem), errorSource ? 90 : undefined));
			for (const table of await csvTables(result.output(node))) console.log(`\n${table}`);
		}
	}

	const requests = sandbox.log.filter((entry) => entry.service !== 'storage');
	const refused = requests.filter((entry) => entry.status === 429).length;
	console.log(`\nSandbox: ${requests.length} API requests (${refused} answered 429), ${sandbox.requests('storage').length} storage downloads.`);
	const written = await listFiles(outputFolder);
	if (written.length > 0) {
		console.log(`Files written to ${outputFolder} (the ~/.n8n-files of the n8n the demo plays, whose home is ${N8N_WORKING_DIRECTORY}):`);
		for (const file of written) console.log(`  ${path.relative(outputFolder, file.path)}  ${file.size} bytes`);
	}
	await sandbox.close();
	// n8n-core leaves handles open after a run; the demo is done.
	process.exit(failed ? 1 : 0);
}

/** Nodes that ran and whose outputs lead nowhere that ran: what a workflow ends with. */
function lastNodesThatRan(workflow: WorkflowJson, runData: Record<string, unknown>): string[] {
	const ran = new Set(Object.keys(runData));
	return workflow.nodes
		.map((node) => node.name)
		.filter((name) => ran.has(name))
		.filter((name) => {
			const targets = (workflow.connections[name]?.main ?? []).flat().map((connection) => connection?.node);
			return !targets.some((target) => target && ran.has(target));
		});
}

/** The node whose error output (its last, with On Error "Continue (using error output)") feeds `name`, if one does. */
function errorOutputFeeding(workflow: WorkflowJson, name: string): string | undefined {
	return workflow.nodes.find(
		(node) =>
			node.onError === 'continueErrorOutput' &&
			(workflow.connections[node.name]?.main ?? []).slice(1).some((targets) => (targets ?? []).some((target) => target.node === name)),
	)?.name;
}

/** One table row per item: its scalar fields, and its files by name, type and size. */
function describeItem(item: INodeExecutionData): Record<string, unknown> {
	const row: IDataObject = {};
	for (const [key, value] of Object.entries(item.json)) {
		if (value === null || typeof value !== 'object') row[key] = value;
	}
	for (const [property, file] of Object.entries(item.binary ?? {})) {
		row[`binary.${property}`] = `${file.fileName ?? '?'} (${file.mimeType}, ${file.fileSize ?? '?'})`;
	}
	return row;
}

/** A CSV file an item carries (the bulk CSV example's output), shown as the table it holds. */
async function csvTables(items: INodeExecutionData[]): Promise<string[]> {
	const tables: string[] = [];
	for (const item of items) {
		for (const [property, file] of Object.entries(item.binary ?? {})) {
			if (file.mimeType !== 'text/csv') continue;
			const [header, ...rows] = parseCsv(await Container.get(BinaryDataService).getAsBuffer(file)).map((row) => row.fields);
			// A line break inside a cell is shown as ⏎ so that each row stays on one line.
			const shown = (text = '') => text.replace(/\r\n|\r|\n/g, '⏎');
			const records = rows.map((fields) => Object.fromEntries(header.map((name, index) => [name, shown(fields[index])])));
			tables.push(`binary.${property} (${file.fileName ?? 'CSV'}):\n${formatTable(records, 28)}`);
		}
	}
	return tables;
}

async function listFiles(folder: string): Promise<Array<{ path: string; size: number }>> {
	const entries = await fs.readdir(folder, { withFileTypes: true, recursive: true }).catch(() => []);
	const files = entries.filter((entry) => entry.isFile());
	return await Promise.all(
		files.map(async (entry) => {
			const full = path.join(entry.parentPath ?? (entry as unknown as { path: string }).path, entry.name);
			return { path: full, size: (await fs.stat(full)).size };
		}),
	);
}

void main().catch((error: Error) => {
	console.error(error);
	process.exit(1);
});
