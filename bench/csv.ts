import { parse as csvParse } from 'csv-parse/sync';

import { CsvParser } from '../nodes/shared/csv/csv';
import { runNode } from '../test/harness/run';
import { sandboxCredential } from '../test/harness/sandboxCredentials';
import { startSandbox, type Sandbox } from '../test/sandbox/server';

/**
 * Bulk CSV input of the email node against the sandbox, pacing off: the node's time per row for
 * one CSV file of N rows over its time per item for the same N addresses given as N items, in
 * the same process, in rounds whose order alternates, as wall time and as this process's CPU
 * time (the node and the sandbox both run here; CPU time is what other processes disturb least). Goal: at most 1.2x. Also the
 * time the node takes to read and check a 50,000-row file with nothing to send (every address
 * empty, Continue On Fail), and 50,000 rows sent for real.
 */
const address = (index: number) => `lead${index}@example.com`;

function leadsFile(count: number): Buffer {
	let text = 'name,email,company\n';
	for (let index = 0; index < count; index++)
		text += `"Lead ${index}",${address(index)},"Acme, Inc."\n`;
	return Buffer.from(text);
}

/** Wall time and this process's CPU time (node and sandbox both run here), in ms. */
interface Took {
	wall: number;
	cpu: number;
}

function stopwatch(): () => Took {
	const wall = performance.now();
	const cpu = process.cpuUsage();
	return () => {
		const used = process.cpuUsage(cpu);
		return { wall: performance.now() - wall, cpu: (used.user + used.system) / 1000 };
	};
}

async function asItems(sandbox: Sandbox, count: number): Promise<Took> {
	const took = stopwatch();
	const result = await runNode({
		type: 'abstractEmail',
		parameters: { email: '={{ $json.email }}', options: {} },
		credential: sandboxCredential(sandbox, 'email'),
		items: Array.from({ length: count }, (_, index) => ({
			json: { name: `Lead ${index}`, email: address(index), company: 'Acme, Inc.' },
		})),
	});
	if (result.error) throw result.error;
	if (result.items.length !== count)
		throw new Error(`expected ${count} items, got ${result.items.length}`);
	return took();
}

async function asCsv(
	sandbox: Sandbox,
	file: Buffer,
	count: number,
	continueOnFail = false,
): Promise<Took> {
	const took = stopwatch();
	const result = await runNode({
		type: 'abstractEmail',
		parameters: { input: 'csvFile', binaryPropertyName: 'data', emailColumn: 'email', options: {} },
		credential: sandboxCredential(sandbox, 'email'),
		items: [
			{ json: {}, binary: { data: { bytes: file, mimeType: 'text/csv', fileName: 'leads.csv' } } },
		],
		continueOnFail,
	});
	if (result.error) throw result.error;
	if (result.items.length !== count)
		throw new Error(`expected ${count} items, got ${result.items.length}`);
	return took();
}

