import { execFileSync } from 'child_process';
import { readFileSync } from 'fs';
import path from 'path';

import { addressOfRecord, sharedValueRecords } from '../test/hostileFiles/craftedMmdb';
import { VALUE_KINDS } from '../test/ipLookup/mmdbValueKinds';
import { ROOT } from '../test/harness/nodeTypes';
import { lookUp } from '../test/nodes/ipLookupHelpers';
import { randomIpv4 } from '../test/sandbox/ipDatabases/addresses';
import { random32 } from '../test/sandbox/random';

/**
 * `node .out/bench/ipLookupAnswerMemory.js`: what an answer of IP Database Lookup holds in n8n's
 * heap, per output item, when its record is at the MMDB reader's bound (64 KiB in the decoder's
 * estimate): the limit that docs/ip-lookups.md states beside the bound. For each kind of value
 * (test/ipLookup/mmdbValueKinds.ts), a file of 4,096 records
 * of that kind at the bound; 300 of them looked up through n8n-core, as items (Input "Value")
 * and as a CSV log's row items (its memo, each row's copy); the heap after a forced collection,
 * the run's output still held, less the same run on records of one value, over 300. Then
 * GeoLite2-City's answers the same way, for what a real database's answer holds. Each case runs
 * in a process of its own (--expose-gc).
 */

const LOOKUPS = 300;

/** The built reader n8n loads (dist/). */
const reading = () =>
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	require(path.join(ROOT, 'dist/nodes/shared/ipDatabases/mmdbReader.js')) as {
		MmdbReader: new (file: Uint8Array) => { lookupText(ip: string): unknown };
	};

/** The most values of `kind` whose record (as sharedValueRecords wraps it) is within the bound. */
function countAtTheBound(kind: (count: number) => number[]): number {
	const { MmdbReader } = reading();
	const fits = (count: number) => {
		try {
			new MmdbReader(sharedValueRecords(kind(count), 1)).lookupText('1.2.3.4');
			return true;
		} catch {
			return false;
		}
	};
	let low = 1;
	let high = 65_536;
	while (low < high) {
		const middle = Math.ceil((low + high) / 2);
		if (fits(middle)) low = middle;
		else high = middle - 1;
	}
	return low;
}

/** Heap bytes held after a run of `ips` in `file`, as items or as a log's row items. */
async function heldAfter(file: Buffer, ips: string[], rows: boolean): Promise<number> {
	const collect = global.gc!;
	collect();
	const before = process.memoryUsage().heapUsed;
	const result = await lookUp({
		file: { bytes: file, fileName: 'records.mmdb' },
		ips: rows ? [] : ips,
		...(rows
			? {
					csvFile: { bytes: `ip\n${ips.join('\n')}\n`, fileName: 'log.csv' },
					parameters: { addressColumn: 'ip' },
				}
			: {}),
	});
	if (result.error) throw result.error;
	if (result.items.length !== ips.length) throw new Error(`${result.items.length} items`);
	collect();
	const held = process.memoryUsage().heapUsed - before;
	// The output stays referenced until the heap is read.
	return result.items.length > 0 ? held : 0;
}

/** One case, in this process (a child started with --expose-gc): prints its figures as JSON. */
async function measure(kind: string): Promise<void> {
	const distinct = Array.from({ length: LOOKUPS }, (_, index) =>
		addressOfRecord((index * 13) % 4096),
	);
	let files: { at: Buffer; small: Buffer; count: number };
	let ips = distinct;
	if (kind === 'GeoLite2-City') {
		const city = readFileSync(path.join(ROOT, 'node_modules/geolite2/dbs/GeoLite2-City.mmdb'));
		const next = random32(7);
		// Addresses it covers: random ones, until 300 are found (checked by the run's items).
		const reader = new (reading().MmdbReader)(city);
		ips = [];
		while (ips.length < LOOKUPS) {
			const ip = randomIpv4(next);
			if (reader.lookupText(ip)) ips.push(ip);
		}
		files = { at: city, small: sharedValueRecords(VALUE_KINDS['small numbers'](1)), count: 0 };
	} else {
		const make = VALUE_KINDS[kind];
		const count = countAtTheBound(make);
		files = { at: sharedValueRecords(make(count)), small: sharedValueRecords(make(1)), count };
	}
	const figures: Record<string, number> = { count: files.count };
	for (const rows of [false, true]) {
		// Warm-up: n8n-core's first run loads and keeps what later runs share.
		await heldAfter(files.small, ips, rows);
		const base = await heldAfter(files.small, ips, rows);
		const held = await heldAfter(files.at, ips, rows);
		figures[rows ? 'rows' : 'items'] = Math.round((held - base) / LOOKUPS);
	}
	console.log(JSON.stringify(figures));
}

export async function run(): Promise<void> {
	console.log(
		`\nIP Database Lookup: heap per output item of an answer at the reader's bound (${LOOKUPS} lookups through n8n-core, after a forced collection)`,
	);
	let most = 0;
	for (const kind of [...Object.keys(VALUE_KINDS), 'GeoLite2-City']) {
		const out = execFileSync(process.execPath, ['--expose-gc', __filename, kind], {
			encoding: 'utf8',
			maxBuffer: 1 << 24,
		});
		const figures = JSON.parse(out.trim().split('\n').pop()!) as Record<string, number>;
		if (kind !== 'GeoLite2-City') most = Math.max(most, figures.items, figures.rows);
		const what =
			kind === 'GeoLite2-City' ? kind : `${figures.count.toLocaleString('en-US')} ${kind}`;
		console.log(
			`  ${what}: ${(figures.items / 1024).toFixed(1)} KiB an item (Input Value), ${(figures.rows / 1024).toFixed(1)} KiB a row item (Input CSV File)`,
		);
	}
	console.log(`  The most at the bound: ${(most / 1024).toFixed(1)} KiB an item`);
}

if (require.main === module) {
	const kind = process.argv[2];
	void (kind ? measure(kind) : run()).then(
		() => process.exit(0),
		(error: Error) => {
			console.error(error);
			process.exit(1);
		},
	);
}
