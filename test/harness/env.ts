import { mkdirSync, mkdtempSync, rmSync } from 'fs';
import os from 'os';
import path from 'path';

// n8n-core reads its settings from the environment when its services are first built: keep its
// user folder and binary files in a temporary folder, never in the home of whoever runs tests.
const scratch = mkdtempSync(path.join(os.tmpdir(), 'abstract-n8n-'));
/** The process's temporary folder: n8n's user folder and binary data, and the home below. */
export const SCRATCH_FOLDER = scratch;
process.env.N8N_USER_FOLDER ??= scratch;
process.env.N8N_BINARY_DATA_STORAGE_PATH ??= path.join(scratch, 'binary');
// A fixed key for the throwaway settings file, so n8n-core does not generate and announce one.
process.env.N8N_ENCRYPTION_KEY ??= 'harness-only-encryption-key';

// The n8n process the harness plays has a fresh home folder of its own, like `npm run test:e2e`'s
// n8n, so files go there and never into the home of whoever runs tests. The folder holds nothing
// at first, not even `.n8n-files`: a test or the demo creates that, as a user has to (see
// ./n8nFiles.ts). n8n's default restriction, `~/.n8n-files`, is spelled out for this home: n8n-core
// expands `~` with os.homedir(), and changing HOME would move everything else of this process
// that goes by it (under jest, os.homedir() does not even see a changed HOME).
export const N8N_HOME = path.join(scratch, 'home');
mkdirSync(N8N_HOME);
process.env.N8N_RESTRICT_FILE_ACCESS_TO = path.join(N8N_HOME, '.n8n-files');

// The folder goes when its user is done, passed or failed: under jest when the test file ends
// (jest loads this module anew for each test file, so each file has a folder of its own), else
// when the process exits (a benchmark, a multi-process test's child). A process killed by a
// signal cannot remove it; the test run's teardown (test/harness/tempFolders.ts) reports any left.
let kept = false;
const remove = () => {
	if (!kept) rmSync(scratch, { recursive: true, force: true });
};
const jestAfterAll = (globalThis as { afterAll?: (hook: () => void) => void }).afterAll;
if (typeof jestAfterAll === 'function') jestAfterAll(remove);
else process.once('exit', remove);

/** Keeps the folder after the process ends: the demo leaves its home for the user to look at. */
export function keepScratchFolder(): void {
	kept = true;
}
