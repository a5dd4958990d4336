import { gunzipSync } from 'zlib';

import type { INodeExecutionData } from 'n8n-workflow';

import { runNode } from '../harness/run';
import { sandboxCredential } from '../harness/sandboxCredentials';
import { startSandbox, type Sandbox } from '../sandbox/server';
import { databaseControls, type DatabaseControls } from '../sandbox/services/database';

/** Test helpers for the IP database download: archive members, binary bytes, secrets in text. */

/**
 * A test file's sandbox and its download controls (started before its tests, reset before each,
 * closed after), and `download(output)`: the node on ip-geolocation MMDB with the sandbox's key.
 */
export function downloadSandbox() {
	const live: { sandbox?: Sandbox; db?: DatabaseControls } = {};
	beforeAll(async () => {
		live.sandbox = await startSandbox();
		live.db = databaseControls(live.sandbox);
	});
	afterAll(async () => await live.sandbox?.close());
	beforeEach(() => {
		live.sandbox!.reset();
		live.db!.reset();
	});
	return {
		sandbox: () => live.sandbox!,
		db: () => live.db!,
		download: (output: string) =>
			runNode({
				type: 'abstractIpDatabase',
				parameters: { database: 'ip-geolocation', format: 'mmdb', output },
				credential: sandboxCredential(live.sandbox!, 'api'),
			}),
	};
}

/** The members of a .tar.gz, read with Node's zlib and a plain header walk (independent of the node's reader). */
export function archiveMembers(archive: Buffer): Map<string, Buffer> {
	const tar = gunzipSync(archive);
	const members = new Map<string, Buffer>();
	for (let at = 0; at + 512 <= tar.length; ) {
		const header = tar.subarray(at, at + 512);
		if (header.every((byte) => byte === 0)) break;
		const name = header.toString('utf8', 0, 100).replace(/\0.*$/s, '');
		const size = parseInt(header.toString('ascii', 124, 136).replace(/\0.*$/s, ''), 8);
		members.set(name, tar.subarray(at + 512, at + 512 + size));
		at += 512 + Math.ceil(size / 512) * 512;
	}
	return members;
}

/** The bytes of an output item's binary property, in memory mode. */
export function binaryBytes(item: INodeExecutionData, property = 'data'): Buffer {
	const binary = item.binary?.[property];
	if (!binary) throw new Error(`The item has no binary property ${property}`);
	return Buffer.from(binary.data, 'base64');
}

/** Every secret a test must not find: the key and each link handed out, with its signature. */
export function secretsOf(sandbox: Sandbox, links: string[]): string[] {
	const signatures = links.map((link) => new URL(link).searchParams.get('signature') ?? link);
	return [sandbox.keys.api, ...links, ...signatures];
}

/** The texts a person or a log sees of a run: output JSON, error message and description. */
export function visibleText(
	items: INodeExecutionData[],
	error?: { message?: string; description?: string | null },
): string {
	return JSON.stringify([
		items.map((item) => ({ json: item.json, binary: item.binary })),
		error?.message,
		error?.description,
	]);
}