async function perRow(sandbox: Sandbox) {
	const count = 1000;
	const rounds = 5;
	const file = leadsFile(count);
	console.log(
		`(a) time per row, pacing off: one CSV file of ${count} rows over ${count} items with the same addresses, ${rounds} rounds, the order alternating`,
	);
	await asItems(sandbox, 200); // warm-up
	await asCsv(sandbox, leadsFile(200), 200);
	const wallRatios: number[] = [];
	const cpuRatios: number[] = [];
	for (let round = 1; round <= rounds; round++) {
		let items: Took = { wall: 0, cpu: 0 };
		let csv: Took = { wall: 0, cpu: 0 };
		for (const kind of round % 2 === 1 ? ['items', 'csv'] : ['csv', 'items']) {
			sandbox.reset();
			if (kind === 'items') items = await asItems(sandbox, count);
			else csv = await asCsv(sandbox, file, count);
		}
		wallRatios.push(csv.wall / items.wall);
		cpuRatios.push(csv.cpu / items.cpu);
		const perUnit = (ms: number) => ((ms / count) * 1000).toFixed(0);
		console.log(
			`    round ${round}: CSV ${perUnit(csv.wall)} µs/row (CPU ${perUnit(csv.cpu)}), items ${perUnit(items.wall)} µs/item (CPU ${perUnit(items.cpu)}), ratio ${(csv.wall / items.wall).toFixed(3)} (CPU ${(csv.cpu / items.cpu).toFixed(3)})`,
		);
	}
	const median = (values: number[]) =>
		[...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
	console.log(
		`    median ratio CSV row / item: wall time ${median(wallRatios).toFixed(3)}, CPU time ${median(cpuRatios).toFixed(3)} (goal <= 1.2)`,
	);
}

async function largestFile(sandbox: Sandbox) {
	const count = 50_000;
	let empty = 'name,email\n';
	for (let index = 0; index < count; index++) empty += `Lead ${index},\n`;
	sandbox.reset();
	const checked = (await asCsv(sandbox, Buffer.from(empty), count, true)).wall;
	console.log(
		`(b) a ${count.toLocaleString('en-US')}-row file, every address empty (read, checked, ${count.toLocaleString('en-US')} error items, no request): ${(checked / 1000).toFixed(2)} s`,
	);
	sandbox.reset();
	const sent = (await asCsv(sandbox, leadsFile(count), count)).wall;
	const requests = sandbox.requests('email').length;
	console.log(
		`(c) a ${count.toLocaleString('en-US')}-row file sent, pacing off: ${(sent / 1000).toFixed(1)} s, ${requests} requests, ${((sent / count) * 1000).toFixed(0)} µs/row`,
	);
}

/**
 * The shared parser alone (also behind the IP lookup's CSV index): MB/s over csv-parse's on the
 * same bytes, an IP-database-like file of about 32 MB, fed in 64 KB chunks. Twice: with the
 * delimiter given (the IP lookup's index) and detected (a bulk file's input, which reads its
 * first rows before it knows the delimiter).
 */
function parserSpeed() {
	const lines: string[] = [];
	for (let index = 0; index < 400_000; index++) {
		const city = index % 7 ? '"Some City, ""X"""' : 'Zürich';
		lines.push(
			`1.${(index >> 16) & 255}.${(index >> 8) & 255}.0/24,${index},${city},DE,Europe,52.5${index % 100},13.4${index % 97},Europe/Berlin,10115`,
		);
	}
	const bytes = Buffer.from(lines.join('\n') + '\n');
	const megabytes = bytes.length / 1e6;
	for (const delimiter of [',', 'detect'] as const) {
		console.log(
			`(d) the CSV parser, delimiter ${delimiter === 'detect' ? 'detected' : 'given'}: ${megabytes.toFixed(1)} MB, ${lines.length.toLocaleString('en-US')} records, in 64 KB chunks, over csv-parse (sync) on the same bytes, 3 rounds`,
		);
		const ratios: number[] = [];
		for (let round = 1; round <= 3; round++) {
			let fields = 0;
			let started = performance.now();
			const parser = new CsvParser(
				(row) => {
					fields += row.fields.length;
				},
				{ delimiter },
			);
			for (let at = 0; at < bytes.length; at += 64 * 1024)
				parser.push(bytes.subarray(at, at + 64 * 1024));
			parser.end();
			const ours = performance.now() - started;
			started = performance.now();
			const theirs = (csvParse(bytes, { relax_quotes: true }) as string[][]).length;
			const oracle = performance.now() - started;
			if (theirs !== lines.length || fields !== lines.length * 9)
				throw new Error('the parsers disagree on the record count');
			ratios.push(oracle / ours);
			console.log(
				`    round ${round}: ${(megabytes / (ours / 1000)).toFixed(0)} MB/s, csv-parse ${(megabytes / (oracle / 1000)).toFixed(0)} MB/s, ${(oracle / ours).toFixed(2)}x as fast`,
			);
		}
		console.log(
			`    median: ${[...ratios].sort((a, b) => a - b)[1].toFixed(2)}x csv-parse's speed`,
		);
	}
}

export async function run(): Promise<void> {
	console.log('\n## Bulk CSV input (email node)');
	const sandbox = await startSandbox();
	try {
		// `--parser-only`: the parser's speed alone (part (d)).
		if (!process.argv.includes('--parser-only')) await perRow(sandbox);
		// `--rows-only`: the ratio alone, without the two 50,000-row runs (minutes on a busy machine).
		if (!process.argv.includes('--rows-only') && !process.argv.includes('--parser-only'))
			await largestFile(sandbox);
		parserSpeed();
	} finally {
		await sandbox.close();
	}
}

if (require.main === module) void run().then(() => process.exit(0));
