import { execFileSync } from 'child_process';
import { createHash } from 'crypto';
import {
	createReadStream,
	createWriteStream,
	mkdtempSync,
	readFileSync,
	rmSync,
	statSync,
	writeFileSync,
} from 'fs';
import { tmpdir } from 'os';
import path from 'path';

import { Reader, type Response } from 'mmdb-lib';
import { NodeConnectionTypes } from 'n8n-workflow';
import type { IExecuteFunctions, INodeExecutionData, INodeType } from 'n8n-workflow';

import { CsvScanner } from '../nodes/shared/csv/csv';
import { CsvIndexBuilder } from '../nodes/shared/ipDatabases/csvIndexBuilder';
import { parseDatabase } from '../nodes/shared/ipDatabases/databaseSource';
import { describeNodeType } from '../test/harness/baseNodes';
import { NodeTypes, PACKAGE_NAME, ROOT } from '../test/harness/nodeTypes';
import {
	chainConnections,
	runWorkflow,
	useBinaryMode,
	workflowNode as node,
	type WorkflowJson,
} from '../test/harness/run';
import { randomIpv4 } from '../test/sandbox/ipDatabases/addresses';
import { random32 } from '../test/sandbox/random';
import {
	float,
	uint16,
	uint32,
	writeTestMmdb,
	type MmdbValue,
} from '../test/ipLookup/mmdbTestWriter';
import { addresses, csvChunks } from './ipLookupData';
import { csvLine } from '../test/sandbox/ipDatabases/csvWriter';
import { COLUMNS } from '../test/sandbox/ipDatabases/records';

/**
 * Memory and build speed of the IP database lookup against the file's size (the goals that fit n8n Cloud:
 * peak RSS growth for 10,000 lookups at most 1.2x an MMDB, at most 0.25x a CSV; the CSV index
 * built at 150 MB/s or more). Each case runs in a child process of its own, so one case's
 * memory cannot hide another's:
 *
 *  - the node in n8n-core, filesystem binary mode (n8n 2.x's default: the file is streamed from
 *    n8n's store, never an item's base64), 10,000 items: the same workflow first on a tiny
 *    database whose records are as large, then on the real file. The file reaches n8n as a
 *    stream from disk. Just before the lookup node runs, the garbage of the nodes before it is
 *    collected (global.gc, a bench-only flag) and the kernel's peak RSS mark is reset
 *    (/proc/self/clear_refs); after the run, the peak (VmHWM) is the process's peak RSS during the
 *    lookup. The figure is that peak on the real file less that peak on the tiny database, over
 *    the file's size: what looking the file up adds to n8n's peak, everything of the lookup counted
 *    (the file's bytes, the index, the chunks it streamed, the 10,000 records it output).
 *  - MMDB: MaxMind's GeoLite2-City.mmdb (63 MB; devDependency geolite2), read as stored.
 *  - CSV: the generated geolocation CSV of bench/ipLookupData.ts (1,000,000 rows, ~140 MB).
 *  - CSV build speed, in a child of its own (no n8n): the index built from the file's
 *    bytes held in 1 MB chunks, against the package's CSV byte scanner (CsvScanner) alone over the
 *    same chunks (interleaved rounds, fastest of each); and the file read as the node reads it
 *    (parseDatabase over a stream of 16 KiB chunks from disk, hashed while indexed).
 */
const ITEMS = 10_000;
const CSV_ROWS = Number(process.env.BENCH_CSV_ROWS ?? 1_000_000);
const SPEED_ROUNDS = Number(process.env.BENCH_CSV_ROUNDS ?? 3);
/** Children per case: the peak depends on when V8 collects the stream's chunks, so the median of several. */
const CHILDREN = Number(process.env.BENCH_MEMORY_RUNS ?? 3);
const MB = 1e6;
const mb = (bytes: number) => `${(bytes / MB).toFixed(1)} MB`;
const CITY = path.join(ROOT, 'node_modules/geolite2/dbs/GeoLite2-City.mmdb');

/** The kernel's peak RSS mark of this process, which resetPeak() sets back to the current RSS. */
const peakRss = () =>
	Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'))![1]) * 1024;

let rssAtReset = 0;

/** Collects what the nodes before the lookup left behind, and starts a new peak from here. */
function resetPeak(): void {
	(globalThis as { gc?: () => void }).gc!();
	writeFileSync('/proc/self/clear_refs', '5');
	rssAtReset = process.memoryUsage().rss;
}

