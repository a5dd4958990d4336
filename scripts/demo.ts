import { promises as fs } from 'fs';
import path from 'path';

import { Container } from '@n8n/di';
import { BinaryDataService } from 'n8n-core';
import type { IBinaryData, INodeExecutionData } from 'n8n-workflow';

import { parseCsv } from '../nodes/shared/csv/csv';

import { N8N_HOME, SCRATCH_FOLDER, keepScratchFolder } from '../test/harness/env';
import { runWorkflow, type RunResult, type WorkflowJson } from '../test/harness/run';
import { createN8nFilesFolder, N8N_WORKING_DIRECTORY } from '../test/harness/n8nFiles';
import { allSandboxCredentials } from '../test/harness/sandboxCredentials';
import { ROOT } from '../test/harness/nodeTypes';
import { placeStoredDatabases } from '../test/sandbox/ipDatabases/storedFiles';
import { startSandbox } from '../test/sandbox/server';
import { placeStoredInputs } from '../test/sandbox/storedInputs';
import { cut, fitsWhole, formatRecords, formatTable, leaves, outputWidth, wrap } from './table';

/**
 * The package's main job on the embedded sandbox: every workflow in examples/, run through
 * n8n-core's engine exactly as saved, with credentials pointing at the sandbox on 127.0.0.1.
 * Lead enrichment first, then the others; each shows what its last nodes output as a table when
 * its columns fit the terminal whole, else as one card per item, nothing cut.
 *
 * The n8n process the harness plays has a fresh home folder of its own in the system's temporary
 * folder (new every run, so runs of demo, dev and test:e2e never share files and no run depends
 * on what an earlier one left): the demo makes its `~/.n8n-files`, as a user has to, and the
 * examples write there, as in a stock n8n. The folder is removed at the end, and on Ctrl-C;
 * `-- --keep` keeps it (the files the workflows wrote, and each example's full output as JSON) for
 * the user to look at.
 */
const RATE = 5; // requests per second: the sandbox plays a paid plan, the nodes pace to it

/** Where the demo writes each example's full output (beside `~/.n8n-files`, which is the workflows' own). */
export const ANSWERS_FOLDER = path.join(N8N_HOME, 'demo-answers');

/**
 * The few leaves that tell what an example does, per example file and table (a node's name, or
 * the name of a CSV file its items carry); every leaf is in the answers file. Other tables show
 * every field, narrowed to fit.
 */
const RESULT_FILE_SUMMARY = [
	'rows',
	'answered',
	'requestsSent',
	'fileRows',
	'fileName',
	'binary.data',
];
const SHOWN_COLUMNS: Record<string, Record<string, readonly string[]>> = {
	'bulk-company-result-file.json': {
		'Save result file': RESULT_FILE_SUMMARY,
		'domains-results.csv': [
			'company',
			'domain',
			'company_name',
			'year_founded',
			'city',
			'country',
			'industry',
		],
	},
	'bulk-email-csv.json': {
		'leads-enriched.csv': [
			'name',
			'row',
			'email',
			'deliverability',
			'status_detail',
			'quality_score',
			'is_disposable',
			'suggested_correction',
		],
	},
	'bulk-email-result-file.json': {
		'Save result file': RESULT_FILE_SUMMARY,
		'leads-results.csv': [
			'name',
			'email',
			'email_deliverability.status',
			'email_deliverability.status_detail',
			'suggested_correction',
			'email_quality.is_disposable',
		],
	},
	'ip-lookup-after-download.json': {
		'IP Database Lookup': [
			'ip_address',
			'city',
			'region',
			'country',
			'country_code',
			'found',
			'reason',
		],
	},
	'ip-lookup-log-result-file.json': {
		'Save result file': ['rows', 'answered', 'lookups', 'fileRows', 'fileName', 'binary.data'],
		'access-log-results.csv': [
			'time',
			'client_ip',
			'request',
			'http_status',
			'city',
			'country',
			'found',
			'reason',
		],
	},
	'ip-lookup-stored-database.json': {
		'IP Database Lookup': [
			'ip_address',
			'network',
			'city',
			'region',
			'country',
			'timezone_name',
			'found',
			'reason',
		],
	},
	'ip-lookup-three-databases.json': {
		'IP Database Lookup': [
			'ip_address',
			'city',
			'connection.autonomous_system_organization',
			'security.is_tor',
			'security.is_abuse',
			'found',
			'reason',
		],
	},
};

/** The line every demo run starts with: what the answers are. */
export const SANDBOX_NOTE = [
	"The answers below are the sandbox's made-up data (81.2.69.142 shows as Paris,",
	"France), not the live services': no key, no credit, nothing leaves this machine.",
];

/** One item as a table row: its leaves by dotted path, and its files by name, type and size. */
export function itemRow(item: INodeExecutionData): Record<string, unknown> {
	const row = leaves(item.json);
	for (const [property, file] of Object.entries(item.binary ?? {})) {
		row[`binary.${property}`] =
			`${file.fileName ?? '?'} (${file.mimeType}, ${file.fileSize ?? '?'})`;
	}
	return row;
}

