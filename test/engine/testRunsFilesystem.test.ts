import { sandboxWithEmptyStore } from '../harness/keptStore';
import { useBinaryMode } from '../harness/run';
import { expectDeletedFileSentAgain, expectSecondTestRunReusesFiles } from './testRunFiles';

/** A test run that reuses a file, in n8n's filesystem binary mode (the files in n8n's store). */
beforeAll(async () => await useBinaryMode('filesystem'));
const sandbox = sandboxWithEmptyStore();

it('filesystem mode: the second test run sends nothing, and its files hold the same bytes', async () =>
	await expectSecondTestRunReusesFiles(sandbox(), 'filesystem'));

it('filesystem mode: a kept answer whose file n8n has deleted is not reused: the request is sent', async () =>
	await expectDeletedFileSentAgain(sandbox()));
