import { describeRun, runSharedKey } from '../test/engine/multiProcess/measure';
import { startSandbox } from '../test/sandbox/server';

/**
 * The multi-process run of `npm test` (test/engine/multiProcess.test.ts), printed: 2 OS
 * processes running the IBAN node through n8n-core, one key, at 5/s against the sandbox
 * limited to 5/s (the targets: 429s at most 10% of requests, at least 0.9 of the limit).
 */
export async function run(): Promise<void> {
	console.log('\n## Several processes on one key (as queue-mode workers)');
	const sandbox = await startSandbox();
	try {
		for (const [rate, processes, items] of [[5, 2, 40], [10, 3, 40]]) {
			console.log(`    ${describeRun(await runSharedKey(sandbox, rate, processes, items), rate, processes)}`);
		}
	} finally {
		await sandbox.close();
	}
}

if (require.main === module) void run().then(() => process.exit(0));
