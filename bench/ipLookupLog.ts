import { createWriteStream, existsSync, promises as fs } from 'fs';
import path from 'path';

import type { IExecuteFunctions, INodeExecutionData, INodeType } from 'n8n-workflow';

import { CsvIndexBuilder } from '../nodes/shared/ipDatabases/csvIndexBuilder';
import { openMmdbDatabase } from '../nodes/shared/ipDatabases/mmdbDatabase';
import type { IpDatabase } from '../nodes/shared/ipDatabases/lookupTypes';
import { parseIpAddress } from '../nodes/shared/values/ipAddress';
import { cacheRoot } from '../scripts/n8n/runtime';
import { describeNodeType } from '../test/harness/baseNodes';
import { NodeTypes, PACKAGE_NAME } from '../test/harness/nodeTypes';
import {
	chainConnections,
	runWorkflow,
	useBinaryMode,
	workflowNode as node,
	type WorkflowJson,
} from '../test/harness/run';
import { logAddresses } from '../test/sandbox/ipDatabases/accessLog';
import { addresses, csvChunks, mmdbFile } from './ipLookupData';

/**
 * A month of access log against the full geolocation database: the IP Database Lookup node's
 * Input "CSV File", Output "Result File", on a 1,000,000-line log (IPv4 and IPv6, most addresses
 * repeated) against the bench's 1,000,000-network geolocation database (bench/ipLookupData.ts),
 * MMDB and CSV, through n8n-core in filesystem binary mode. Printed: the node's rows per second
 * (its executionTime, the result file written to n8n's store) against a baseline measured in the
 * same process: the plain per-address loop, each line's address parsed and looked up in the same
 * parsed database (no CSV, no answer, no file). The databases are made once and cached
 * (generating the MMDB takes about a minute and 1.2 GB; the real-n8n bench's cgroup run needs
 * them made beforehand).
 */
export const LOG_LINES = Number(process.env.BENCH_LOG_LINES ?? 1_000_000);
export const DATABASE_ROWS = 1_000_000;
/** Distinct addresses in the log: a month of a busy site's clients. */
const DISTINCT = 60_000;

/** The full geolocation database of a format, made once into the cache folder. */
export async function fullDatabase(format: 'mmdb' | 'csv'): Promise<string> {
	const file = path.join(cacheRoot(), 'bench', `geolocation-${DATABASE_ROWS}.${format}`);
	if (existsSync(file)) return file;
	await fs.mkdir(path.dirname(file), { recursive: true });
	const partial = `${file}.partial`;
	await writeChunks(
		partial,
		format === 'csv' ? csvChunks(DATABASE_ROWS) : [mmdbFile(DATABASE_ROWS)],
	);
	await fs.rename(partial, file);
	return file;
}

export async function writeChunks(file: string, chunks: Iterable<Buffer>): Promise<void> {
	const out = createWriteStream(file);
	for (const chunk of chunks)
		if (!out.write(chunk)) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
	await new Promise<void>((resolve, reject) =>
		out.end((error?: Error | null) => (error ? reject(error) : resolve())),
	);
}

/** The log's client addresses: nine in ten of the distinct ones inside the database's networks (one in ten of those IPv6), the rest private. */
export function logClients(lines: number): Generator<string> {
	return logAddresses(lines, addresses(DATABASE_ROWS, DISTINCT), 42);
}

/** The log as CSV (`time,ip,request`), in chunks of about 1 MB. */
export function* logChunks(lines: number): Generator<Buffer> {
	let text = 'time,ip,request\n';
	let line = 0;
	for (const ip of logClients(lines)) {
		text += `2026-11-${String((line % 28) + 1).padStart(2, '0')}T${String(line % 24).padStart(2, '0')}:00:00Z,${ip},GET /page/${line % 1000}\n`;
		line++;
		if (text.length >= 1 << 20) {
			yield Buffer.from(text);
			text = '';
		}
	}
	if (text.length > 0) yield Buffer.from(text);
}

let benchDatabase: Buffer = Buffer.alloc(0);
let benchLog: Buffer = Buffer.alloc(0);

