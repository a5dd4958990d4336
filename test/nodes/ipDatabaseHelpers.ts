import { gunzipSync } from 'zlib';

import type { INodeExecutionData } from 'n8n-workflow';

import type { Sandbox } from '../sandbox/server';

/** Test helpers for the IP database download: archive members, binary bytes, secrets in text. */

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
