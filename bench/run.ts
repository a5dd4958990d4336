import { existsSync } from 'fs';
import path from 'path';

import { run as email } from './email';

/**
 * `npm run bench`: every benchmark, each printing its figures as ratios against a baseline
 * measured in the same process. The media and database benchmarks join when their nodes exist.
 */
async function main() {
	await email();
	for (const name of ['media', 'database', 'csv', 'mmdbReader', 'ipLookup']) {
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
