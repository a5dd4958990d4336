import { startSandbox, type Sandbox } from '../sandbox/server';
import { defineFileNodeCases, defineResultFileCases } from './resultFileCases';

/** Output "Result File" in n8n's default binary mode, where n8n keeps files in the items. */
let sandbox: Sandbox;
beforeAll(async () => {
	sandbox = await startSandbox();
});
afterAll(async () => await sandbox.close());
beforeEach(() => sandbox.reset());

describe('CSV input, Output: Result File (memory binary mode)', () => {
	defineResultFileCases(() => sandbox);

	describe('the other nodes that take a file', () => defineFileNodeCases(() => sandbox));
});
