import { fork } from 'child_process';
import { mkdtempSync, rmSync } from 'fs';
import os from 'os';
import path from 'path';

import type { CraftedReport } from './craftedRunner';

/**
 * Small files crafted to take n8n down: each must end in the package's clear error (or, within
 * the readers' bounds, in answers), never in a fatal heap error, which no On Error setting can
 * catch and which kills every workflow of the process. Each runs in a process of its own with a
 * 256 MiB heap (n8n Cloud's Starter plan has 320 MiB for n8n and all), through n8n-core
 * (craftedRunner.ts). Before the readers were bounded, each of these processes died.
 */

const HEAP_MB = 256;
const RUNNER = path.join(__dirname, 'craftedRunner.ts');
const REGISTER = path.join(__dirname, '..', 'harness', 'register.js');

interface Ended {
	report?: CraftedReport;
	code: number | null;
	signal: NodeJS.Signals | null;
	/** The end of the process's stderr: a fatal error's words when it died. */
	stderr: string;
}

/** Runs one crafted case in a process with a small heap and a temporary folder of its own. */
async function runCrafted(name: string): Promise<Ended> {
	// A process that dies cannot remove its harness folder: this one is removed for it.
	const tmp = mkdtempSync(path.join(os.tmpdir(), 'crafted-'));
	try {
		const child = fork(RUNNER, [], {
			execArgv: [`--max-old-space-size=${HEAP_MB}`, '-r', REGISTER],
			env: { ...process.env, TMPDIR: tmp },
			stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
		});
		let stderr = '';
		child.stderr!.on(
			'data',
			(chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)),
		);
		let report: CraftedReport | undefined;
		child.on('message', (message: { type: string }) => {
			if (message.type === 'ready') child.send({ type: 'run', name });
			else if (message.type === 'done') report = message as CraftedReport;
		});
		const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
			child.once('exit', (exitCode, exitSignal) => resolve([exitCode, exitSignal])),
		);
		return { report, code, signal, stderr };
	} finally {
		rmSync(tmp, { recursive: true, force: true });
	}
}

/** The report of a process that ended well; a process that died fails the test with its last words. */
function reported(ended: Ended): CraftedReport {
	if (!ended.report || ended.code !== 0) {
		const words = ended.stderr.split('\n').find((line) => /FATAL|Error/.test(line)) ?? '';
		throw new Error(
			`The process died (exit ${ended.code}, signal ${ended.signal}) with a ${HEAP_MB} MiB heap: ${words.trim()}`,
		);
	}
	return ended.report;
}

const TIMEOUT = 120_000;

