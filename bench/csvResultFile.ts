import { spawn } from 'child_process';

import { CsvCellWriter } from '../nodes/shared/csv/csvWriter';
import { runNode, useBinaryMode } from '../test/harness/run';
import { CREDENTIAL_TYPES } from '../test/harness/sandboxCredentials';
import { FILE_NODES, rowsCsv, runCsv } from '../test/nodes/csvHelpers';
import { startSandbox, type Sandbox } from '../test/sandbox/server';

/**
 * Output "Result File" against one item per row, for a 50,000-row email file, pacing off,
 * against the sandbox (in this process), n8n in filesystem binary mode:
 * - memory: each output mode runs in a child process of its own (so neither inherits the other's
 *   heap), which first runs the same workflow on a 10-row file, then samples its heap and RSS
 *   every 10 ms while the node works through the 50,000 rows; growth is the peak over the level
 *   after the 10-row run (the measure of a node's memory in n8n: peak RSS growth over the same workflow on a tiny
 *   input). The node's output is held until the run ends, as n8n holds it.
 *   Peak figures include garbage not yet collected (V8 collects when it must), so the heap the
 *   output still holds after a forced collection is printed too.
 * - under a heap limit: each mode once more with V8's old space limited (BENCH_CSV_HEAP_MIB,
 *   default 128 MiB), which makes V8 collect as it would in a small container: whether the run
 *   completes, and its peak RSS growth then.
 * - speed: rows per second of each mode in the same children, and their ratio.
 * Two rounds, the order of the modes alternating. Goals: Result File's growth far below the 320
 * MiB of n8n Cloud's smallest plan, and its rows/s at least one item per row's.
 *
 * Then every node that takes a file with a chosen column (IP Geolocation, Company Enrichment, IBAN
 * Validation, VAT Validate), Output "Result File", against Email's on a file of the same shape
 * (BENCH_CSV_NODE_ROWS rows, default 3,000: a name and the node's value), each run in a child of
 * its own, in rounds whose order turns: rows per second and the child's CPU time per row (what a
 * shared machine disturbs least), and their ratios to Email's.
 * BENCH_CSV_NODES_ONLY=1 runs only that part.
 *
 * Then formula defusing on against off (BENCH_CSV_DEFUSE_ONLY=1 runs only this part): the
 * writer alone in this process (the same records written with each setting in turn, rounds
 * alternating), and Email's Output "Result File" on BENCH_CSV_NODE_ROWS rows, each run in a
 * child of its own with Defuse Formulas on or off, in rounds whose order turns: rows per second
 * and CPU time per row, and their ratios. Both on a lead list of plain names and on one where
 * every name and note starts like a formula (each such cell gets its apostrophe). Goal: on within
 * the noise of off.
 */
// BENCH_CSV_ROWS: a smaller file for a quick look (the figures are for 50,000).
const ROWS = Number(process.env.BENCH_CSV_ROWS ?? 50_000);
type Mode = 'rowItems' | 'resultFile';

interface ChildFigures {
	mode: Mode;
	rows: number;
	seconds: number;
	heapGrowthMiB: number;
	rssGrowthMiB: number;
	baselineRssMiB: number;
	/** Heap still used after the run, garbage collected, its output still referenced. */
	heldMiB: number;
	/** This process's CPU time per row (the sandbox runs in the parent): what a shared machine disturbs least. */
	cpuMicrosPerRow: number;
	outputItems: number;
	requests?: number;
}

function leadsFile(count: number): Buffer {
	let text = 'name,email,company,note\n';
	for (let index = 0; index < count; index++)
		text += `"Lead ${index}",lead${index}@example.com,"Acme, Inc.","met at the ""expo"", ${index % 7} times"\n`;
	return Buffer.from(text);
}

const MiB = 1024 * 1024;
/** The old-space limit of the constrained runs (n8n Cloud's smallest instance has 320 MiB for everything). */
const HEAP_LIMIT_MIB = Number(process.env.BENCH_CSV_HEAP_MIB ?? 128);
/** BENCH_CSV_ROUNDS=0: only the runs under the heap limit. */
const ROUNDS = Number(process.env.BENCH_CSV_ROUNDS ?? 2);

