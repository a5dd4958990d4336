import path from 'path';

import { claimEnd } from '../../nodes/shared/engine/answerRules';
import { startSandbox, type Sandbox } from '../sandbox/server';
import { ROOT } from './root';

// The store the nodes run with: the harness loads them from dist/, so this is the same module
// (from the tests and from their compiled copy under .out/ alike).
export const keptAnswers = require(
	path.join(ROOT, 'dist/nodes/shared/engine/keptAnswers.js'),
) as typeof import('../../nodes/shared/engine/keptAnswers');

/** What the store keeps now: its answers, their size, what of them a try or a Retry may claim, the executions known. */
export function keptAnswersHeld() {
	const { size, runs, ...held } = keptAnswers.keptNow();
	const payments = [...held.payments];
	const at = keptAnswers.now();
	const forRetries = payments.filter((payment) => claimEnd(payment) > at).length;
	const answers = payments.length;
	return { answers, size, forRetries, forNextRuns: answers - forRetries, runs };
}

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
