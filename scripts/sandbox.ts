import { startSandbox } from '../test/sandbox/server';
import { sandboxLines } from './sandboxPrintout';

/**
 * `npm run sandbox`: the sandbox alone, for credentials made by hand in any n8n: on 127.0.0.1,
 * port SANDBOX_PORT (default 5690) and its storage host on the port after, with the same keys
 * at every start, so the credentials keep working across restarts. It prints, per credential
 * type, the Base URL and the API Key. It plays a free plan (1 request a second per service), as
 * the credentials' default Requests per Second expects. Ctrl-C stops it.
 */
export const DEFAULT_SANDBOX_PORT = 5690;

async function main() {
	const port = Number(process.env.SANDBOX_PORT) || DEFAULT_SANDBOX_PORT;
	const sandbox = await startSandbox({ port, storagePort: port + 1, steadyKeys: true });
	for (const service of Object.keys(sandbox.baseUrls))
		if (service !== 'api') sandbox.limitRate(service, 1);
	for (const line of sandboxLines(sandbox, 1)) console.log(line);
	console.log('\nCtrl-C stops it.');
	const stop = () => void sandbox.close().then(() => process.exit(0));
	process.on('SIGINT', stop);
	process.on('SIGTERM', stop);
}

main().catch((error: Error) => {
	console.error(
		`npm run sandbox could not start: ${error.message}. Set SANDBOX_PORT to a free port (it takes that port and the next).`,
	);
	process.exit(1);
});
