import { sandboxWithEmptyStore } from '../harness/keptStore';
import { expectSecondTestRunReusesFiles } from './testRunFiles';

/** A test run that reuses a file, in n8n's memory binary mode (the files in the items). */
const sandbox = sandboxWithEmptyStore();

it('memory mode: the second test run sends nothing, and its files hold the same bytes', async () =>
	await expectSecondTestRunReusesFiles(sandbox(), 'memory'));
