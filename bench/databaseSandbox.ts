import { existsSync, promises as fs } from 'fs';
import os from 'os';
import path from 'path';

import { buildLargeCsvArchive, type DatabaseArchive } from '../test/sandbox/ipDatabases/archives';
import { startSandbox } from '../test/sandbox/server';
import { databaseControls } from '../test/sandbox/services/database';

/**
 * The benchmark's sandbox, in a child process of its own so that the 100 MB archive it serves
 * is not counted in the resident memory of the process that runs the node. It builds (or takes
 * from the temporary folder, since builds are reproducible) the large CSV archive, serves it as
 * ip-geolocation CSV, and tells the parent where to find it.
 */
export interface BenchSandboxReady {
	baseUrl: string;
	apiKey: string;
	archiveBytes: number;
	databaseFileBytes: number;
	sha256: string;
	buildSeconds: number;
	cached: boolean;
}

const TARGET_BYTES = Number(process.env.BENCH_ARCHIVE_BYTES ?? 100 * 1024 * 1024);

async function largeArchive(): Promise<{ archive: DatabaseArchive; cached: boolean }> {
	const file = path.join(
		os.tmpdir(),
		`abstractapi-bench-ip-geolocation-csv-${TARGET_BYTES}.tar.gz`,
	);
	const facts = `${file}.json`;
	if (existsSync(file) && existsSync(facts)) {
		const known = JSON.parse(await fs.readFile(facts, 'utf8')) as Omit<DatabaseArchive, 'bytes'>;
		const bytes = await fs.readFile(file);
		return { archive: { ...known, bytes }, cached: true };
	}
	const archive = await buildLargeCsvArchive('ip-geolocation', TARGET_BYTES);
	const { bytes, databaseFile: _databaseFile, ...rest } = archive;
	await fs.writeFile(file, bytes);
	await fs.writeFile(facts, JSON.stringify(rest));
	return { archive, cached: false };
}

async function main() {
	const sandbox = await startSandbox();
	const started = Date.now();
	const { archive, cached } = await largeArchive();
	databaseControls(sandbox).serve(archive);
	const ready: BenchSandboxReady = {
		baseUrl: sandbox.baseUrls.api,
		apiKey: sandbox.keys.api,
		archiveBytes: archive.bytes.length,
		databaseFileBytes: archive.databaseFileSize,
		sha256: archive.sha256,
		buildSeconds: (Date.now() - started) / 1000,
		cached,
	};
	process.send?.(ready);
	process.on('disconnect', () => void sandbox.close().then(() => process.exit(0)));
}

void main();
