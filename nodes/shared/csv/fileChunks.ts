import { BINARY_ENCODING } from 'n8n-workflow';
import type { IBinaryData, IExecuteFunctions } from 'n8n-workflow';

/**
 * Both passes over a file, and the IP lookup's file input, read its bytes here: in chunks, so
 * that a file of any size never has a second whole copy in memory.
 */

/**
 * The file's bytes in chunks, never the whole file at once where n8n does not already hold it:
 * in filesystem mode a stream from n8n's binary store; in memory mode the base64 text in the
 * item, decoded a piece at a time rather than into one second copy.
 */
export async function* chunksOf(
	ctx: IExecuteFunctions,
	meta: IBinaryData,
	opened?: (stream: NodeJS.ReadableStream) => void,
): AsyncGenerator<Uint8Array> {
	if (meta.id) {
		const stream = await ctx.helpers.getBinaryStream(meta.id, 64 * 1024);
		opened?.(stream);
		yield* stream as AsyncIterable<Uint8Array>;
		return;
	}
	const base64 = meta.data ?? '';
	// A multiple of 4 base64 characters decodes to whole bytes on its own.
	const piece = 4 * 16 * 1024;
	for (let at = 0; at < base64.length; at += piece)
		yield Buffer.from(base64.slice(at, at + piece), BINARY_ENCODING);
}

/** Reads the whole file chunk by chunk; returns the Node stream it came from, if it came from one. */
export async function readInChunks(
	ctx: IExecuteFunctions,
	meta: IBinaryData,
	onChunk: (chunk: Uint8Array) => void,
): Promise<NodeJS.ReadableStream | undefined> {
	let source: NodeJS.ReadableStream | undefined;
	for await (const chunk of chunksOf(ctx, meta, (stream) => (source = stream))) onChunk(chunk);
	return source;
}
