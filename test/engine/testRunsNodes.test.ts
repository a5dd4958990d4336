import { sandboxWithEmptyStore } from '../harness/keptStore';
import { newWorkflowId } from '../harness/retryOnFail';
import { runNode } from '../harness/run';
import { sandboxCredential } from '../harness/sandboxCredentials';
import { binaryBytes } from '../nodes/mediaHelpers';
import { CASES, valueItems, type NodeCase } from './serviceNodeCases';

/**
 * Every service node, each input: a second test run (n8n's `manual` mode) of the same workflow
 * sends nothing and gives the same items (files with the same bytes), paired; a production run
 * (`trigger`) sends every request; with Reuse Answers of Test Runs off, a test run does too.
 */
const sandbox = sandboxWithEmptyStore();

const run = (
	testCase: NodeCase,
	workflowId: string,
	mode: 'manual' | 'trigger' = 'manual',
	options: Record<string, unknown> = {},
) =>
	runNode({
		type: testCase.type,
		parameters: {
			...testCase.parameters,
			options: { ...((testCase.parameters.options as object) ?? {}), ...options },
		},
		credential: sandboxCredential(sandbox(), testCase.service),
		items: (testCase.items ?? valueItems)(testCase.values),
		workflowId,
		mode,
	});

const filesOf = async (items: Awaited<ReturnType<typeof run>>['items']) =>
	await Promise.all(
		items.map(async (item) =>
			item.binary ? await binaryBytes(item, Object.keys(item.binary)[0]) : undefined,
		),
	);

for (const testCase of CASES) {
	describe(testCase.name, () => {
		it('the second test run sends nothing and gives the same items; a production run sends every request', async () => {
			const workflowId = newWorkflowId('test-run-nodes');
			const first = await run(testCase, workflowId);
			expect(first.error).toBeUndefined();
			const requests = sandbox().requests(testCase.service).length;
			expect(requests).toBeGreaterThanOrEqual(3);
			sandbox().reset();
			const second = await run(testCase, workflowId);
			expect(second.error).toBeUndefined();
			expect(sandbox().requests(testCase.service)).toHaveLength(0);
			expect(second.items.map((item) => item.json)).toEqual(first.items.map((item) => item.json));
			expect(second.items.map((item) => item.pairedItem)).toEqual(
				first.items.map((item) => item.pairedItem),
			);
			if (testCase.file) expect(await filesOf(second.items)).toEqual(await filesOf(first.items));
			sandbox().reset();
			expect((await run(testCase, workflowId, 'trigger')).error).toBeUndefined();
			expect(sandbox().requests(testCase.service)).toHaveLength(requests);
		});

		it('Reuse Answers of Test Runs off: a test run sends every request', async () => {
			const workflowId = newWorkflowId('test-run-nodes');
			await run(testCase, workflowId);
			const requests = sandbox().requests(testCase.service).length;
			sandbox().reset();
			expect(
				(await run(testCase, workflowId, 'manual', { reuseTestRunAnswers: false })).error,
			).toBeUndefined();
			expect(sandbox().requests(testCase.service)).toHaveLength(requests);
		});
	});
}
