import { sleep } from 'n8n-workflow';

import { runNode } from '../harness/run';
import { sandboxCredential } from '../harness/sandboxCredentials';
import { downloadSandbox } from './ipDatabaseHelpers';

/**
 * The editor's Stop during a download: n8n-core cancels the execution, and the node must let go
 * of the transfer then, not keep its connection (and the check and the store behind it) open
 * until the host ends it. The storage host stalls halfway and holds the connection open; its
 * log says when the client closed it.
 */
const { sandbox, db } = downloadSandbox();

async function closedWithin(ms: number): Promise<boolean> {
	for (const started = Date.now(); Date.now() - started < ms; await sleep(20)) {
		if (/closed by the client/.test(sandbox().requests('storage').at(-1)?.fault ?? '')) return true;
	}
	return false;
}

describe('IP database download: Stop mid-download', () => {
	it.each(['archive', 'databaseFile'])(
		'closes the transfer (%s output)',
		async (output) => {
			db().failNextDownload('stalled');
			let stopped = false;
			const running = runNode({
				type: 'abstractIpDatabase',
				parameters: { database: 'ip-geolocation', format: 'mmdb', output },
				credential: sandboxCredential(sandbox(), 'api'),
				onStarted: (stop) => {
					void (async () => {
						while (!/stalled/.test(sandbox().requests('storage').at(-1)?.fault ?? ''))
							await sleep(5);
						await sleep(200);
						stop();
						stopped = true;
					})();
				},
			});
			while (!stopped) await sleep(20);
			const closed = await closedWithin(5000);
			// The run itself ends once the node has let go (n8n waits for the node it stopped).
			const { run, items } = await running;
			expect(closed).toBe(true);
			expect(run.status).toBe('canceled');
			expect(items).toEqual([]);
		},
		180_000,
	);
});
