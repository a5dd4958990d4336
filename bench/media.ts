import { fork } from 'child_process';

import type { IDataObject } from 'n8n-workflow';

import { Agent, request } from 'undici';

import { runNode, useBinaryMode } from '../test/harness/run';
import { startSandbox } from '../test/sandbox/server';
import { setScreenshotMinimumBytes } from '../test/sandbox/services/screenshot';

/**
 * The avatar and screenshot nodes against the sandbox. (a) Throughput: bytes per second of the
 * binaries through the node over a plain undici `request()` download of the same URLs at the same
 * concurrency. (b) Peak memory of one run that returns 100 screenshots of 1 MB each, against the
 * 100 MB returned. Figures are ratios against a baseline measured in the same process.
 *
 * n8n's binary mode is set once per process, and a memory peak needs a clean process: the
 * sandbox runs here, each measurement in a child process of its own, in filesystem mode (what
 * keeps bytes out of memory-held JSON) and in memory mode (n8n's base64-in-items default).
 */
const CONCURRENCY = 8; // the engine's bound when pacing is off
const SCREENSHOT_BYTES = 1_000_000;
const MODES = ['filesystem', 'memory'] as const;
type Mode = (typeof MODES)[number];

interface Target {
	baseUrls: Record<string, string>;
	keys: Record<string, string>;
}
type Task = { kind: 'throughput' | 'memory'; mode: Mode; target: Target; count?: number };

interface Workload {
	label: string;
	service: 'avatars' | 'screenshot';
	type: string;
	credentialType: string;
	count: number;
	parameters: IDataObject;
	/** The query the node sends for item `index`, without the key. */
	query(index: number): Record<string, string>;
}

const NAMES = [
	'Ada Lovelace',
	'Grace Hopper',
	'Alan Turing',
	'Katherine Johnson',
	'Edsger Dijkstra',
	'Barbara Liskov',
	'Donald Knuth',
	'Frances Allen',
];
const PAGES = Array.from({ length: 8 }, (_, index) => `https://site${index}.example.com/`);

const avatarWork = (count: number): Workload => ({
	label: 'avatars (256 px PNG)',
	service: 'avatars',
	type: 'abstractAvatars',
	credentialType: 'abstractAvatarsApi',
	count,
	parameters: { name: '={{ $json.value }}', options: { imageSize: 256 } },
	query: (index) => ({ name: NAMES[index % NAMES.length], image_size: '256' }),
});

const screenshotWork = (count: number): Workload => ({
	label: 'screenshots (1 MB JPEG)',
	service: 'screenshot',
	type: 'abstractScreenshot',
	credentialType: 'abstractScreenshotApi',
	count,
	parameters: { url: '={{ $json.value }}' },
	query: (index) => ({ url: PAGES[index % PAGES.length] }),
});

const itemsFor = (work: Workload) =>
	Array.from({ length: work.count }, (_, index) => ({
		json: { value: Object.values(work.query(index))[0] },
	}));

/** One run of the node over the workload: seconds and binary bytes returned. */
async function throughNode(target: Target, work: Workload) {
	const started = performance.now();
	const result = await runNode({
		type: work.type,
		parameters: work.parameters,
		credential: {
			type: work.credentialType,
			data: {
				apiKey: target.keys[work.service],
				baseUrl: target.baseUrls[work.service],
				requestsPerSecond: 0,
			},
		},
		items: itemsFor(work),
	});
	const seconds = (performance.now() - started) / 1000;
	if (result.error) throw result.error;
	const bytes = result.items.reduce((sum, item) => sum + Number(item.json.bytes), 0);
	return { seconds, bytes, items: result.items.length };
}

/** The same GETs from a plain undici loop at the same concurrency, each body read to its end. */
async function throughUndici(target: Target, work: Workload) {
	const dispatcher = new Agent({ connections: CONCURRENCY });
	let next = 0;
	let bytes = 0;
	const started = performance.now();
	const lane = async () => {
		while (next < work.count) {
			const query = new URLSearchParams({
				...work.query(next++),
				api_key: target.keys[work.service],
			});
			const response = await request(`${target.baseUrls[work.service]}/v1/?${query}`, {
				dispatcher,
			});
			const body = await response.body.arrayBuffer();
			bytes += body.byteLength;
		}
	};
	await Promise.all(Array.from({ length: CONCURRENCY }, lane));
	await dispatcher.close();
	return { seconds: (performance.now() - started) / 1000, bytes };
}

const megabytes = (bytes: number) => (bytes / 1e6).toFixed(1);