/* ---------- the workflow: Start -> File (streamed from disk) -> Items -> Lookup ---------- */

let filePath = '';
let ips: string[] = [];

const stored = async (ctx: IExecuteFunctions, file: string) =>
	await ctx.helpers.prepareBinaryData(
		createReadStream(file, { highWaterMark: 1024 * 1024 }),
		path.basename(file),
		'application/octet-stream',
	);

class StreamedFile implements INodeType {
	description = describeNodeType('streamedFile', 'Streamed File', {
		group: ['input'],
		version: 1,
		description: "The database file, streamed from disk into n8n's binary store",
	});

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return [[{ json: {}, binary: { data: await stored(this, filePath) } }]];
	}
}

class Items implements INodeType {
	description = {
		...new StreamedFile().description,
		name: 'memoryItems',
		displayName: 'Items',
		defaults: { name: 'Items' },
	};

	async execute(): Promise<INodeExecutionData[][]> {
		const items = ips.map((ip) => ({ json: { ip }, pairedItem: { item: 0 } }));
		resetPeak(); // the lookup runs next
		return [items];
	}
}

/** One run of the workflow on the file at `file`: the node's own time (n8n's executionTime) and the peak RSS growth from the lookup's start. */
async function lookUp(
	file: string,
): Promise<{ ms: number; growth: number; peak: number; start: number }> {
	filePath = file;
	const workflow: WorkflowJson = {
		nodes: [
			node('Start', 'n8n-nodes-base.manualTrigger', 0),
			node('File', 'bench.streamedFile', 200),
			node('Items', 'bench.memoryItems', 400),
			node('Lookup', `${PACKAGE_NAME}.abstractIpLookup`, 600, {
				ipAddress: '={{ $json.ip }}',
				databaseSource: 'fromNode',
				databaseNode: 'File',
				binaryPropertyName: 'data',
				outputShape: 'asStored',
			}),
		],
		connections: chainConnections(['Start', 'File', 'Items', 'Lookup']),
	};
	const run = await runWorkflow(workflow, { credentials: [] });
	if (run.error) throw run.error;
	const items = run.output('Lookup');
	if (items.length !== ITEMS) throw new Error(`${items.length} items`);
	if (items.filter((item) => item.json.found === false).length > ITEMS / 2)
		throw new Error('Most lookups missed: the bench measures nothing');
	const peak = peakRss();
	return {
		ms: run.run.data.resultData.runData.Lookup[0].executionTime,
		growth: peak - rssAtReset,
		peak,
		start: rssAtReset,
	};
}

interface MemoryFigures {
	fileBytes: number;
	/** The process's peak RSS during the lookup: on the tiny database, and on the file (first run: parsed). */
	tinyPeak: number;
	firstPeak: number;
	/** Peak RSS growth of the run on the tiny database, and of the first (parse) and second (reuse) runs on the file. */
	tiny: number;
	first: number;
	second: number;
	firstMs: number;
	secondMs: number;
}

/** The child's measurement: the tiny database's run, then the real file's (twice: parsed, then reused). */
async function memoryCase(tiny: string, real: string): Promise<MemoryFigures> {
	await useBinaryMode('filesystem');
	NodeTypes.register('bench.streamedFile', new StreamedFile());
	NodeTypes.register('bench.memoryItems', new Items());
	await lookUp(tiny);
	const small = await lookUp(tiny);
	const first = await lookUp(real);
	const second = await lookUp(real);
	return {
		fileBytes: statSync(real).size,
		tinyPeak: small.peak,
		firstPeak: first.peak,
		tiny: small.growth,
		first: first.growth,
		second: second.growth,
		firstMs: first.ms,
		secondMs: second.ms,
	};
}

/* ---------- the databases ---------- */

/** mmdb-lib's decoded value as the test writer's value: integers as uint32 (or uint16), others as double. */
export function asWritten(value: unknown): MmdbValue {
	if (typeof value === 'number')
		return Number.isInteger(value) && value >= 0
			? value < 65536
				? uint16(value)
				: uint32(value)
			: value;
	if (Array.isArray(value)) return value.map(asWritten);
	if (value !== null && typeof value === 'object')
		return Object.fromEntries(Object.entries(value).map(([key, entry]) => [key, asWritten(entry)]));
	return value as MmdbValue;
}

