import path from 'path';

import { runNode, useBinaryMode } from '../harness/run';
import { ROOT } from '../harness/nodeTypes';
import { sandboxCredential } from '../harness/sandboxCredentials';
import { lookUp } from '../nodes/ipLookupHelpers';
import { RESULT } from '../nodes/resultFileCases';
import { databaseFileOf } from '../sandbox/ipDatabases/archives';
import { startSandbox } from '../sandbox/server';
import { VALUE_KINDS } from '../ipLookup/mmdbValueKinds';
import { lineOfCommas } from './craftedCsv';
import {
	addressOfRecord,
	control,
	metadataPointerBomb,
	recordPointerBomb,
	sharedArrayRecords,
	sharedValueRecords,
} from './craftedMmdb';

/**
 * One crafted file's run, in a process of its own started with a small heap
 * (`--max-old-space-size=256`, crafted.test.ts): it reports how the run ended (the package's
 * error, or what it answered), or dies the way n8n's process would (a fatal heap error), which
 * the test sees in its exit. The nodes run through n8n-core, as in every node test.
 */
export interface CraftedReport {
	type: 'done';
	/** The error that stopped the run (On Error "Stop Workflow"), or the first error item's. */
	message?: string;
	description?: string;
	/** Output items, and how many of them are error items. */
	items: number;
	errorItems: number;
	/** Requests the sandbox received (the file's rules are checked before any). */
	requests?: number;
	/** The run's lookups that answered (the reader cases). */
	answered?: number;
}

type Outcome = Omit<CraftedReport, 'type'>;

const asStored = { outputShape: 'asStored' };

/** The run's error, or its first error item's, as the report gives them. */
function ended(
	error: (Error & { description?: string }) | undefined,
	items: Array<{ json: Record<string, unknown> }>,
): Outcome {
	const failed = items.filter((item) => item.json.error !== undefined);
	const first = failed[0]?.json;
	return {
		message: error?.message ?? (first?.error as string | undefined),
		description: error?.description ?? (first?.description as string | undefined),
		items: items.length,
		errorItems: failed.length,
	};
}

async function lookupOf(file: Buffer, fileName: string, ips: string[], continueOnFail = false) {
	const result = await lookUp({
		file: { bytes: file, fileName },
		ips,
		parameters: asStored,
		continueOnFail,
	});
	return ended(result.error, result.items);
}

/**
 * 4,096 records at the decoder's bound (64 KiB in its estimate), of a kind V8 holds dearest (some
 * 110 KiB of heap an answer, bench/ipLookupAnswerMemory.ts): each a map of 1,790 keys.
 */
const atTheBound = () => sharedValueRecords(VALUE_KINDS['a map of many keys'](1_790));

/**
 * A log of `lines` lines cycling through `distinct` addresses (one per record), looked up as
 * Input "CSV File" with one item per row (n8n's memory mode, as by default).
 */
async function logOf(file: Buffer, fileName: string, lines: number, distinct: number) {
	const log = Array.from({ length: lines }, (_, index) => addressOfRecord(index % distinct));
	const result = await lookUp({
		file: { bytes: file, fileName },
		ips: [],
		csvFile: { bytes: `ip\n${log.join('\n')}\n`, fileName: 'log.csv' },
		parameters: { ...asStored, addressColumn: 'ip' },
	});
	return ended(result.error, result.items);
}

/** The Email node with a CSV file whose rows are checked before any request. */
async function bulkEmail(file: Buffer): Promise<Outcome> {
	const sandbox = await startSandbox();
	try {
		const result = await runNode({
			type: 'abstractEmail',
			parameters: { input: 'csvFile', binaryPropertyName: 'data', emailColumn: 'email' },
			credential: sandboxCredential(sandbox, 'email'),
			items: [
				{
					json: {},
					binary: { data: { bytes: file, mimeType: 'text/csv', fileName: 'leads.csv' } },
				},
			],
		});
		return { ...ended(result.error, result.items), requests: sandbox.requests('email').length };
	} finally {
		await sandbox.close();
	}
}