/** Node over undici for one workload: median of three alternating rounds, after a warm-up. */
async function throughput(target: Target, mode: Mode, work: Workload): Promise<string> {
	await throughNode(target, { ...work, count: 16 }); // warm-up: modules, connections, sandbox pictures
	await throughUndici(target, { ...work, count: 16 });
	const rounds: Array<{ ratio: number; node: number; plain: number; bytes: number }> = [];
	for (let round = 0; round < 3; round++) {
		const node = await throughNode(target, work);
		const plain = await throughUndici(target, work);
		if (node.bytes !== plain.bytes)
			throw new Error(
				`${work.label}: the node returned ${node.bytes} bytes, undici ${plain.bytes}`,
			);
		const nodeRate = node.bytes / node.seconds;
		const plainRate = plain.bytes / plain.seconds;
		rounds.push({
			ratio: nodeRate / plainRate,
			node: nodeRate,
			plain: plainRate,
			bytes: node.bytes,
		});
	}
	const median = [...rounds].sort((a, b) => a.ratio - b.ratio)[1];
	return (
		`    ${mode} mode, ${work.label}, ${work.count} items of ${Math.round(median.bytes / work.count)} bytes: ` +
		`node/undici ${median.ratio.toFixed(3)} (node ${megabytes(median.node)} MB/s, undici ${megabytes(median.plain)} MB/s; ` +
		`rounds ${rounds.map((round) => round.ratio.toFixed(3)).join(', ')})`
	);
}

async function memoryTask(target: Target, mode: Mode, count: number): Promise<string[]> {
	await throughNode(target, screenshotWork(4)); // warm-up: n8n-core, the node, the first pictures
	const gc = (globalThis as { gc?: () => void }).gc;
	gc?.();
	const before = process.memoryUsage();
	const peak = { rss: before.rss, heapUsed: before.heapUsed, arrayBuffers: before.arrayBuffers };
	const sampler = setInterval(() => {
		const now = process.memoryUsage();
		peak.rss = Math.max(peak.rss, now.rss);
		peak.heapUsed = Math.max(peak.heapUsed, now.heapUsed);
		peak.arrayBuffers = Math.max(peak.arrayBuffers, now.arrayBuffers);
	}, 2);
	const run = await throughNode(target, screenshotWork(count));
	clearInterval(sampler);
	const maxRss = process.resourceUsage().maxRSS * 1024;
	peak.rss = Math.max(peak.rss, maxRss);
	const returned = run.bytes;
	const share = (delta: number) =>
		`${megabytes(delta)} MB = ${(delta / returned).toFixed(3)} of the bytes returned`;
	return [
		`    ${mode} mode: ${run.items} screenshots, ${megabytes(returned)} MB returned in ${run.seconds.toFixed(1)} s; ` +
			`peak RSS +${share(peak.rss - before.rss)}; peak heap +${share(peak.heapUsed - before.heapUsed)}; ` +
			`peak array buffers +${megabytes(peak.arrayBuffers - before.arrayBuffers)} MB`,
	];
}

async function child(task: Task): Promise<string[]> {
	await useBinaryMode(task.mode);
	if (task.kind === 'memory') return await memoryTask(task.target, task.mode, task.count ?? 100);
	return [
		await throughput(task.target, task.mode, avatarWork(400)),
		await throughput(task.target, task.mode, screenshotWork(60)),
	];
}

function inChild(task: Task): Promise<string[]> {
	return new Promise((resolve, reject) => {
		const worker = fork(__filename, [], {
			env: { ...process.env, BENCH_MEDIA_TASK: JSON.stringify(task) },
			execArgv: ['--expose-gc'],
		});
		let lines: string[] | undefined;
		worker.on('message', (message) => (lines = message as string[]));
		worker.on('error', reject);
		worker.on('exit', (code) =>
			lines ? resolve(lines) : reject(new Error(`bench child exited with ${code}`)),
		);
	});
}

export async function run(): Promise<void> {
	console.log('\n## Media nodes: avatars and website screenshots');
	const sandbox = await startSandbox();
	setScreenshotMinimumBytes(SCREENSHOT_BYTES);
	const target: Target = { baseUrls: sandbox.baseUrls, keys: sandbox.keys };
	try {
		console.log(
			`(a) throughput, pacing off: binary bytes per second through the node over a plain undici request() of the same URLs (concurrency ${CONCURRENCY}), median of 3 alternating rounds`,
		);
		for (const mode of MODES)
			for (const line of await inChild({ kind: 'throughput', mode, target })) console.log(line);
		console.log(
			'(b) peak memory of one run returning 100 screenshots of 1 MB each, over the process before the run',
		);
		for (const mode of MODES)
			for (const line of await inChild({ kind: 'memory', mode, target })) console.log(line);
		// The same in filesystem mode with three times the screenshots: what remains grows far less than the bytes.
		for (const line of await inChild({ kind: 'memory', mode: 'filesystem', target, count: 300 }))
			console.log(line);
	} finally {
		setScreenshotMinimumBytes(0);
		await sandbox.close();
	}
}

if (process.env.BENCH_MEDIA_TASK) {
	const task = JSON.parse(process.env.BENCH_MEDIA_TASK) as Task;
	void child(task).then(
		(lines) => process.send!(lines, () => process.exit(0)),
		(error: Error) => {
			console.error(error);
			process.exit(1);
		},
	);
} else if (require.main === module) {
	void run().then(() => process.exit(0));
}
