import { startSandbox, type Sandbox } from '../sandbox/server';

// The store the nodes run with: the harness loads them from dist/, so this is the same module.
export const keptAnswers =
	require('../../dist/nodes/shared/engine/keptAnswers.js') as typeof import('../../nodes/shared/engine/keptAnswers');

/**
 * The sandbox of a test file whose runs keep answers (every manual-mode run does): started once,
 * and every test starts with no request counted and an empty store, so that no test takes an
 * answer another paid for.
 */
export function sandboxWithEmptyStore(): () => Sandbox {
	let sandbox: Sandbox | undefined;
	beforeAll(async () => {
		sandbox = await startSandbox();
	});
	afterAll(async () => {
		keptAnswers.dropKeptAnswers();
		await sandbox?.close();
	});
	beforeEach(() => {
		sandbox?.reset();
		keptAnswers.dropKeptAnswers();
	});
	return () => {
		if (!sandbox) throw new Error('the sandbox is started in beforeAll');
		return sandbox;
	};
}
