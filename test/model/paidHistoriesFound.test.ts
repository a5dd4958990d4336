import { sandboxWithEmptyStore } from '../harness/keptStore';
import { emptyCoverage, replay, resumeStep, retryStep, runStep, type RunSpec } from './histories';

/**
 * Histories the random generator (histories.test.ts) found and shrank to their smallest, each
 * kept as a named case: they failed on the store that kept one replaceable entry per request
 * (found by running the histories on it), and hold now.
 */
const sandbox = sandboxWithEmptyStore();
let history = 1_000_000;

const run = (spec: Partial<RunSpec>): RunSpec => ({
	workflow: 0,
	mode: 'manual',
	values: [0],
	repeatsOnce: true,
	hours: 0,
	retryOnFail: false,
	fault: 'none',
	quota: 0,
	...spec,
});

const divergencesOf = async (steps: Parameters<typeof replay>[4], smallBudget = false) =>
	await replay(sandbox(), ++history, smallBudget, emptyCoverage(), steps);

it('a test run [a, bad] with repeats each sent fails; its Retry with Send Repeated Values Once turned on takes a', async () => {
	expect(
		await divergencesOf(async (world) => {
			await runStep(world, run({ repeatsOnce: false, fault: 'refuseAlways' }));
			await retryStep(world, 0, true, undefined);
		}),
	).toEqual([]);
});

it('a 3-row result file, 1 credit, its first row late: the resume pays the 2 rows not answered', async () => {
	expect(await divergencesOf(async (world) => await resumeStep(world, 3, 1, 0))).toEqual([]);
});

it('a test run of b with repeats each sent, then one with repeats sent once: the second takes b', async () => {
	expect(
		await divergencesOf(async (world) => {
			await runStep(world, run({ values: [1], repeatsOnce: false }));
			await runStep(world, run({ values: [1] }));
		}),
	).toEqual([]);
});
