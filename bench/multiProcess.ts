import { describeRun, runSharedKey } from '../test/engine/multiProcess/measure';
import { startSandbox } from '../test/sandbox/server';

/**
 * Several OS processes running the IBAN node through n8n-core on one key, against the sandbox
 * limited to the rate they are set to (as queue-mode workers sharing a key): how close to the
 * limit they use the key while they share it, as a ratio to the limit and to one process alone
 * on the key in the same run (the baseline), and their share of 429s. The targets: at least 0.9
 * of the limit, at most 10% 429s. A timing, so measured here; test/engine/multiProcess.test.ts
 * checks what must hold on any machine (every item once, 429s retried, no resend).
 */
export async function run(): Promise<void> {
	console.log('\n## Several processes on one key (as queue-mode workers)');
	const sandbox = await startSandbox();
	try {
		for (const [rate, processes, items] of [
			[5, 2, 40],
			[10, 3, 40],
		]) {
			const alone = await runSharedKey(sandbox, rate, 1, items);
			const shared = await runSharedKey(sandbox, rate, processes, items);
			console.log(`    ${describeRun(shared, rate, processes)}`);
			console.log(
				`    baseline, 1 process alone at ${rate}/s: ${alone.wholeRunRate.toFixed(2)}/s = ${(alone.wholeRunRate / rate).toFixed(3)} of the limit, ${alone.refused} 429s; ` +
					`shared / alone: ${(shared.sharedRate / alone.wholeRunRate).toFixed(3)} (targets: >= 0.9 of the limit, <= 10% 429s: ` +
					`${shared.sharedRate / rate >= 0.9 && shared.refused / shared.requests <= 0.1 ? 'met' : 'NOT met'})`,
			);
		}
	} finally {
		await sandbox.close();
	}
}

if (require.main === module) void run().then(() => process.exit(0));
