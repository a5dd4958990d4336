import { runNode } from '../../harness/run';

/**
 * One OS process of the multi-process test, as a queue-mode worker would be: it loads n8n-core
 * and the package, says `ready`, and on `go` runs the IBAN node through n8n-core's engine on
 * its items, with the key and rate it was given, then reports what came out.
 */
export interface Go {
	type: 'go';
	startAt: number;
	baseUrl: string;
	apiKey: string;
	requestsPerSecond: number;
	ibans: string[];
}

export interface Report {
	type: 'done';
	items: Array<{ iban: unknown; error?: unknown }>;
	error?: string;
}

process.on('message', (message: Go) => {
	if (message.type !== 'go') return;
	void (async () => {
		await new Promise((resolve) => setTimeout(resolve, Math.max(0, message.startAt - Date.now())));
		const result = await runNode({
			type: 'abstractIban',
			parameters: { iban: '={{ $json.iban }}' },
			credential: {
				type: 'abstractIbanApi',
				data: {
					apiKey: message.apiKey,
					baseUrl: message.baseUrl,
					requestsPerSecond: message.requestsPerSecond,
				},
			},
			items: message.ibans.map((iban) => ({ json: { iban } })),
		});
		const report: Report = {
			type: 'done',
			items: result.items.map((item) => ({ iban: item.json.iban, error: item.json.error })),
			error: result.error?.message,
		};
		process.send?.(report, () => process.exit(0));
	})();
});

// Stopped by the parent (a failed run): exit normally, so that the harness removes its folder.
process.once('SIGTERM', () => process.exit(143));

process.send?.({ type: 'ready' });
