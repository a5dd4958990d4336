import { CREDENTIAL_DISPLAY_NAMES, CREDENTIAL_TYPES } from '../test/harness/sandboxCredentials';
import type { Sandbox } from '../test/sandbox/server';

/**
 * What a person types into n8n to use the sandbox: the README's way to a new credential, by the
 * names n8n 2.41.1 shows (held to the README by test/scripts/sandboxPrintout.test.ts); per
 * credential type, named as the editor's list of types names it, the Base URL and the API Key;
 * then the storage host the database download fetches from. `npm run sandbox` and `npm run dev`
 * print it.
 */
export function sandboxLines(sandbox: Sandbox, requestsPerSecond: number): string[] {
	const rows = Object.entries(CREDENTIAL_TYPES).map(([service, type]) => ({
		name: CREDENTIAL_DISPLAY_NAMES[type],
		baseUrl: sandbox.baseUrls[service],
		key: sandbox.keys[service],
	}));
	const nameWidth = Math.max(...rows.map((row) => row.name.length));
	const urlWidth = Math.max(...rows.map((row) => row.baseUrl.length));
	return [
		`Abstract API sandbox on 127.0.0.1: made-up answers, no key of yours, no credit, nothing leaves this machine.`,
		`It plays a plan of ${requestsPerSecond} request${requestsPerSecond === 1 ? '' : 's'} a second per service.`,
		'',
		`In n8n, + → New credential, the type below, Continue, then its API Key and Base URL, Save (Requests per Second ${requestsPerSecond}):`,
		...rows.map(
			(row) =>
				`  ${row.name.padEnd(nameWidth)}  Base URL ${row.baseUrl.padEnd(urlWidth)}  API Key ${row.key}`,
		),
		'',
		`Its storage host, where the IP database downloads come from: ${sandbox.storageUrl}`,
	];
}
