import { mkdtempSync, readdirSync, rmSync } from 'fs';
import os from 'os';
import path from 'path';

/**
 * The test run's own temporary folder, so that `npm test` provably leaves none behind. Before any
 * test file loads, jest's globalSetup makes one folder and points TMPDIR there: every folder a
 * test, the harness (./env.ts) or a process a test starts (the scan, npm pack, the multi-process
 * test's children) makes in the system's temporary folder lands in it. After the last test file,
 * globalTeardown finds it empty or fails the run naming what was left (and removes it, so that a
 * failed run leaves nothing either). Each test file removes its own folders when it ends.
 */
const RUN_FOLDER = 'ABSTRACT_TEST_RUN_TMPDIR';
const ORIGINAL = 'ABSTRACT_TEST_ORIGINAL_TMPDIR';

export function setUpRunFolder(): void {
	const folder = mkdtempSync(path.join(os.tmpdir(), 'abstract-test-run-'));
	process.env[ORIGINAL] = process.env.TMPDIR ?? '';
	process.env[RUN_FOLDER] = folder;
	// os.tmpdir() reads TMPDIR on every call: jest's workers, started after this, inherit it.
	process.env.TMPDIR = folder;
}

/** What the test files left in the run's folder; the folder itself is removed. */
export function tearDownRunFolder(): string[] {
	const folder = process.env[RUN_FOLDER];
	if (!folder) return [];
	const left = readdirSync(folder);
	rmSync(folder, { recursive: true, force: true });
	if (process.env[ORIGINAL]) process.env.TMPDIR = process.env[ORIGINAL];
	else delete process.env.TMPDIR;
	return left;
}
