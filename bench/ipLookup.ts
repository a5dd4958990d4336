import path from 'path';

import { NodeConnectionTypes } from 'n8n-workflow';
import type { IExecuteFunctions, INodeExecutionData, INodeType } from 'n8n-workflow';

import { CsvParser, CsvScanner } from '../nodes/shared/csv/csv';
import { CsvIndexBuilder } from '../nodes/shared/ipDatabases/csvIndexBuilder';
import { describeNodeType } from '../test/harness/baseNodes';
import { NodeTypes, PACKAGE_NAME, ROOT } from '../test/harness/nodeTypes';
import {
	chainConnections,
	runWorkflow,
	workflowNode as node,
	type WorkflowJson,
} from '../test/harness/run';
import { addresses, csvChunks, csvFile, mmdbFile } from './ipLookupData';

/**
 * IP database lookups (the IP Database Lookup node and the CSV index it builds):
 * (a) the CSV index of a million-row geolocation CSV, streamed in 1 MB chunks: the shared CSV
 *     parser's speed against a plain byte scan of the same chunks, the build time over the
 *     parser's time alone; peak RSS growth and the index's
 *     retained bytes against the file's size; bytes per row.
 * (b) the node in n8n-core on 10,000 items, node time (n8n's own executionTime of the node) over
 *     a pass-through node's on the same items (it reads the same per-item IP expression and
 *     returns the items), for the first run (the file parsed) and the second (the parse reused).
 */