/** The columns a table of an example shows: its chosen leaves that the rows have, else all. */
function columnsFor(
	example: string,
	table: string,
	rows: Array<Record<string, unknown>>,
): string[] | undefined {
	const present = new Set(rows.flatMap((row) => Object.keys(row)));
	const chosen = (SHOWN_COLUMNS[example]?.[table] ?? []).filter((column) => present.has(column));
	return chosen.length > 0 ? chosen : undefined;
}

/** A file an item carries, as it would be saved: its binary metadata without the bytes. */
function fileFacts(file: IBinaryData): Record<string, unknown> {
	const { data: _data, ...facts } = file;
	return facts;
}

/** A table of an example's run: its title, its lines (header, rule, one per row, maybe a note). */
export interface ShownTable {
	title: string;
	/** The node whose items the rows are; none for the rows of a CSV file an item carries. */
	node?: string;
	rows: number;
	/** The rows' values by column, and the columns chosen to show (all, when none is chosen). */
	data: Array<Record<string, unknown>>;
	columns?: string[];
	lines: string[];
	/** Shown as one card per item instead, its columns not fitting the width whole: each card's lines. */
	records?: string[][];
}

/** What an example's run shows: its tables, and its full answers for the file. */
export interface ExampleView {
	tables: ShownTable[];
	/** Every item of every node the workflow ends with, in full (files by their metadata). */
	answers: Record<string, unknown>;
	/** The CSV files its items carry, by file name, as they are. */
	csvFiles: Array<{ name: string; content: Buffer }>;
}

/** The tables of one example's run, every line within `width`, and its answers in full. */
export async function viewOf(
	example: string,
	workflow: WorkflowJson,
	result: RunResult,
	width: number,
): Promise<ExampleView> {
	const tables: ShownTable[] = [];
	const answers: Record<string, unknown> = {};
	const csvFiles: ExampleView['csvFiles'] = [];
	const table = (
		title: string,
		rows: Array<Record<string, unknown>>,
		key: string,
		node?: string,
	) => {
		const columns = columnsFor(example, key, rows);
		if (!fitsWhole(rows, { width, columns })) {
			const records = formatRecords(rows, { width, columns });
			tables.push({
				title: cut(title, width),
				node,
				rows: rows.length,
				data: rows,
				columns,
				lines: records.flatMap((block, index) => (index > 0 ? ['', ...block] : block)),
				records,
			});
		} else
			tables.push({
				title: cut(title, width),
				node,
				rows: rows.length,
				data: rows,
				columns,
				lines: formatTable(rows, { width, maxCell: width, columns }).split('\n'),
			});
	};
	for (const node of lastNodesThatRan(workflow, result.run.data.resultData.runData)) {
		const items = result.output(node);
		answers[node] = items.map((item) => ({
			json: item.json,
			...(item.binary
				? {
						binary: Object.fromEntries(
							Object.entries(item.binary).map(([name, file]) => [name, fileFacts(file)]),
						),
					}
				: {}),
		}));
		// A branch fed by a node's error output ("Continue (using error output)") says so.
		const errorSource = errorOutputFeeding(workflow, node);
		table(
			`${node}${errorSource ? ` (the error output of ${errorSource})` : ''}:`,
			items.map(itemRow),
			node,
			node,
		);
		for (const item of items) {
			for (const [property, file] of Object.entries(item.binary ?? {})) {
				if (file.mimeType !== 'text/csv') continue;
				const content = await Container.get(BinaryDataService).getAsBuffer(file);
				const name = file.fileName ?? `${property}.csv`;
				csvFiles.push({ name, content });
				const [header, ...records] = parseCsv(content).map((row) => row.fields);
				const csvRows = records.map((fields) =>
					Object.fromEntries(header.map((column, index) => [column, fields[index]])),
				);
				table(`binary.${property} (${name}):`, csvRows, name);
			}
		}
	}
	return { tables, answers, csvFiles };
}

/** The example files, lead enrichment first (the package's main job), then by name. */
export async function exampleFiles(): Promise<string[]> {
	return (await fs.readdir(path.join(ROOT, 'examples')))
		.filter((file) => file.endsWith('.json'))
		.sort(
			(a, b) =>
				Number(b === 'lead-enrichment.json') - Number(a === 'lead-enrichment.json') ||
				a.localeCompare(b),
		);
}

/** An example as saved, with the files it reads from storage put in place in `~/.n8n-files`. */
export async function preparedExample(file: string): Promise<WorkflowJson> {
	const workflow = JSON.parse(
		await fs.readFile(path.join(ROOT, 'examples', file), 'utf8'),
	) as WorkflowJson;
	// A workflow that reads a stored database file finds the sandbox's build where it looks.
	await placeStoredDatabases(workflow, N8N_WORKING_DIRECTORY);
	// And one that reads a stored list (leads, domains, a web log) finds the sample one.
	await placeStoredInputs(workflow, N8N_WORKING_DIRECTORY);
	return workflow;
}