/** The child: one mode, a 10-row warm-up, then 50,000 rows while its memory is sampled. */
async function child(mode: Mode, baseUrl: string, apiKey: string): Promise<void> {
	await useBinaryMode('filesystem');
	const gc = (globalThis as { gc?: () => void }).gc;
	const run = async (file: Buffer) =>
		await runNode({
			type: 'abstractEmail',
			parameters: {
				input: 'csvFile',
				binaryPropertyName: 'data',
				emailColumn: 'email',
				output: mode,
				resultBinaryPropertyName: 'data',
				options: {},
			},
			credential: {
				type: CREDENTIAL_TYPES.email,
				data: { apiKey, baseUrl, requestsPerSecond: 0 },
			},
			items: [
				{
					json: {},
					binary: {
						data: { bytes: file, mimeType: 'text/csv', fileName: 'leads.csv' },
					},
				},
			],
		});
	const warm = await run(leadsFile(10));
	if (warm.error) throw warm.error;
	const file = leadsFile(ROWS);
	gc?.();
	const baseline = process.memoryUsage();
	let peakHeap = baseline.heapUsed;
	let peakRss = baseline.rss;
	const sample = () => {
		const now = process.memoryUsage();
		peakHeap = Math.max(peakHeap, now.heapUsed);
		peakRss = Math.max(peakRss, now.rss);
	};
	const sampler = setInterval(sample, 10);
	const started = performance.now();
	const cpu = process.cpuUsage();
	const result = await run(file);
	const seconds = (performance.now() - started) / 1000;
	const cpuUsed = process.cpuUsage(cpu);
	sample();
	clearInterval(sampler);
	if (result.error) throw result.error;
	// What the run still holds once its garbage is collected: its output, as n8n would keep it.
	gc?.();
	const held = process.memoryUsage().heapUsed - baseline.heapUsed;
	const expected = mode === 'rowItems' ? ROWS : 1;
	if (result.items.length !== expected)
		throw new Error(`${mode}: expected ${expected} items, got ${result.items.length}`);
	if (mode === 'resultFile' && result.items[0].json.answered !== ROWS)
		throw new Error(`resultFile: ${JSON.stringify(result.items[0].json)}`);
	const figures: ChildFigures = {
		mode,
		rows: ROWS,
		seconds,
		heapGrowthMiB: (peakHeap - baseline.heapUsed) / MiB,
		rssGrowthMiB: (peakRss - baseline.rss) / MiB,
		baselineRssMiB: baseline.rss / MiB,
		heldMiB: held / MiB,
		cpuMicrosPerRow: (cpuUsed.user + cpuUsed.system) / ROWS,
		outputItems: result.items.length,
	};
	process.stdout.write(`FIGURES ${JSON.stringify(figures)}\n`);
}

async function inChild(
	mode: Mode,
	baseUrl: string,
	apiKey: string,
	heapLimitMiB?: number,
): Promise<ChildFigures> {
	return await childFigures<ChildFigures>(mode, ['child', mode, baseUrl, apiKey], heapLimitMiB);
}

/** Runs this file in a child with `args`, and reads the figures it prints. */
async function childFigures<Figures>(
	name: string,
	args: string[],
	heapLimitMiB?: number,
): Promise<Figures> {
	const limit = heapLimitMiB ? [`--max-old-space-size=${heapLimitMiB}`] : [];
	return await new Promise((resolve, reject) => {
		const processChild = spawn(process.execPath, ['--expose-gc', ...limit, __filename, ...args], {
			stdio: ['ignore', 'pipe', 'pipe'],
		});
		let output = '';
		processChild.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
		processChild.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
		processChild.on('error', reject);
		processChild.on('exit', (code) => {
			const line = output.split('\n').find((text) => text.startsWith('FIGURES '));
			if (code !== 0 || !line) {
				const outOfMemory = /heap out of memory|Allocation failed/i.test(output);
				return reject(
					Object.assign(
						new Error(
							outOfMemory
								? 'ran out of heap'
								: `the ${name} child exited with ${code}:\n${output.slice(-2000)}`,
						),
						{ outOfMemory },
					),
				);
			}
			resolve(JSON.parse(line.slice('FIGURES '.length)) as Figures);
		});
	});
}

