import { runNode } from '../test/harness/run';
import { sandboxCredential } from '../test/harness/sandboxCredentials';
import { startSandbox, type Sandbox } from '../test/sandbox/server';
import type { Fault } from '../test/sandbox/types';

/**
 * Tail under faults: 1,000 IBAN items, pacing off, with one request in three failing (429,
 * 503 and a dropped connection, in turn; then the same share at random), against the same
 * run without faults. Prints the time ratio (the target is at most 2), whether every item
 * succeeded and none was sent again after success, and what the last items waited for: the
 * longest run of failures any item had, and the backoff that run cost it.
 */
const COUNT = 1000;
const FAULTS: Fault[] = [
	{ kind: 'status', status: 429 },
	{ kind: 'status', status: 503 },
	{ kind: 'drop' },
];

async function oneRun(sandbox: Sandbox, setup: (sandbox: Sandbox) => void) {
	sandbox.reset();
	setup(sandbox);
	const ibans = Array.from({ length: COUNT }, (_, index) => `DE89370400440532013000-${index}`);
	const started = performance.now();
	const result = await runNode({
		type: 'abstractIban',
		parameters: { iban: '={{ $json.iban }}' },
		credential: sandboxCredential(sandbox, 'iban', { requestsPerSecond: 0 }),
		items: ibans.map((iban) => ({ json: { iban } })),
	});
	const seconds = (performance.now() - started) / 1000;
	const log = sandbox.requests('iban');
	// Per item: its requests in order; a success must be its last one.
	const byItem = new Map<string, Array<{ at: number; ok: boolean }>>();
	for (const entry of log) {
		const list = byItem.get(entry.query.iban) ?? [];
		list.push({ at: entry.at, ok: entry.status === 200 });
		byItem.set(entry.query.iban, list);
	}
	const resent = [...byItem.values()].filter(
		(list) => list.findIndex((request) => request.ok) !== list.length - 1,
	).length;
	const succeeded = result.items.filter(
		(item) => item.json.error === undefined && item.json.iban !== undefined,
	).length;
	const worst = [...byItem.values()].reduce((a, b) => (b.length > a.length ? b : a));
	const finishes = [...byItem.values()]
		.map((list) => list[list.length - 1].at)
		.sort((a, b) => a - b);
	const first = log[0].at;
	return {
		seconds,
		requests: log.length,
		succeeded: result.error ? 0 : succeeded,
		resent,
		worstTries: worst.length,
		worstWaitMs: worst[worst.length - 1].at - worst[0].at,
		p99Seconds: (finishes[Math.floor(finishes.length * 0.99) - 1] - first) / 1000,
		lastSeconds: (finishes[finishes.length - 1] - first) / 1000,
	};
}

export async function run(): Promise<void> {
	console.log(
		`\n## Tail under faults (IBAN node, pacing off, ${COUNT} items; 1 request in 3 failing: 429, 503, dropped connection)`,
	);
	const sandbox = await startSandbox();
	try {
		await oneRun(sandbox, () => {}); // warm-up
		const clean = await oneRun(sandbox, () => {});
		console.log(`    no faults: ${clean.seconds.toFixed(2)} s, ${clean.requests} requests`);
		const cases: Array<[string, (sandbox: Sandbox) => void]> = [
			['every 3rd', (s) => s.faultPattern('iban', { every: 3, faults: FAULTS })],
			[
				'1 in 3 at random',
				(s) => s.faultPattern('iban', { probability: 1 / 3, faults: FAULTS, seed: 7 }),
			],
		];
		for (const [name, setup] of cases) {
			const faulty = await oneRun(sandbox, setup);
			console.log(
				`    ${name}: ${faulty.seconds.toFixed(2)} s = ${(faulty.seconds / clean.seconds).toFixed(2)}x the run without faults; ${faulty.succeeded}/${COUNT} items succeeded, ${faulty.requests} requests, ${faulty.resent} sent again after success`,
			);
			console.log(
				`        99% of items done at ${faulty.p99Seconds.toFixed(2)} s, the last at ${faulty.lastSeconds.toFixed(2)} s; the unluckiest item needed ${faulty.worstTries} requests over ${(faulty.worstWaitMs / 1000).toFixed(2)} s (its backoffs)`,
			);
		}
	} finally {
		await sandbox.close();
	}
}

if (require.main === module) void run().then(() => process.exit(0));
