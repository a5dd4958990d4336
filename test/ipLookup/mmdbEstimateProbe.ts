import path from 'path';

import { atTheBound, VALUE_KINDS, type Decoding } from './mmdbValueKinds';

/**
 * Run by mmdbEstimate.test.ts in a process of its own with `--expose-gc`: for each kind of value,
 * a record of as many of them as the decoder's bound lets through, decoded COPIES times and kept;
 * the heap those copies take against the decoder's estimate of them, as JSON on stdout.
 */

const COPIES = 8;

// eslint-disable-next-line @typescript-eslint/no-require-imports
const decoding = require(
	path.join(__dirname, '../../dist/nodes/shared/ipDatabases/mmdbDecoder.js'),
) as Decoding;

const gc = (globalThis as { gc?: () => void }).gc!;
const results: Record<string, { estimate: number; heap: number }> = {};
for (const [name, kind] of Object.entries(VALUE_KINDS)) {
	const { bytes } = atTheBound(kind, decoding);
	const decoder = new decoding.Decoder(bytes, 0, bytes.length, 'data section');
	gc();
	const before = process.memoryUsage().heapUsed;
	const kept: unknown[] = [];
	let estimate = 0;
	for (let copy = 0; copy < COPIES; copy++) {
		kept.push(decoder.decodeAt(0));
		estimate += decoder.decodedBytes;
	}
	gc();
	results[name] = {
		estimate: estimate / COPIES,
		heap: (process.memoryUsage().heapUsed - before) / COPIES,
	};
	kept.length = 0;
}
process.stdout.write(JSON.stringify(results));
