import { firstTimeOnly, newWorkflowId, RETRY_ON_FAIL } from '../harness/retryOnFail';
import { runNode, type InputItem, type NodeRun } from '../harness/run';
import { sandboxCredential } from '../harness/sandboxCredentials';
import { binaryBytes, picture } from '../nodes/mediaHelpers';
import { startSandbox, type Sandbox } from '../sandbox/server';
import { carrying } from './errorOutputMatrix';
import { CASES, valueItems, type NodeCase } from './serviceNodeCases';

/**
 * Every service node under n8n's Retry On Fail (3 tries), through n8n-core's WorkflowExecute: a
 * request refused once (default On Error: the node throws, n8n tries again), and a first item
 * that fails its check under either Continue setting (n8n tries again while the first item is an
 * error item). Either way each value is paid for once (one 200) and every item is answered.
 */
let sandbox: Sandbox;
beforeAll(async () => {
	sandbox = await startSandbox();
});
afterAll(async () => await sandbox.close());
beforeEach(() => sandbox.reset());

const run = (testCase: NodeCase, values: string[], onError?: NodeRun['onError']) =>
	runNode({
		type: testCase.type,
		parameters: testCase.parameters,
		credential: sandboxCredential(sandbox, testCase.service),
		items: (testCase.items ?? valueItems)(values),
		onError,
		settings: RETRY_ON_FAIL,
		workflowId: newWorkflowId('retry-nodes'),
	});

/** How many 200s the service gave for each value. */
const paidPerValue = (testCase: NodeCase) =>
	testCase.values.map(
		(value) =>
			sandbox
				.requests(testCase.service)
				.filter((request) => request.status === 200 && carrying(value)(request)).length,
	);

for (const testCase of CASES) {
	describe(testCase.name, () => {
		it('a request refused once: the second try sends only it; every value paid once', async () => {
			sandbox.faultWhen(testCase.service, firstTimeOnly(carrying(testCase.values[1])), {
				kind: 'status',
				status: 400,
			});
			const { error, items } = await run(testCase, testCase.values);
			expect(error).toBeUndefined();
			expect(paidPerValue(testCase)).toEqual([1, 1, 1]);
			expect(sandbox.requests(testCase.service)).toHaveLength(4);
			expect(items.every((item) => item.json.error === undefined)).toBe(true);
			if (testCase.file) {
				expect(items).toHaveLength(3);
				for (const item of items)
					expect(
						(await binaryBytes(item, Object.keys(item.binary ?? {})[0])).length,
					).toBeGreaterThan(0);
			}
		});

		for (const onError of ['continueRegularOutput', 'continueErrorOutput'] as const) {
			it(`${onError}: the first item fails its check; n8n's three tries pay each value once`, async () => {
				const { error, items, errorItems } = await run(
					testCase,
					[testCase.invalid, ...testCase.values],
					onError,
				);
				expect(error).toBeUndefined();
				expect(paidPerValue(testCase)).toEqual([1, 1, 1]);
				expect(sandbox.requests(testCase.service)).toHaveLength(3);
				const failed =
					onError === 'continueErrorOutput'
						? errorItems
						: items.filter((item) => item.json.error !== undefined);
				expect(failed).toHaveLength(1);
			});
		}
	});
}

describe('Image Processing with a binary source', () => {
	it('an upload is never kept: the next try uploads again', async () => {
		const photo = (width: number): InputItem => ({
			json: {},
			binary: {
				photo: { bytes: picture('png', width, 100), mimeType: 'image/png', fileName: 'photo.png' },
			},
		});
		let seen = 0;
		sandbox.faultWhen('images', () => ++seen === 2, { kind: 'status', status: 400 });
		const { error } = await runNode({
			type: 'abstractImages',
			parameters: { source: 'binary', binaryPropertyName: 'photo' },
			credential: sandboxCredential(sandbox, 'images'),
			items: [photo(100), photo(120)],
			settings: RETRY_ON_FAIL,
			workflowId: newWorkflowId('retry-nodes'),
		});
		expect(error).toBeUndefined();
		// Two uploads on the first try (the second refused), both again on the second.
		expect(sandbox.requests('images')).toHaveLength(4);
	});
});
