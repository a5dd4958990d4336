import { runNode } from '../harness/run';
import { sandboxCredential } from '../harness/sandboxCredentials';
import { gzipBomb } from './craftedArchives';
import { startSandbox } from '../sandbox/server';
import { databaseControls, type DownloadFault } from '../sandbox/services/database';

/**
 * The gzip bomb test's child process (started with a small heap, --max-old-space-size=256): the
 * IP Database Download node through n8n-core, memory binary mode (n8n holds what it is handed),
 * against the sandbox serving a bomb of the kind and output given as arguments (and a fault of
 * its transfer, if a third is given). It prints one JSON line: the items, the error the run
 * ended in and the process's peak RSS. A fatal heap error prints nothing.
 */
async function main(): Promise<void> {
	const [where, output, fault] = process.argv.slice(2) as [
		'databaseFile' | 'afterTheEnd',
		string,
		DownloadFault | undefined,
	];
	const sandbox = await startSandbox();
	try {
		const bomb = await gzipBomb(where);
		databaseControls(sandbox).serve(bomb);
		if (fault) databaseControls(sandbox).failNextDownload(fault);
		const { items, error } = await runNode({
			type: 'abstractIpDatabase',
			parameters: { database: 'ip-geolocation', format: 'mmdb', output },
			credential: sandboxCredential(sandbox, 'api'),
		});
		console.log(
			JSON.stringify({
				archiveBytes: bomb.bytes.length,
				// The most memory the process held: what n8n was handed shows here (its buffers live outside the heap).
				maxRssMiB: Math.round(process.resourceUsage().maxRSS / 1024),
				items: items.map((item) => ({ json: item.json, bytes: item.binary?.data?.bytes })),
				error: error && { message: error.message, description: error.description },
			}),
		);
	} finally {
		await sandbox.close();
	}
}

main().then(
	() => process.exit(0),
	(error: unknown) => {
		console.error(error);
		process.exit(1);
	},
);