/** A tiny MMDB of the City layout: two of GeoLite2-City's own records, covering all of IPv4. */
export function tinyCity(dir: string): string {
	const city = new Reader<Response>(readFileSync(CITY));
	const records = ['81.2.69.160', '89.160.20.112'].map((ip) => asWritten(city.get(ip)));
	const file = path.join(dir, 'tiny-city.mmdb');
	const written = writeTestMmdb(
		[
			{ network: '0.0.0.0/1', record: records[0] },
			{ network: '128.0.0.0/1', record: records[1] },
		],
		{ recordSize: 28, ipVersion: 6, aliasIpv4: true, metadata: { database_type: 'GeoLite2-City' } },
	);
	writeFileSync(file, written.file);
	return file;
}

/** A tiny CSV of the bench's layout: one of its rows' records over each half of IPv4, and IPv6's 2000::/3. */
export function tinyCsv(dir: string): string {
	const columns = COLUMNS['ip-geolocation'];
	const big = [...csvChunks(3)][0].toString('utf8').split('\r\n');
	const rowOf = (network: string, line: number) =>
		csvLine([
			network,
			...big[line]
				.split(/,(?=(?:[^"]*"[^"]*")*[^"]*$)/)
				.slice(1)
				.map((field) => field.replace(/^"|"$/g, '').replace(/""/g, '"')),
		]);
	const file = path.join(dir, 'tiny.csv');
	writeFileSync(
		file,
		[csvLine(columns), rowOf('0.0.0.0/1', 1), rowOf('128.0.0.0/1', 2), rowOf('2000::/3', 3)].join(
			'',
		),
	);
	return file;
}

async function writeLargeCsv(file: string): Promise<void> {
	const out = createWriteStream(file);
	for (const chunk of csvChunks(CSV_ROWS))
		if (!out.write(chunk)) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
	await new Promise((resolve) => out.end(resolve));
}

/* ---------- the CSV index's build speed, against the byte scanner ---------- */

/** Milliseconds to read the file as the node does: n8n's stream of 16 KiB chunks (here from disk), hashed while indexed. */
async function nodePathMs(file: string): Promise<number> {
	const size = statSync(file).size;
	// The stream's own iterator, as the node reads n8n's stream (databaseSource.ts).
	const chunks = () =>
		createReadStream(file, { highWaterMark: 16 * 1024 }) as AsyncIterable<Uint8Array>;
	const started = performance.now();
	const hash = createHash('sha256');
	const database = await parseDatabase(chunks, size, (chunk) => hash.update(chunk));
	hash.digest('hex');
	const ms = performance.now() - started;
	if (database.format !== 'csv') throw new Error('not indexed as a CSV');
	return ms;
}

function buildSpeed(file: string): { scanMs: number; buildMs: number; bytes: number } {
	const bytes = readFileSync(file);
	const chunks: Buffer[] = [];
	for (let at = 0; at < bytes.length; at += 1024 * 1024)
		chunks.push(bytes.subarray(at, at + 1024 * 1024));
	const scans: number[] = [];
	const builds: number[] = [];
	for (let round = 0; round < SPEED_ROUNDS; round++) {
		let started = performance.now();
		let records = 0;
		const scanner = new CsvScanner(() => records++);
		for (const chunk of chunks) scanner.push(chunk);
		scanner.end();
		scans.push(performance.now() - started);
		started = performance.now();
		const builder = new CsvIndexBuilder(bytes.length);
		for (const chunk of chunks) builder.push(chunk);
		const index = builder.end();
		builds.push(performance.now() - started);
		if (index.rows !== records - 1)
			throw new Error(`${index.rows} rows indexed, ${records - 1} scanned`);
	}
	return { scanMs: Math.min(...scans), buildMs: Math.min(...builds), bytes: bytes.length };
}

/* ---------- parent and children ---------- */

type ChildFigures = MemoryFigures & {
	speed?: ReturnType<typeof buildSpeed> & { nodePathMs: number };
};

function child(args: string[]): ChildFigures {
	const out = execFileSync(process.execPath, ['--expose-gc', __filename, ...args], {
		encoding: 'utf8',
		maxBuffer: 1 << 20,
	});
	return JSON.parse(out.trim().split('\n').pop()!) as ChildFigures;
}

/** CHILDREN children of one case; the one whose growth over the tiny database is the median, and all growths. */
function medianChild(args: string[]): { figures: ChildFigures; growths: number[] } {
	const growth = (run: ChildFigures) => run.firstPeak - run.tinyPeak;
	const runs = Array.from({ length: CHILDREN }, () => child(args)).sort(
		(a, b) => growth(a) - growth(b),
	);
	return { figures: runs[Math.floor(runs.length / 2)], growths: runs.map(growth) };
}

function printMemory(
	label: string,
	{ figures, growths }: { figures: MemoryFigures; growths: number[] },
	goal: number,
) {
	const growth = figures.firstPeak - figures.tinyPeak;
	const ratio = growth / figures.fileBytes;
	console.log(
		`    ${label} (${mb(figures.fileBytes)}): peak RSS growth ${mb(growth)} = ${ratio.toFixed(2)}x the file (goal <= ${goal}x: ${ratio <= goal ? 'met' : 'NOT met'}) ` +
			`over the same workflow on a tiny database (peak RSS during the lookup ${mb(figures.firstPeak)} against ${mb(figures.tinyPeak)}; median of ${growths.length} children: ${growths.map((value) => (value / figures.fileBytes).toFixed(2)).join(', ')}x);`,
	);
	console.log(
		`      RSS growth from the lookup's start ${mb(figures.first)} parsing the file, ${mb(figures.second)} on the next run (parse reused), ${mb(figures.tiny)} on the tiny database; ` +
			`node time ${figures.firstMs} ms parsing, ${figures.secondMs} ms reusing the parse`,
	);
}

export async function run(): Promise<void> {
	const dir = mkdtempSync(path.join(tmpdir(), 'ip-lookup-memory-'));
	try {
		console.log(
			`\nIP database lookups: memory and build speed against the file's size (a child process per case; ${ITEMS.toLocaleString('en-US')} lookups; n8n-core, filesystem binary mode)`,
		);
		const city = medianChild(['mmdb', tinyCity(dir), CITY]);
		printMemory('MMDB, GeoLite2-City.mmdb read as stored', city, 1.2);
		const csvPath = path.join(dir, 'geolocation.csv');
		await writeLargeCsv(csvPath);
		const csvRuns = medianChild(['csv', tinyCsv(dir), csvPath]);
		printMemory(`CSV, ${CSV_ROWS.toLocaleString('en-US')}-row geolocation CSV`, csvRuns, 0.25);
		const speed = child(['speed', csvPath]).speed!;
		const rate = (ms: number) => speed.bytes / MB / (ms / 1000);
		console.log(
			`    CSV index build ${rate(speed.buildMs).toFixed(0)} MB/s (goal >= 150 MB/s: ${rate(speed.buildMs) >= 150 ? 'met' : 'NOT met'}) = ${(rate(speed.buildMs) / rate(speed.scanMs)).toFixed(2)}x ` +
				`the CSV byte scanner alone over the same bytes (${rate(speed.scanMs).toFixed(0)} MB/s); as the node reads it (a stream of 16 KiB chunks from disk, hashed while indexed): ` +
				`${rate(speed.nodePathMs).toFixed(0)} MB/s of file`,
		);
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
}

async function childMain(kind: string, tiny: string, real: string) {
	if (kind === 'speed') {
		// A process of its own: no n8n, no cached index, no items to share the heap with.
		const speed = {
			...buildSpeed(tiny),
			nodePathMs: Math.min(await nodePathMs(tiny), await nodePathMs(tiny), await nodePathMs(tiny)),
		};
		process.stdout.write(`\n${JSON.stringify({ speed })}\n`);
		return;
	}
	const next = random32(18);
	// MMDB: random IPv4 addresses (GeoLite2 covers most); CSV: the bench's addresses, 9 in 10 in its networks.
	ips =
		kind === 'csv'
			? addresses(CSV_ROWS, ITEMS)
			: Array.from({ length: ITEMS }, () => randomIpv4(next));
	const figures = await memoryCase(tiny, real);
	const speed = undefined;
	process.stdout.write(`\n${JSON.stringify({ ...figures, speed })}\n`);
}

if (require.main === module) {
	const [kind, tiny, real] = process.argv.slice(2);
	const main = kind ? childMain(kind, tiny, real) : run();
	main.then(
		() => process.exit(0),
		(error: unknown) => {
			console.error(error);
			process.exit(1);
		},
	);
}
