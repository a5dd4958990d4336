import { existsSync } from 'fs';
import path from 'path';

import { run as credits } from './credits';
import { run as email } from './email';
import { run as faults } from './faults';
import { run as keptSoak } from './keptSoak';
import { run as multiProcess } from './multiProcess';
import { run as pacing } from './pacing';
import { run as retries } from './retries';
import { run as sharingModel } from './sharingModel';
import { run as testRuns } from './testRuns';

/**
 * `npm run bench`: every benchmark, each printing its figures as ratios against a baseline
 * measured in the same process (pacing: against the configured rate; faults: against the same
 * run without faults; several processes: against the key's limit). The media and database benchmarks join when their nodes exist.
 */
async function main() {
	await email();
	await credits();
	await pacing();
	await faults();
	await retries();
	await testRuns();
	await keptSoak();
	await multiProcess();
	await sharingModel();
	console.log(
		"\n(Throughput against n8n's HTTP Request node needs the n8n that `npm run test:e2e` caches: node .out/bench/httpRequest.js)",
	);
	for (const name of [
		'media',
		'database',
		'archiveFuzz',
		'gunzip',
		'csv',
		'csvResultFile',
		'companyLeads',
		'mmdbReader',
		'ipLookup',
		'ipLookupMemory',
		'ipLookupAnswerMemory',
		'ipLookupLog',
		'readersAgainstBaseline',
		'fuzz',
	]) {
		const file = path.join(__dirname, `${name}.js`);
		if (!existsSync(file)) continue;
		// eslint-disable-next-line @typescript-eslint/no-require-imports
		const bench = require(file) as { run: () => Promise<void> };
		await bench.run();
	}
	// n8n-core leaves handles open after runs; the figures are printed.
	process.exit(0);
}

void main().catch((error: Error) => {
	console.error(error);
	process.exit(1);
});
