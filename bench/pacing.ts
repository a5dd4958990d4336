import { runNode } from '../test/harness/run';
import { sandboxCredential } from '../test/harness/sandboxCredentials';
import { startSandbox, type Sandbox } from '../test/sandbox/server';

/**
 * Pacing in one process: the IBAN node at 1, 5 and 20 requests per second against the sandbox
 * limited to the same rate (a sliding window counted at arrival, the strictest kind of
 * limiter). Prints the accepted rate over the configured one (the target is at least 0.98)
 * and the 429s received (the target is 0). The sandbox's own request log is the measure.
 */
const IBAN = 'DE89370400440532013000';

async function paced(sandbox: Sandbox, rate: number, count: number) {
	sandbox.reset();
	sandbox.limitRate('iban', rate);
	const result = await runNode({
		type: 'abstractIban',
		parameters: { iban: '={{ $json.iban }}', options: { sendRepeatsOnce: false } },
		credential: sandboxCredential(sandbox, 'iban', { requestsPerSecond: rate }),
		items: Array.from({ length: count }, () => ({ json: { iban: IBAN } })),
	});
	if (result.error) throw result.error;
	const log = sandbox.requests('iban');
	const accepted = log.filter((entry) => entry.status === 200);
	const span = (accepted[accepted.length - 1].at - accepted[0].at) / 1000;
	return {
		achieved: (accepted.length - 1) / span,
		refused: log.length - accepted.length,
		requests: log.length,
	};
}

export async function run(): Promise<void> {
	console.log(
		'\n## Pacing in one process (IBAN node, sandbox limited to the configured rate: sliding window at arrival)',
	);
	const sandbox = await startSandbox();
	try {
		// Ten seconds at each rate, after the first window (which the limiter lets through at once).
		for (const [rate, count] of [
			[1, 11],
			[5, 56],
			[20, 221],
		]) {
			const { achieved, refused, requests } = await paced(sandbox, rate, count);
			console.log(
				`    ${String(rate).padStart(2)}/s: ${count} items, ${requests} requests, accepted ${achieved.toFixed(3)}/s = ${(achieved / rate).toFixed(4)} of configured, 429s: ${refused}`,
			);
		}
	} finally {
		await sandbox.close();
	}
}

if (require.main === module) void run().then(() => process.exit(0));
