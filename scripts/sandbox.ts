import { CREDENTIAL_TYPES } from '../test/harness/sandboxCredentials';
import { startSandbox } from '../test/sandbox/server';

/**
 * The sandbox alone, for pointing n8n credentials at it by hand: prints each service's Base URL
 * and key. It plays a free plan (1 request a second per service), as the credentials' default
 * Requests per Second expects. Ctrl-C stops it.
 */
async function main() {
	const port = Number(process.env.SANDBOX_PORT ?? 0) || undefined;
	const sandbox = await startSandbox({ port });
	for (const service of Object.keys(sandbox.baseUrls)) if (service !== 'api') sandbox.limitRate(service, 1);
	console.log('Abstract API sandbox on 127.0.0.1 (free plan: 1 request a second per service)\n');
	const rows = Object.entries(CREDENTIAL_TYPES).map(([service, type]) => ({ type, baseUrl: sandbox.baseUrls[service], key: sandbox.keys[service] }));
	const width = Math.max(...rows.map((row) => row.type.length));
	for (const row of rows) console.log(`${row.type.padEnd(width)}  Base URL ${row.baseUrl}  API key ${row.key}`);
	console.log(`\nStorage host: ${sandbox.storageUrl}\nCtrl-C stops it.`);
	const stop = () => void sandbox.close().then(() => process.exit(0));
	process.on('SIGINT', stop);
	process.on('SIGTERM', stop);
}

void main();
