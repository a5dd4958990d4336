import { Agent, request } from 'undici';

import { runNode } from '../test/harness/run';
import { sandboxCredential } from '../test/harness/sandboxCredentials';
import { startSandbox, type Sandbox } from '../test/sandbox/server';

/**
 * The email node against the sandbox: (a) pacing, achieved rate over configured, with the
 * sandbox limiting at that same rate; (b) throughput with pacing off, the node's items per
 * second over a plain undici loop sending the same requests at the same concurrency. Figures
 * are ratios against a baseline measured in the same process: these machines are noisy.
 */
const CONCURRENCY = 32; // the engine's bound when pacing is off (nodes/shared/engine/pacing.ts)

const emails = (count: number) =>
	Array.from({ length: count }, (_, index) => ({ json: { email: `lead${index}@example.com` } }));

async function runEmail(sandbox: Sandbox, count: number, requestsPerSecond: number) {
	const started = performance.now();
	const result = await runNode({
		type: 'abstractEmail',
		parameters: { email: '={{ $json.email }}', options: {} },
		credential: sandboxCredential(sandbox, 'email', { requestsPerSecond }),
		items: emails(count),
	});
	if (result.error) throw result.error;
	return { seconds: (performance.now() - started) / 1000, items: result.items.length };
}

async function pacing(sandbox: Sandbox) {
	console.log(
		'(a) pacing: achieved requests per second over configured, sandbox limited to the same rate',
	);
	for (const [rate, count] of [
		[1, 6],
		[5, 26],
		[20, 101],
	]) {
		sandbox.reset();
		sandbox.limitRate('email', rate);
		await runEmail(sandbox, count, rate);
		const log = sandbox.requests('email');
		const span = (log[log.length - 1].at - log[0].at) / 1000;
		const achieved = (log.length - 1) / span;
		const refused = log.filter((entry) => entry.status === 429).length;
		console.log(
			`    ${String(rate).padStart(2)}/s: ${count} items, achieved ${achieved.toFixed(2)}/s = ${(achieved / rate).toFixed(3)} of configured, 429s received: ${refused}`,
		);
	}
}

/** The same requests the node sends (POST, Bearer, JSON), from a plain undici loop. */
async function undiciLoop(sandbox: Sandbox, count: number): Promise<number> {
	const dispatcher = new Agent({ connections: CONCURRENCY });
	const url = `${sandbox.baseUrls.email}/v1/`;
	let next = 0;
	const started = performance.now();
	const lane = async () => {
		while (next < count) {
			const index = next++;
			const response = await request(url, {
				method: 'POST',
				dispatcher,
				headers: {
					authorization: `Bearer ${sandbox.keys.email}`,
					'content-type': 'application/json',
				},
				body: JSON.stringify({ email: `lead${index}@example.com` }),
			});
			await response.body.json();
		}
	};
	await Promise.all(Array.from({ length: CONCURRENCY }, lane));
	await dispatcher.close();
	return (performance.now() - started) / 1000;
}

async function throughput(sandbox: Sandbox) {
	const count = 300;
	console.log(
		`(b) throughput, pacing off: ${count} items through the node over a plain undici loop (concurrency ${CONCURRENCY}), 3 alternating rounds`,
	);
	sandbox.reset();
	await runEmail(sandbox, 20, 0); // warm-up
	await undiciLoop(sandbox, 20);
	const ratios: number[] = [];
	for (let round = 1; round <= 3; round++) {
		sandbox.reset();
		const node = await runEmail(sandbox, count, 0);
		const plain = await undiciLoop(sandbox, count);
		const nodeRate = node.items / node.seconds;
		const plainRate = count / plain;
		ratios.push(nodeRate / plainRate);
		console.log(
			`    round ${round}: node ${nodeRate.toFixed(0)} items/s, undici ${plainRate.toFixed(0)} requests/s, ratio ${(nodeRate / plainRate).toFixed(3)}`,
		);
	}
	const median = [...ratios].sort((a, b) => a - b)[1];
	console.log(`    median ratio node/undici: ${median.toFixed(3)}`);
}

export async function run(): Promise<void> {
	console.log('\n## Email node');
	const sandbox = await startSandbox();
	try {
		await pacing(sandbox);
		await throughput(sandbox);
	} finally {
		await sandbox.close();
	}
}

if (require.main === module) void run().then(() => process.exit(0));