export async function run(): Promise<void> {
	if (process.env.BENCH_CSV_DEFUSE_ONLY !== '1') {
		if (process.env.BENCH_CSV_NODES_ONLY !== '1') await emailModes();
		await nodesAgainstEmail();
	}
	if (process.env.BENCH_CSV_NODES_ONLY !== '1') await defusingOnOff();
}

async function emailModes(): Promise<void> {
	console.log(
		`\n## Bulk CSV: Output "Result File" against one item per row (${ROWS.toLocaleString('en-US')} email rows, pacing off, filesystem binary mode, each run in a child process of its own)`,
	);
	const sandbox = await startSandbox();
	try {
		const figures: Record<Mode, ChildFigures[]> = {
			rowItems: [],
			resultFile: [],
		};
		for (let round = 1; round <= ROUNDS; round++) {
			for (const mode of (round % 2 === 1
				? ['rowItems', 'resultFile']
				: ['resultFile', 'rowItems']) as Mode[]) {
				sandbox.reset();
				const measured = {
					...(await inChild(mode, sandbox.baseUrls.email, sandbox.keys.email)),
					requests: sandbox.requests('email').length,
				};
				figures[mode].push(measured);
				console.log(
					`    round ${round}, ${mode === 'rowItems' ? 'one item per row' : 'result file     '}: peak heap growth ${measured.heapGrowthMiB.toFixed(0)} MiB, peak RSS growth ${measured.rssGrowthMiB.toFixed(0)} MiB (over ${measured.baselineRssMiB.toFixed(0)} MiB after the 10-row run), held after the run ${measured.heldMiB.toFixed(1)} MiB, ${(ROWS / measured.seconds).toFixed(0)} rows/s (CPU ${measured.cpuMicrosPerRow.toFixed(0)} µs/row), ${measured.requests} requests, ${measured.outputItems} output item(s)`,
				);
			}
		}
		if (ROUNDS > 0) report(figures);
		// Peaks include garbage V8 had no reason to collect yet: under a heap limit it must, and
		// then only what the run really holds counts.
		for (const mode of ['resultFile', 'rowItems'] as Mode[]) {
			sandbox.reset();
			const outcome = await inChild(
				mode,
				sandbox.baseUrls.email,
				sandbox.keys.email,
				HEAP_LIMIT_MIB,
			).then(
				(measured) =>
					`completes (${(ROWS / measured.seconds).toFixed(0)} rows/s, peak RSS growth ${measured.rssGrowthMiB.toFixed(0)} MiB)`,
				(error: Error & { outOfMemory?: boolean }) =>
					error.outOfMemory ? 'runs out of heap' : `fails: ${error.message.split('\n')[0]}`,
			);
			console.log(
				`    with V8's old space limited to ${HEAP_LIMIT_MIB} MiB, ${mode === 'rowItems' ? 'one item per row' : 'result file'} ${outcome}`,
			);
		}
	} finally {
		await sandbox.close();
	}
}

/** The rounds' ratios: memory (worst round of each) and speed (best round of each). */
function report(figures: Record<Mode, ChildFigures[]>): void {
	const worst = (mode: Mode, key: 'heapGrowthMiB' | 'rssGrowthMiB') =>
		Math.max(...figures[mode].map((entry) => entry[key]));
	const speed = (mode: Mode) => {
		const all = figures[mode].map((entry) => ROWS / entry.seconds).sort((a, b) => a - b);
		return all[all.length - 1];
	};
	console.log(
		`    result file over one item per row (worst of the rounds): peak heap growth ${worst('resultFile', 'heapGrowthMiB').toFixed(0)} / ${worst('rowItems', 'heapGrowthMiB').toFixed(0)} MiB = ${(worst('resultFile', 'heapGrowthMiB') / worst('rowItems', 'heapGrowthMiB')).toFixed(3)}, peak RSS growth ${worst('resultFile', 'rssGrowthMiB').toFixed(0)} / ${worst('rowItems', 'rssGrowthMiB').toFixed(0)} MiB = ${(worst('resultFile', 'rssGrowthMiB') / worst('rowItems', 'rssGrowthMiB')).toFixed(3)}`,
	);
	const cpu = (mode: Mode) => Math.min(...figures[mode].map((entry) => entry.cpuMicrosPerRow));
	console.log(
		`    rows per second (best of the rounds): result file ${speed('resultFile').toFixed(0)}, one item per row ${speed('rowItems').toFixed(0)}, ratio ${(speed('resultFile') / speed('rowItems')).toFixed(2)} (goal >= 1); the node process's CPU time per row (best): result file ${cpu('resultFile').toFixed(0)} µs, one item per row ${cpu('rowItems').toFixed(0)} µs, rows per CPU second ratio ${(cpu('rowItems') / cpu('resultFile')).toFixed(2)}`,
	);
}

