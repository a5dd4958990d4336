import { mkdtempSync } from 'fs';
import os from 'os';
import path from 'path';

// n8n-core reads its settings from the environment when its services are first built: keep its
// user folder and binary files in a temporary folder, never in the home of whoever runs tests.
const scratch = mkdtempSync(path.join(os.tmpdir(), 'abstract-n8n-'));
process.env.N8N_USER_FOLDER ??= scratch;
process.env.N8N_BINARY_DATA_STORAGE_PATH ??= path.join(scratch, 'binary');
// A fixed key for the throwaway settings file, so n8n-core does not generate and announce one.
process.env.N8N_ENCRYPTION_KEY ??= 'harness-only-encryption-key';
