import { runNode } from '../test/harness/run';
import { sandboxCredential } from '../test/harness/sandboxCredentials';
import { startSandbox, type Sandbox } from '../test/sandbox/server';

/**
 * What a run spends (credits are money), as counts rather than times: (a) requests sent after the
 * service's first "credits used up" answer, against the requests in flight at that moment
 * (goal: at most those); (b) requests per distinct value on a file where every value occurs
 * twice (goal 1.0), against the same run with Send Repeated Values Once off (goal 2.0).
 */
const csvFile = (rows: number, distinct: number) => {
	const lines = ['name,email'];
	for (let row = 0; row < rows; row++)
		lines.push(`Lead ${row + 1},lead${row % distinct}@example.com`);
	return {
		json: {},
		binary: {
			data: {
				bytes: Buffer.from(`${lines.join('\n')}\n`),
				mimeType: 'text/csv',
				fileName: 'leads.csv',
			},
		},
	};
};

async function emailFile(
	sandbox: Sandbox,
	rows: number,
	distinct: number,
	options: Record<string, unknown> = {},
	credits?: number,
) {
	sandbox.reset();
	if (credits !== undefined) sandbox.setQuota('email', credits);
	return await runNode({
		type: 'abstractEmail',
		parameters: { input: 'csvFile', binaryPropertyName: 'data', emailColumn: 'email', options },
		credential: sandboxCredential(sandbox, 'email', { requestsPerSecond: 0 }),
		items: [csvFile(rows, distinct)],
		onError: 'continueErrorOutput',
	});
}

export async function run(): Promise<void> {
	const sandbox = await startSandbox();
	try {
		console.log('\n## Credits (Email Reputation, CSV input, pacing off: 32 requests in flight)');
		console.log(
			'(a) the plan runs out at row 300 of a 1,000-row file: requests after the first quota answer',
		);
		for (let round = 1; round <= 3; round++) {
			const result = await emailFile(sandbox, 1000, 1000, {}, 300);
			const log = sandbox.requests('email');
			const first = log.findIndex((entry) => entry.status === 422);
			console.log(
				`    round ${round}: ${log.length} requests, ${log.length - first - 1} after the first 422 (in flight: at most 32; before the run stopped sending on a spent plan: 699); ${result.items.length} answered, ${result.errorItems.length} failed or not sent`,
			);
		}
		console.log('(b) 2,000 rows, every address twice: requests per distinct value');
		const once = await emailFile(sandbox, 2000, 1000);
		const sentOnce = sandbox.requests('email').length;
		const each = await emailFile(sandbox, 2000, 1000, { sendRepeatsOnce: false });
		const sentEach = sandbox.requests('email').length;
		console.log(
			`    Send Repeated Values Once on: ${sentOnce} requests for 1,000 values = ${(sentOnce / 1000).toFixed(2)} per value (${once.items.length} rows answered); off: ${(sentEach / 1000).toFixed(2)} per value (${each.items.length} rows)`,
		);
	} finally {
		await sandbox.close();
	}
}