const NODE_ROWS = Number(process.env.BENCH_CSV_NODE_ROWS ?? 3_000);
const NODE_ROUNDS = 2;

interface NodeFigures {
	label: string;
	rowsPerSecond: number;
	cpuMicrosPerRow: number;
}

/** The child of one node: a 10-row warm-up, then NODE_ROWS rows into a result file, timed. */
async function nodeChild(label: string, baseUrl: string, apiKey: string): Promise<void> {
	await useBinaryMode('filesystem');
	const node = FILE_NODES.find((candidate) => candidate.label === label)!;
	// The sandbox of this child's runs is the parent's: only its address and key are needed here.
	const sandbox = {
		baseUrls: { [node.service]: baseUrl },
		keys: { [node.service]: apiKey },
	} as unknown as Sandbox;
	const run = async (rows: number) => {
		const file = {
			json: {},
			binary: {
				data: {
					bytes: Buffer.from(rowsCsv(node, rows)),
					mimeType: 'text/csv',
					fileName: 'rows.csv',
				},
			},
		};
		const result = await runCsv(node, {
			sandbox,
			items: [file],
			parameters: { output: 'resultFile' },
		});
		if (result.error) throw result.error;
		if (result.items[0].json.answered !== rows)
			throw new Error(`${label}: ${JSON.stringify(result.items[0].json)}`);
	};
	await run(10);
	const started = performance.now();
	const cpu = process.cpuUsage();
	await run(NODE_ROWS);
	const cpuUsed = process.cpuUsage(cpu);
	const figures: NodeFigures = {
		label,
		rowsPerSecond: NODE_ROWS / ((performance.now() - started) / 1000),
		cpuMicrosPerRow: (cpuUsed.user + cpuUsed.system) / NODE_ROWS,
	};
	process.stdout.write(`FIGURES ${JSON.stringify(figures)}\n`);
}

async function nodesAgainstEmail(): Promise<void> {
	console.log(
		`\n## Bulk CSV: Output "Result File" of each node that takes a file, against Email's (${NODE_ROWS.toLocaleString('en-US')} rows each, pacing off, filesystem binary mode, each run in a child process of its own)`,
	);
	const sandbox = await startSandbox();
	try {
		const best = new Map<string, number>();
		const leastCpu = new Map<string, number>();
		for (let round = 1; round <= NODE_ROUNDS; round++) {
			const order = round % 2 === 1 ? FILE_NODES : [...FILE_NODES].reverse();
			for (const node of order) {
				sandbox.reset();
				const figures = await childFigures<NodeFigures>(node.label, [
					'node',
					node.label,
					sandbox.baseUrls[node.service],
					sandbox.keys[node.service],
				]);
				best.set(node.label, Math.max(best.get(node.label) ?? 0, figures.rowsPerSecond));
				leastCpu.set(
					node.label,
					Math.min(leastCpu.get(node.label) ?? Infinity, figures.cpuMicrosPerRow),
				);
				console.log(
					`    round ${round}, ${node.label}: ${figures.rowsPerSecond.toFixed(0)} rows/s (CPU ${figures.cpuMicrosPerRow.toFixed(0)} µs/row)`,
				);
			}
		}
		const [email] = FILE_NODES;
		for (const node of FILE_NODES.slice(1)) {
			const speed = best.get(node.label)!;
			const cpu = leastCpu.get(node.label)!;
			console.log(
				`    ${node.label} over ${email.label} (best of the rounds): ${speed.toFixed(0)} / ${best.get(email.label)!.toFixed(0)} rows/s = ${(speed / best.get(email.label)!).toFixed(2)}; rows per CPU second ${(leastCpu.get(email.label)! / cpu).toFixed(2)} (${cpu.toFixed(0)} / ${leastCpu.get(email.label)!.toFixed(0)} µs/row)`,
			);
		}
	} finally {
		await sandbox.close();
	}
}

