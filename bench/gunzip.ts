import { createReadStream } from 'fs';

import { gunzip } from '../nodes/AbstractIpDatabase/archiveCheck';
import { fullGeolocationArchive } from './downloadData';
import { median } from './processMemory';

/**
 * Why the download decodes gzip in its own code (`node .out/bench/gunzip.js`, after `npm run
 * build:tools`): the full geolocation CSV archive (bench/downloadData.ts) decompressed in a
 * process that holds a heap the size of n8n's during a run (BENCH_HEAP_OBJECTS small objects,
 * default 1,400,000: about 200 MB), by the web DecompressionStream (the baseline: what the node
 * used) and by the package's gunzip (archiveCheck.ts, inflate.ts) with and without its CRC-32.
 * The baseline's fresh 16 KiB buffers make V8 mark that whole heap again and again; the package's
 * reused buffer does not. Printed: each round's times and the ratios to the baseline, and their
 * medians. BENCH_ROUNDS (default 3). Run it with n8n's own Node too (the e2e's cached Node 24).
 */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const HEAP_OBJECTS = Number(process.env.BENCH_HEAP_OBJECTS ?? 1_400_000);

async function webDecompressionStream(file: string): Promise<number> {
	const stream = new DecompressionStream('gzip');
	const writer = stream.writable.getWriter();
	const fed = (async () => {
		for await (const chunk of createReadStream(file, { highWaterMark: 64 * 1024 }))
			await writer.write(chunk as Uint8Array<ArrayBuffer>);
		await writer.close();
	})();
	let bytes = 0;
	const reader = stream.readable.getReader();
	for (let step = await reader.read(); !step.done; step = await reader.read())
		bytes += step.value.length;
	await fed;
	return bytes;
}

async function packageGunzip(file: string, checkCrc: boolean): Promise<number> {
	let bytes = 0;
	const chunks = createReadStream(file, { highWaterMark: 64 * 1024 }) as AsyncIterable<Uint8Array>;
	for await (const view of gunzip(chunks, checkCrc)) bytes += view.length;
	return bytes;
}

async function timed(work: () => Promise<number>): Promise<{ seconds: number; bytes: number }> {
	const started = performance.now();
	const bytes = await work();
	return { seconds: (performance.now() - started) / 1000, bytes };
}

export async function run(): Promise<void> {
	const archive = await fullGeolocationArchive(console.log);
	const heap = Array.from({ length: HEAP_OBJECTS }, (_, index) => ({
		index,
		name: `object ${index}`,
		pair: [index, index + 1],
	}));
	console.log(
		`gunzip of ${archive.fileName} (${(archive.bytes / 2 ** 20).toFixed(1)} MiB into ${(archive.databaseFileSize / 2 ** 20).toFixed(1)} MiB of tar's data) with ${heap.length.toLocaleString('en-US')} objects held (${(process.memoryUsage().heapUsed / 2 ** 20).toFixed(0)} MiB of heap), Node ${process.version}, ${ROUNDS} rounds`,
	);
	const ratios = { crc: [] as number[], noCrc: [] as number[] };
	for (let round = 1; round <= ROUNDS; round++) {
		const baseline = await timed(() => webDecompressionStream(archive.file));
		const crc = await timed(() => packageGunzip(archive.file, true));
		const noCrc = await timed(() => packageGunzip(archive.file, false));
		if (crc.bytes !== baseline.bytes || noCrc.bytes !== baseline.bytes)
			throw new Error('The decoders disagree on the size');
		ratios.crc.push(crc.seconds / baseline.seconds);
		ratios.noCrc.push(noCrc.seconds / baseline.seconds);
		console.log(
			`  round ${round}: DecompressionStream ${baseline.seconds.toFixed(2)} s; package gunzip ${crc.seconds.toFixed(2)} s (${(crc.seconds / baseline.seconds).toFixed(2)}x), without its CRC-32 ${noCrc.seconds.toFixed(2)} s (${(noCrc.seconds / baseline.seconds).toFixed(2)}x)`,
		);
	}
	console.log(
		`  median ratio to DecompressionStream: ${median(ratios.crc).toFixed(2)}x with the CRC-32 (the Archive output), ${median(ratios.noCrc).toFixed(2)}x without (the Database File output); ${heap.length} objects still held`,
	);
}

if (require.main === module) {
	run().then(
		() => process.exit(0),
		(error: unknown) => {
			console.error(error);
			process.exit(1);
		},
	);
}