const ROWS = Number(process.env.BENCH_CSV_ROWS ?? 1_000_000);
const ITEMS = 10_000;
const NODE_DB_ROWS = 100_000;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CSV_ROUNDS = Number(process.env.BENCH_CSV_ROUNDS ?? 2);
const MB = 1024 * 1024;
const mb = (bytes: number) => `${(bytes / MB).toFixed(1)} MB`;
const median = (values: number[]) =>
	[...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/**
 * The file's chunks, generated once before any timing: the generator's own cost stays out of the
 * figures, and every measurement reads the very same buffers.
 */
let chunks: Buffer[] = [];

/**
 * The floor any parser stands on: one plain JavaScript loop over every byte of the same chunks
 * (counting line feeds, so the loop cannot be optimised away).
 */
function byteScan(): { ms: number; lineFeeds: number } {
	let lineFeeds = 0;
	const started = performance.now();
	for (const chunk of chunks) {
		for (let index = 0; index < chunk.length; index++) if (chunk[index] === 0x0a) lineFeeds++;
	}
	return { ms: performance.now() - started, lineFeeds };
}

/** The shared CSV parser alone (its public CsvParser, every field a string): the index's baseline. */
function parseOnly(): { ms: number; rows: number; bytes: number } {
	let rows = 0;
	let bytes = 0;
	const started = performance.now();
	const parser = new CsvParser(() => rows++);
	for (const chunk of chunks) {
		bytes += chunk.length;
		parser.push(chunk);
	}
	parser.end();
	return { ms: performance.now() - started, rows: rows - 1, bytes };
}

/** The parser's byte level alone (CsvScanner: records as byte ranges, no string), which the index reads. */
function scanOnly(): number {
	let records = 0;
	const started = performance.now();
	const scanner = new CsvScanner(() => records++);
	for (const chunk of chunks) scanner.push(chunk);
	scanner.end();
	return performance.now() - started;
}

/** The index built from the same chunks; the builder lives only in here, as in the node. */
function buildIndex(): {
	ms: number;
	peakGrowth: number;
	index: ReturnType<CsvIndexBuilder['end']>;
} {
	const rssBefore = process.memoryUsage().rss;
	let peak = rssBefore;
	const started = performance.now();
	const builder = new CsvIndexBuilder();
	for (const chunk of chunks) {
		builder.push(chunk);
		peak = Math.max(peak, process.memoryUsage().rss);
	}
	const index = builder.end();
	const ms = performance.now() - started;
	return { ms, peakGrowth: Math.max(peak, process.memoryUsage().rss) - rssBefore, index };
}

function csvIndexBuild() {
	chunks = [...csvChunks(ROWS)];
	// Interleaved rounds, fastest of each: the least disturbed run on a shared machine.
	const scans: number[] = [];
	const scanners: number[] = [];
	const parses: number[] = [];
	const builds: number[] = [];
	let fileBytes = 0;
	let peakGrowth = 0;
	let index: ReturnType<CsvIndexBuilder['end']> | undefined;
	for (let round = 0; round < CSV_ROUNDS; round++) {
		scans.push(byteScan().ms);
		scanners.push(scanOnly());
		const parsed = parseOnly();
		parses.push(parsed.ms);
		fileBytes = parsed.bytes;
		index = undefined;
		const built = buildIndex();
		builds.push(built.ms);
		peakGrowth = Math.max(peakGrowth, built.peakGrowth);
		index = built.index;
	}
	chunks = [];
	if (!index) throw new Error('no index built');
	const scanMs = Math.min(...scans);
	const parseMs = Math.min(...parses);
	const scannerMs = Math.min(...scanners);
	const buildMs = Math.min(...builds);
	const rate = (ms: number) => `${(fileBytes / MB / (ms / 1000)).toFixed(1)} MB/s`;
	console.log(
		`(a) CSV index, ${index.rows.toLocaleString('en-US')} rows, file ${mb(fileBytes)} held in 1 MB chunks, ${CSV_ROUNDS} interleaved rounds (fastest):`,
	);
	console.log(
		`    CSV parser alone ${(parseMs / 1000).toFixed(2)} s, ${rate(parseMs)} = ${(parseMs / scanMs).toFixed(2)} x a plain byte scan of the same chunks (${(scanMs / 1000).toFixed(2)} s, ${rate(scanMs)})`,
	);
	console.log(
		`    its byte level alone (CsvScanner, fields as byte ranges, what the index reads) ${(scannerMs / 1000).toFixed(2)} s, ${rate(scannerMs)} = ${(scannerMs / scanMs).toFixed(2)} x the byte scan`,
	);
	console.log(
		`    index build ${(buildMs / 1000).toFixed(2)} s, ${rate(buildMs)} = ${(buildMs / parseMs).toFixed(2)} x the CSV parser alone, ${(buildMs / scannerMs).toFixed(2)} x its byte level, ${(buildMs / scanMs).toFixed(2)} x the byte scan; ` +
			`${Math.round((index.rows / buildMs) * 1000).toLocaleString('en-US')} rows/s`,
	);
	console.log(
		`    kept: ${index.indexBytesPerRow.toFixed(1)} bytes per row in typed arrays + ${index.recordCount.toLocaleString('en-US')} distinct records; ` +
			`index with its records ~${mb(index.retainedBytes)} = ${((index.retainedBytes / fileBytes) * 100).toFixed(1)} % of the file; ` +
			`peak RSS growth during a build ${mb(peakGrowth)} = ${((peakGrowth / fileBytes) * 100).toFixed(1)} % of the file`,
	);
	if (!index.lookup(Uint8Array.from([1, 0, 5, 9])))
		throw new Error('The index does not answer 1.0.5.9');
}

/** A pass-through node: reads the same per-item parameter, returns the items as they came. */
class PassThrough implements INodeType {
	description = {
		displayName: 'Pass Through',
		name: 'passThrough',
		group: ['transform'],
		version: 1,
		description: 'Returns its input',
		defaults: { name: 'Pass Through' },
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		properties: [{ displayName: 'IP Address', name: 'ipAddress', type: 'string', default: '' }],
	} as INodeType['description'];

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const items = this.getInputData();
		return [
			items.map((item, itemIndex) => ({
				json: { ...item.json, ip: this.getNodeParameter('ipAddress', itemIndex) as string },
				pairedItem: { item: itemIndex },
			})),
		];
	}
}

let benchFile: Buffer = Buffer.alloc(0);
let benchIps: string[] = [];

class BenchSource implements INodeType {
	description = describeNodeType('benchSource', 'Bench Source', {
		group: ['input'],
		version: 1,
		description: 'The database file and the addresses',
	});

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const binary = await this.helpers.prepareBinaryData(
			benchFile,
			'database',
			'application/octet-stream',
		);
		return [[{ json: {}, binary: { data: binary } }]];
	}
}

class BenchItems implements INodeType {
	description = {
		...new BenchSource().description,
		name: 'benchItems',
		displayName: 'Bench Items',
		defaults: { name: 'Bench Items' },
	};