/** The MMDB reader's bound, as its errors state it. */
const BOUND = /decodes to more than 64 KiB \(65,536 bytes, the bound/;

describe(`crafted files, each in a process with a ${HEAP_MB} MiB heap: the package's clear error, never a fatal one`, () => {
	test(
		'an MMDB record of 100,000 pointers to one 16 KiB string (216 KB) is refused at its lookup, naming the record, the bound and the file',
		async () => {
			const report = reported(
				await runCrafted('an MMDB record of 100,000 pointers to one 16 KiB string'),
			);
			expect(report.message).toMatch(
				/^The MMDB file cannot be used: the record at byte 16,387 of the data section/,
			);
			expect(report.message).toMatch(BOUND);
			expect(report.description).toMatch(/^The database file "record-bomb.mmdb" could not be used/);
		},
		TIMEOUT,
	);

	test(
		'an MMDB metadata of 50,000 pointers to one 16 KiB string (117 KB) is refused when the file is opened',
		async () => {
			const report = reported(
				await runCrafted('an MMDB metadata of 50,000 pointers to one 16 KiB string'),
			);
			expect(report.message).toMatch(/^The MMDB file cannot be used: the metadata decodes/);
			expect(report.message).toMatch(BOUND);
			expect(report.description).toMatch(/"metadata-bomb.mmdb"/);
		},
		TIMEOUT,
	);

	test(
		'an MMDB of 4,096 records sharing one 131,070-element array (328 KB): each of 5,000 lookups is refused',
		async () => {
			const report = reported(
				await runCrafted(
					'an MMDB of 4,096 records sharing one 131,070-element array, 5,000 lookups',
				),
			);
			// Continue On Fail: every item is an error item, the run goes on.
			expect(report).toMatchObject({ items: 5000, errorItems: 5000 });
			expect(report.message).toMatch(/^The MMDB file cannot be used: the record at byte/);
			expect(report.message).toMatch(BOUND);
		},
		TIMEOUT,
	);

	test(
		'an MMDB of 4,096 records at the bound (a map of 1,790 keys each): 1,500 lookups in the reader answered, its cache bounded in bytes',
		async () => {
			const report = reported(
				await runCrafted(
					'an MMDB of 4,096 records at the bound (a map of 1,790 keys each), 1,500 lookups in the reader',
				),
			);
			expect(report.answered).toBe(1500);
		},
		TIMEOUT,
	);

	// At the bound of a MiB each of these records was read, and As Stored gave every item a copy:
	// the output items, not the reader, filled the heap.
	test(
		'an MMDB of 4,096 records of a 40,000-element array each (145 KB of file), 1,500 lookups through the node: refused at the first, with the bound',
		async () => {
			const report = reported(
				await runCrafted(
					'an MMDB of 4,096 records sharing one 40,000-element array, 1,500 lookups through the node',
				),
			);
			expect(report.message).toMatch(/^The MMDB file cannot be used: the record at byte/);
			expect(report.message).toMatch(BOUND);
		},
		TIMEOUT,
	);

	// What a run holds grows with its items: each carries its answer, up to some 110 KiB of heap
	// for records at the bound (docs/ip-lookups.md states it; 1,300 row items of these filled the
	// heap). A thousand of them keep within it. The log of 1,000 addresses died while the memo of
	// answers for row items held a second copy of each answer beside the items; each answer it
	// holds now is the item of its address's first row.
	test.each([
		'1,000 lookups through the node',
		'a log of 1,000 addresses as row items',
		'a log of one address 1,000 times as row items',
	])(
		'an MMDB of 4,096 records at the bound (a map of 1,790 keys each), %s: all answered',
		async (run) => {
			const report = reported(
				await runCrafted(
					`an MMDB of 4,096 records at the bound (a map of 1,790 keys each), ${run}`,
				),
			);
			expect(report).toMatchObject({ items: 1000, errorItems: 0 });
		},
		TIMEOUT,
	);

	// Within the bound of a MiB, each row's copy of this record took about a MiB of heap: a log
	// of one address died.
	test(
		'an MMDB of records of 16,380 empty maps each (82 KB of file), a log of one address 1,000 times as row items: refused, with the bound',
		async () => {
			const report = reported(
				await runCrafted(
					'an MMDB of 4,096 records sharing one array of 16,380 empty maps, a log of one address 1,000 times as row items',
				),
			);
			expect(report.message).toMatch(BOUND);
		},
		TIMEOUT,
	);

	test(
		'an MMDB of 1,024 records at the bound, each a string of 65,000 control characters: a 1,024-line log answered into a result file, its memo of answer texts bounded in size',
		async () => {
			const report = reported(
				await runCrafted(
					'an MMDB of 1,024 records at the bound, each a string of 65,000 control characters, a 1,024-line log to a result file',
				),
			);
			expect(report).toMatchObject({ items: 1, errorItems: 0, answered: 1024 });
		},
		TIMEOUT,
	);

	test(
		'a 30 MB line of commas in a bulk email file is refused before any request, naming the row and the bound',
		async () => {
			const report = reported(await runCrafted('a 30 MB line of commas as a bulk email file'));
			expect(report.message).toBe(
				'Invalid CSV file in Input Binary Field (binaryPropertyName): row 2 has more than 16,384 cells, more columns than a spreadsheet has (a line of commas?)',
			);
			expect(report.requests).toBe(0);
		},
		TIMEOUT,
	);

	test(
		"a 30 MB line of commas in IP Database Lookup's CSV input is refused, naming the row and the bound",
		async () => {
			const report = reported(await runCrafted('a 30 MB line of commas as an IP lookup file'));
			expect(report.message).toBe(
				'Invalid CSV file in CSV Binary Field (csvBinaryPropertyName): row 2 has more than 16,384 cells, more columns than a spreadsheet has (a line of commas?)',
			);
		},
		TIMEOUT,
	);

	test(
		'a 30 MB line of commas as the header of a CSV database is refused before any index is built',
		async () => {
			const report = reported(
				await runCrafted('a 30 MB line of commas as an IP database CSV header'),
			);
			expect(report.message).toBe(
				'The CSV file cannot be used: its row 1 has more than 16,384 cells, more columns than a spreadsheet has (a line of commas?)',
			);
			expect(report.description).toMatch(/^The database file "commas.csv" could not be used/);
		},
		TIMEOUT,
	);
});
