/**
 * The last pictures a sandbox service drew, by the parameters that determine them: a repeated
 * request costs no drawing, so benchmarks measure the transfer and not the sandbox's painting.
 */
export class PictureCache {
	private readonly entries = new Map<string, Buffer>();

	constructor(private readonly limit = 32) {}

	get(key: string, draw: () => Buffer): Buffer {
		let bytes = this.entries.get(key);
		if (!bytes) {
			bytes = draw();
			this.entries.set(key, bytes);
			if (this.entries.size > this.limit)
				this.entries.delete(this.entries.keys().next().value as string);
		}
		return bytes;
	}
}