class LogSource implements INodeType {
	description = describeNodeType('logSource', 'Log Source', {
		group: ['input'],
		version: 1,
		description: 'The database file and the log',
	});

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const data = await this.helpers.prepareBinaryData(
			benchDatabase,
			'geolocation',
			'application/octet-stream',
		);
		const log = await this.helpers.prepareBinaryData(benchLog, 'access-log.csv', 'text/csv');
		return [[{ json: {}, binary: { data, log } }]];
	}
}
NodeTypes.register('bench.logSource', new LogSource());

async function timeLookup(): Promise<number> {
	const workflow: WorkflowJson = {
		nodes: [
			node('Start', 'n8n-nodes-base.manualTrigger', 0),
			node('Source', 'bench.logSource', 200),
			node('Lookup', `${PACKAGE_NAME}.abstractIpLookup`, 400, {
				input: 'csvFile',
				csvBinaryPropertyName: 'log',
				addressColumn: 'ip',
				databaseSource: 'thisItem',
				binaryPropertyName: 'data',
				output: 'resultFile',
				resultBinaryPropertyName: 'data',
				outputShape: 'asStored',
			}),
		],
		connections: chainConnections(['Start', 'Source', 'Lookup']),
	};
	const run = await runWorkflow(workflow, { credentials: [] });
	if (run.error) throw run.error;
	const summary = run.output('Lookup')[0]?.json;
	if (summary?.rows !== LOG_LINES)
		throw new Error(`the result file has ${String(summary?.rows)} rows, not ${LOG_LINES}`);
	return run.run.data.resultData.runData.Lookup[0].executionTime;
}

/** The baseline: each line's address parsed and looked up, in a loop over the addresses held in an array. */
function timeLoop(database: IpDatabase, ips: string[]): { ms: number; found: number } {
	const started = performance.now();
	let found = 0;
	for (const ip of ips) if (database.lookup(parseIpAddress(ip)!)) found++;
	return { ms: performance.now() - started, found };
}

const perSecond = (rows: number, ms: number) =>
	Math.round(rows / (ms / 1000)).toLocaleString('en-US');

export async function run(): Promise<void> {
	await useBinaryMode('filesystem');
	console.log(
		`\nIP Database Lookup on a ${LOG_LINES.toLocaleString('en-US')}-line log (CSV File -> Result File), n8n-core, filesystem binary mode:`,
	);
	benchLog = Buffer.concat([...logChunks(LOG_LINES)]);
	const ips = [...logClients(LOG_LINES)];
	console.log(
		`    log ${(benchLog.length / 1048576).toFixed(1)} MiB, ${new Set(ips).size.toLocaleString('en-US')} distinct addresses, ${ips.filter((ip) => ip.includes(':')).length.toLocaleString('en-US')} IPv6 lines`,
	);
	for (const format of (process.env.BENCH_LOG_FORMATS ?? 'mmdb,csv').split(',') as Array<
		'mmdb' | 'csv'
	>) {
		benchDatabase = await fs.readFile(await fullDatabase(format));
		const database = format === 'mmdb' ? openMmdbDatabase(benchDatabase) : indexOf(benchDatabase);
		const loop = [timeLoop(database, ips), timeLoop(database, ips), timeLoop(database, ips)].sort(
			(a, b) => a.ms - b.ms,
		)[0];
		const first = await timeLookup();
		const again = [await timeLookup(), await timeLookup()].sort((a, b) => a - b)[0];
		console.log(
			`    ${format.toUpperCase()} (${DATABASE_ROWS.toLocaleString('en-US')} networks, ${(benchDatabase.length / 1048576).toFixed(1)} MiB): node ${perSecond(LOG_LINES, again)} rows/s ` +
				`(${again} ms; first run, parsing the database: ${first} ms) = ${(loop.ms / again).toFixed(2)} x the plain lookup loop's ${perSecond(LOG_LINES, loop.ms)} lookups/s ` +
				`(${loop.found.toLocaleString('en-US')} of the lines found)`,
		);
	}
}

function indexOf(csv: Buffer): IpDatabase {
	const builder = new CsvIndexBuilder(csv.length);
	for (let at = 0; at < csv.length; at += 1 << 20) builder.push(csv.subarray(at, at + (1 << 20)));
	return builder.end();
}

if (require.main === module) {
	run().then(
		() => process.exit(0),
		(error: Error) => {
			console.error(error);
			process.exit(1);
		},
	);
}