/** A lead list of `count` rows: plain names and notes, or every one starting like a formula. */
function defuseLeads(count: number, nasty: boolean): Buffer {
	let text = 'name,email,note,amount\n';
	for (let index = 0; index < count; index++) {
		const name = nasty
			? `"=HYPERLINK(""http://x.example/?${index}"",""Lead ${index}"")"`
			: `Lead ${index} Müller`;
		const note = nasty ? `@note ${index % 7}` : `met at the expo, ${index % 7} times`;
		text += `${name},lead${index}@example.com,"${note}",-${index}.5\n`;
	}
	return Buffer.from(text);
}

interface DefuseFigures {
	rowsPerSecond: number;
	cpuMicrosPerRow: number;
	defusedCells: number;
}

/** The child of one setting: a 10-row warm-up, then NODE_ROWS rows of Email into a result file, timed. */
async function defuseChild(
	setting: 'on' | 'off',
	nasty: boolean,
	baseUrl: string,
	apiKey: string,
): Promise<void> {
	await useBinaryMode('filesystem');
	const [email] = FILE_NODES;
	const sandbox = {
		baseUrls: { [email.service]: baseUrl },
		keys: { [email.service]: apiKey },
	} as unknown as Sandbox;
	const run = async (rows: number) => {
		const file = {
			json: {},
			binary: {
				data: { bytes: defuseLeads(rows, nasty), mimeType: 'text/csv', fileName: 'leads.csv' },
			},
		};
		const result = await runCsv(email, {
			sandbox,
			items: [file],
			parameters: { output: 'resultFile' },
			options: { defuseFormulas: setting === 'on' },
		});
		if (result.error) throw result.error;
		if (result.items[0].json.answered !== rows)
			throw new Error(`defusing ${setting}: ${JSON.stringify(result.items[0].json)}`);
		return result.items[0].json.defusedCells as number;
	};
	await run(10);
	const started = performance.now();
	const cpu = process.cpuUsage();
	const defusedCells = await run(NODE_ROWS);
	const cpuUsed = process.cpuUsage(cpu);
	const figures: DefuseFigures = {
		rowsPerSecond: NODE_ROWS / ((performance.now() - started) / 1000),
		cpuMicrosPerRow: (cpuUsed.user + cpuUsed.system) / NODE_ROWS,
		defusedCells,
	};
	process.stdout.write(`FIGURES ${JSON.stringify(figures)}\n`);
}

/** The writer alone: rows per second writing the same records with defusing on and off, in this process. */
export function writerOnOff(nasty: boolean): void {
	const rows = 200_000;
	const records: string[][] = [];
	for (let index = 0; index < 1000; index++) {
		const name = nasty
			? `=HYPERLINK("http://x.example/?${index}","Lead ${index}")`
			: `Lead ${index} Müller`;
		records.push([
			name,
			`lead${index}@example.com`,
			nasty ? `@note ${index % 7}` : `met at the expo, ${index % 7} times`,
			`-${index}.5`,
			'true',
			'false',
			'0.87',
			'ok',
		]);
	}
	const speed = (defuseFormulas: boolean) => {
		const writer = new CsvCellWriter({ delimiter: ',', byteOrderMark: false, defuseFormulas });
		let length = 0;
		const started = performance.now();
		for (let row = 0; row < rows; row++)
			length += writer.line(records[row % records.length]).length;
		if (length === 0) throw new Error('nothing written');
		return rows / ((performance.now() - started) / 1000);
	};
	const best = { on: 0, off: 0 };
	// Each round measures both settings back to back (order turning): the ratio of a round is what
	// a shared machine disturbs least; the median of the rounds' ratios is the figure.
	const ratios: number[] = [];
	for (let round = 1; round <= 10; round++) {
		const measured = { on: 0, off: 0 };
		for (const setting of round % 2 === 1 ? (['off', 'on'] as const) : (['on', 'off'] as const))
			measured[setting] = speed(setting === 'on');
		best.on = Math.max(best.on, measured.on);
		best.off = Math.max(best.off, measured.off);
		ratios.push(measured.on / measured.off);
	}
	ratios.sort((a, b) => a - b);
	console.log(
		`    the writer alone, ${nasty ? 'every name and note a formula' : 'plain names and notes'} (8 cells a row, 10 rounds): best on ${(best.on / 1e6).toFixed(2)} M rows/s, best off ${(best.off / 1e6).toFixed(2)} M rows/s; ratio on/off median ${((ratios[4] + ratios[5]) / 2).toFixed(2)} (rounds ${ratios[0].toFixed(2)} to ${ratios[9].toFixed(2)})`,
	);
}