async function main() {
	const width = outputWidth();
	// The home goes at exit (test/harness/env.ts) unless the user asks to look at its files.
	const keep = process.argv.includes('--keep');
	if (keep) keepScratchFolder();
	// A signal's default ends the process without its 'exit' handlers, the one that removes the
	// temporary folder among them: a Ctrl-C mid-demo would leave n8n's home behind. Exit instead.
	process.once('SIGINT', () => process.exit(130));
	process.once('SIGTERM', () => process.exit(143));
	const sandbox = await startSandbox();
	for (const service of Object.keys(sandbox.baseUrls)) sandbox.limitRate(service, RATE);
	const outputFolder = await createN8nFilesFolder();
	if (keep) await fs.mkdir(ANSWERS_FOLDER, { recursive: true });

	for (const line of SANDBOX_NOTE) console.log(cut(line, width));
	let failed = false;
	const written = new Map<string, number>();
	for (const file of await exampleFiles()) {
		const workflow = await preparedExample(file);
		// What is there now was placed, not written: only what changes during the run is the workflow's.
		const before = await fileStamps(outputFolder);
		const started = Date.now();
		const result = await runWorkflow(workflow, {
			credentials: allSandboxCredentials(sandbox, { requestsPerSecond: RATE }),
		});
		const seconds = ((Date.now() - started) / 1000).toFixed(1);
		for (const [name, stamp] of await fileStamps(outputFolder)) {
			if (before.get(name)?.stamp !== stamp.stamp) written.set(name, stamp.size);
		}
		console.log('');
		console.log(cut(`== ${workflow.name ?? file}`, width));
		console.log(cut(`   examples/${file}, ${seconds} s`, width));
		if (result.error) {
			failed = true;
			console.log(
				`   FAILED: ${result.error.message}${result.error.description ? `\n   ${result.error.description}` : ''}`,
			);
			continue;
		}
		const view = await viewOf(file, workflow, result, width);
		for (const shown of view.tables) console.log(['', shown.title, ...shown.lines].join('\n'));
		if (!keep) continue;
		const base = path.basename(file, '.json');
		await fs.writeFile(
			path.join(ANSWERS_FOLDER, `${base}.json`),
			`${JSON.stringify(view.answers, null, 2)}\n`,
		);
		for (const csv of view.csvFiles) {
			await fs.writeFile(path.join(ANSWERS_FOLDER, `${base}.${csv.name}`), csv.content);
		}
	}

	const requests = sandbox.log.filter((entry) => entry.service !== 'storage');
	const refused = requests.filter((entry) => entry.status === 429).length;
	const counted = `Sandbox: ${requests.length} API requests (${refused} answered 429), ${sandbox.requests('storage').length} storage downloads.`;
	console.log(`\n${wrap(counted, width).join('\n')}`);
	const files = [...written].sort(([a], [b]) => a.localeCompare(b));
	if (keep) {
		if (files.length > 0) {
			console.log(`\nFiles the workflows wrote to their ~/.n8n-files:\n  ${outputFolder}`);
			for (const [name, size] of files) console.log(`    ${name}  ${size} bytes`);
		}
		console.log(`\nEach example's full output, one .json each:\n  ${ANSWERS_FOLDER}`);
		console.log(`\nKept (--keep): the demo's temporary folder, its n8n's home, user folder and`);
		console.log(`binary data; remove it when done:\n  ${SCRATCH_FOLDER}`);
	} else {
		const said = `The workflows wrote ${files.length} files into the ~/.n8n-files of the n8n the demo plays, in a temporary folder, removed now with them; npm run demo -- --keep keeps it, with each example's full output as JSON.`;
		console.log(`\n${wrap(said, width).join('\n')}`);
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
			const targets = (workflow.connections[name]?.main ?? [])
				.flat()
				.map((connection) => connection?.node);
			return !targets.some((target) => target && ran.has(target));
		});
}

/** The node whose error output (its last, with On Error "Continue (using error output)") feeds `name`, if one does. */
function errorOutputFeeding(workflow: WorkflowJson, name: string): string | undefined {
	return workflow.nodes.find(
		(node) =>
			node.onError === 'continueErrorOutput' &&
			(workflow.connections[node.name]?.main ?? [])
				.slice(1)
				.some((targets) => (targets ?? []).some((target) => target.node === name)),
	)?.name;
}

/** Each file in a folder (relative name) with its size and a stamp that changes when it is written. */
async function fileStamps(folder: string): Promise<Map<string, { size: number; stamp: string }>> {
	const entries = await fs
		.readdir(folder, { withFileTypes: true, recursive: true })
		.catch(() => []);
	const stamps = new Map<string, { size: number; stamp: string }>();
	for (const entry of entries.filter((each) => each.isFile())) {
		const full = path.join(
			entry.parentPath ?? (entry as unknown as { path: string }).path,
			entry.name,
		);
		const stat = await fs.stat(full);
		stamps.set(path.relative(folder, full), {
			size: stat.size,
			stamp: `${stat.ino}:${stat.mtimeMs}:${stat.size}`,
		});
	}
	return stamps;
}

if (require.main === module) {
	void main().catch((error: Error) => {
		console.error(error);
		process.exit(1);
	});
}