export const CRAFTED_RUNS: Record<string, () => Promise<Outcome>> = {
	'an MMDB record of 100,000 pointers to one 16 KiB string': async () =>
		await lookupOf(recordPointerBomb(), 'record-bomb.mmdb', ['1.2.3.4']),

	'an MMDB metadata of 50,000 pointers to one 16 KiB string': async () =>
		await lookupOf(metadataPointerBomb(), 'metadata-bomb.mmdb', ['1.2.3.4']),

	'an MMDB of 4,096 records sharing one 131,070-element array, 5,000 lookups': async () =>
		await lookupOf(
			sharedArrayRecords(131_070),
			'shared-array.mmdb',
			Array.from({ length: 5000 }, (_, index) => addressOfRecord(index % 4096)),
			true,
		),

	'an MMDB of 4,096 records at the bound (a map of 1,790 keys each), 1,500 lookups in the reader':
		async () => {
			// Each record is within the reader's bound: what must stay bounded is the reader's cache
			// of them. Looked up straight in the reader (as the node does per item), so that nothing
			// else keeps the records: output items would hold each one anyway.
			// eslint-disable-next-line @typescript-eslint/no-require-imports
			const { MmdbReader } = require(
				path.join(ROOT, 'dist/nodes/shared/ipDatabases/mmdbReader.js'),
			) as { MmdbReader: new (file: Uint8Array) => { lookupText(ip: string): unknown } };
			const reader = new MmdbReader(atTheBound());
			let answered = 0;
			for (let index = 0; index < 1500; index++)
				if (reader.lookupText(addressOfRecord(index % 4096))) answered++;
			return { items: 0, errorItems: 0, answered };
		},

	'an MMDB of 4,096 records sharing one 40,000-element array, 1,500 lookups through the node':
		async () =>
			await lookupOf(
				sharedArrayRecords(40_000),
				'shared-array.mmdb',
				Array.from({ length: 1500 }, (_, index) => addressOfRecord(index % 4096)),
			),

	'an MMDB of 4,096 records at the bound (a map of 1,790 keys each), 1,000 lookups through the node':
		async () =>
			await lookupOf(
				atTheBound(),
				'keys.mmdb',
				Array.from({ length: 1000 }, (_, index) => addressOfRecord(index)),
			),

	'an MMDB of 4,096 records at the bound (a map of 1,790 keys each), a log of 1,000 addresses as row items':
		async () => await logOf(atTheBound(), 'keys.mmdb', 1000, 1000),

	'an MMDB of 4,096 records at the bound (a map of 1,790 keys each), a log of one address 1,000 times as row items':
		async () => await logOf(atTheBound(), 'keys.mmdb', 1000, 1),

	'an MMDB of 4,096 records sharing one array of 16,380 empty maps, a log of one address 1,000 times as row items':
		async () =>
			await logOf(
				sharedArrayRecords(16_380, 12, () => control(7, 0)),
				'empty-maps.mmdb',
				1000,
				1,
			),

	'an MMDB of 1,024 records at the bound, each a string of 65,000 control characters, a 1,024-line log to a result file':
		async () => {
			// Each record is within the reader's bound; its answer's text, the string as JSON
			// (\u0001 for each byte), is 390 KB: what the result file's memo of answers holds, 400
			// MB for the log's 1,024 addresses if it were bounded by count alone.
			await useBinaryMode('filesystem');
			const bytes = 65_000;
			const file = sharedValueRecords(
				[...control(2, bytes), ...new Array<number>(bytes).fill(1)],
				10,
			);
			const log = Array.from({ length: 1024 }, (_, index) => addressOfRecord(index, 10));
			const result = await lookUp({
				file: { bytes: file, fileName: 'control.mmdb' },
				ips: [],
				csvFile: { bytes: `ip\n${log.join('\n')}\n`, fileName: 'log.csv' },
				parameters: { ...asStored, ...RESULT, addressColumn: 'ip' },
			});
			const summary = result.items[0]?.json as { answered?: number } | undefined;
			return { ...ended(result.error, result.items), answered: summary?.answered };
		},

	'a 30 MB line of commas as a bulk email file': async () =>
		await bulkEmail(lineOfCommas(30_000_000, 'email\n')),

	'a 30 MB line of commas as an IP lookup file': async () => {
		const result = await lookUp({
			file: { bytes: databaseFileOf('ip-asn', 'mmdb', 1), fileName: 'asn.mmdb' },
			ips: [],
			csvFile: { bytes: lineOfCommas(30_000_000, 'ip\n'), fileName: 'log.csv' },
			parameters: { ...asStored, addressColumn: 'ip' },
		});
		return ended(result.error, result.items);
	},

	'a 30 MB line of commas as an IP database CSV header': async () =>
		await lookupOf(lineOfCommas(30_000_000, 'network'), 'commas.csv', ['1.2.3.4']),
};

process.on('message', (message: { type: string; name: string }) => {
	if (message.type !== 'run') return;
	void (async () => {
		const outcome = await CRAFTED_RUNS[message.name]();
		const report: CraftedReport = { type: 'done', ...outcome };
		process.send?.(report, () => process.exit(0));
	})();
});

process.send?.({ type: 'ready' });