	async execute(): Promise<INodeExecutionData[][]> {
		return [benchIps.map((ip) => ({ json: { ip }, pairedItem: { item: 0 } }))];
	}
}

NodeTypes.register('bench.passThrough', new PassThrough());
NodeTypes.register('bench.source', new BenchSource());
NodeTypes.register('bench.items', new BenchItems());

async function timeNode(type: 'lookup' | 'passThrough'): Promise<number> {
	const last =
		type === 'lookup'
			? node('Last', `${PACKAGE_NAME}.abstractIpLookup`, 600, {
					ipAddress: '={{ $json.ip }}',
					databaseSource: 'fromNode',
					databaseNode: 'Source',
					binaryPropertyName: 'data',
					outputShape: 'asStored',
				})
			: node('Last', 'bench.passThrough', 600, { ipAddress: '={{ $json.ip }}' });
	const workflow: WorkflowJson = {
		nodes: [
			node('Start', 'n8n-nodes-base.manualTrigger', 0),
			node('Source', 'bench.source', 200),
			node('Items', 'bench.items', 400),
			last,
		],
		connections: chainConnections(['Start', 'Source', 'Items', 'Last']),
	};
	const run = await runWorkflow(workflow, { credentials: [] });
	if (run.error) throw run.error;
	if (run.output('Last').length !== ITEMS)
		throw new Error(`${type}: ${run.output('Last').length} items`);
	return run.run.data.resultData.runData.Last[0].executionTime;
}

function parses(): number {
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	const cache = require(path.join(ROOT, 'dist/nodes/shared/ipDatabases/databaseCache.js')) as {
		cacheStats: () => { parses: number };
	};
	return cache.cacheStats().parses;
}

async function nodeInN8n() {
	console.log(
		`(b) the node in n8n-core, ${ITEMS.toLocaleString('en-US')} items (1 in 10 a miss), database of ${NODE_DB_ROWS.toLocaleString('en-US')} networks, memory binary mode, ${ROUNDS} rounds (medians):`,
	);
	benchIps = addresses(NODE_DB_ROWS, ITEMS);
	await timeNode('passThrough'); // warm-up: n8n-core's modules load here
	for (const [format, make] of [
		['MMDB', mmdbFile],
		['CSV', csvFile],
	] as const) {
		// Load on a shared machine drifts: each round's runs are set against the pass-through runs
		// just before and after them, and the ratios' medians are reported.
		const firstRatios: number[] = [];
		const secondRatios: number[] = [];
		const times = { first: [] as number[], second: [] as number[], pass: [] as number[] };
		for (let round = 0; round < ROUNDS; round++) {
			// A file no run has seen: another build (one more network) each round.
			benchFile = make(NODE_DB_ROWS + round + (format === 'CSV' ? 1000 : 0));
			const before = parses();
			const passBefore = await timeNode('passThrough');
			const first = await timeNode('lookup');
			const second = await timeNode('lookup');
			const passAfter = await timeNode('passThrough');
			if (parses() !== before + 1)
				throw new Error(`${format}: ${parses() - before} parses for two runs of one file`);
			const pass = (passBefore + passAfter) / 2;
			firstRatios.push(first / pass);
			secondRatios.push(second / pass);
			times.first.push(first);
			times.second.push(second);
			times.pass.push(pass);
		}
		console.log(
			`    ${format} (${mb(benchFile.length)}): first run (parse) ${median(firstRatios).toFixed(2)} x the pass-through, ` +
				`second run (reused, no parse) ${median(secondRatios).toFixed(2)} x ` +
				`(medians; times ${median(times.first)}, ${median(times.second)} and ${Math.round(median(times.pass))} ms)`,
		);
	}
}

export async function run(): Promise<void> {
	console.log('\nIP database lookups');
	csvIndexBuild();
	// BENCH_CSV_ONLY=1: only the CSV index figures (while tuning the parser).
	if (process.env.BENCH_CSV_ONLY !== '1') await nodeInN8n();
}

if (require.main === module) {
	run().then(
		() => process.exit(0),
		(error: unknown) => {
			console.error(error);
			process.exit(1);
		},
	);
}