async function defusingOnOff(): Promise<void> {
	console.log(
		`\n## Bulk CSV: a result file with Defuse Formulas on against off (the writer alone; Email, ${NODE_ROWS.toLocaleString('en-US')} rows, pacing off, filesystem binary mode, each run in a child process of its own)`,
	);
	writerOnOff(false);
	writerOnOff(true);
	const sandbox = await startSandbox();
	try {
		for (const nasty of [false, true]) {
			const best = { on: 0, off: 0 };
			const leastCpu = { on: Infinity, off: Infinity };
			let defused = 0;
			for (let round = 1; round <= NODE_ROUNDS + 1; round++) {
				for (const setting of round % 2 === 1
					? (['off', 'on'] as const)
					: (['on', 'off'] as const)) {
					sandbox.reset();
					const figures = await childFigures<DefuseFigures>(`defuse ${setting}`, [
						'defuse',
						setting,
						nasty ? 'nasty' : 'plain',
						sandbox.baseUrls.email,
						sandbox.keys.email,
					]);
					best[setting] = Math.max(best[setting], figures.rowsPerSecond);
					leastCpu[setting] = Math.min(leastCpu[setting], figures.cpuMicrosPerRow);
					if (setting === 'on') defused = figures.defusedCells;
					console.log(
						`    round ${round}, ${nasty ? 'formula-like' : 'plain'} list, defusing ${setting.padEnd(3)}: ${figures.rowsPerSecond.toFixed(0)} rows/s (CPU ${figures.cpuMicrosPerRow.toFixed(0)} µs/row), ${figures.defusedCells} cells defused`,
					);
				}
			}
			console.log(
				`    ${nasty ? 'formula-like' : 'plain'} list (${defused} cells defused), on over off (best of the rounds): ${best.on.toFixed(0)} / ${best.off.toFixed(0)} rows/s = ${(best.on / best.off).toFixed(2)}; rows per CPU second ${(leastCpu.off / leastCpu.on).toFixed(2)} (${leastCpu.on.toFixed(0)} / ${leastCpu.off.toFixed(0)} µs/row)`,
			);
		}
	} finally {
		await sandbox.close();
	}
}

if (require.main === module) {
	if (process.argv[2] === 'defuse') {
		void defuseChild(
			process.argv[3] as 'on' | 'off',
			process.argv[4] === 'nasty',
			process.argv[5],
			process.argv[6],
		).then(
			() => process.exit(0),
			(error: Error) => {
				console.error(error);
				process.exit(1);
			},
		);
	} else if (process.argv[2] === 'node') {
		void nodeChild(process.argv[3], process.argv[4], process.argv[5]).then(
			() => process.exit(0),
			(error: Error) => {
				console.error(error);
				process.exit(1);
			},
		);
	} else if (process.argv[2] === 'child') {
		void child(process.argv[3] as Mode, process.argv[4], process.argv[5]).then(
			() => process.exit(0),
			(error: Error) => {
				console.error(error);
				process.exit(1);
			},
		);
	} else {
		void run().then(() => process.exit(0));
	}
}
