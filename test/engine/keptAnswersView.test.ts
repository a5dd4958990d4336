import { NodeConnectionTypes, NodeOperationError } from 'n8n-workflow';
import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	WorkflowExecuteMode,
} from 'n8n-workflow';

import { keptAnswers as kept, keptAnswersHeld } from '../harness/keptStore';

// The view of the store one run of a node uses, from the same built package the nodes run.
const { KeptAnswersOfRun } =
	require('../../dist/nodes/shared/engine/keptAnswersOfRun.js') as typeof import('../../nodes/shared/engine/keptAnswersOfRun');
import { NodeTypes } from '../harness/nodeTypes';
import { newWorkflowId } from '../harness/retryOnFail';
import { retryExecution, runWorkflow, workflowNode, type RunResult } from '../harness/run';

/**
 * The store's read-only view, as an estimate of a run's cost uses it: `open(..., { estimate:
 * true })` registers no try, creates no scope, keeps nothing and changes no eviction order, and
 * `find` tells from where `take` would take an answer, matching what a following `take` does.
 * A probe node drives the store with the IExecuteFunctions n8n-core gives a node, as the engine does.
 */
const policy = { testRuns: true, hours: 2 };
const PROBE = 'harness.keptAnswersProbe';

interface Probe {
	/** Keys to pay for (kept as answers) in a normal run of the store. */
	pay?: string[];
	/** Keys whose source an estimate tells, then a normal run takes. */
	look?: string[];
	/** Throw after paying (default On Error: the execution fails). */
	fail?: boolean;
	/** Estimate only: take and keep in an estimate view, and nothing else. */
	estimateOnly?: boolean;
}

class KeptAnswersProbe implements INodeType {
	description = {
		displayName: 'Kept Answers Probe',
		name: 'keptAnswersProbe',
		group: ['transform'],
		version: 1,
		description: 'Drives the kept answers store as the engine does',
		defaults: { name: 'Probe' },
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		properties: [{ displayName: 'Probe', name: 'probe', type: 'json', default: '{}' }],
	} as INodeType['description'];

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const probe = JSON.parse(this.getNodeParameter('probe', 0) as string) as Probe;
		const answer = (key: string) => [{ json: { answer: key } }];
		const estimate = KeptAnswersOfRun.open(this, 'probe', [policy], { estimate: true });
		const sources: IDataObject = {};
		const estimated: IDataObject = {};
		for (const key of probe.look ?? []) {
			const found = estimate?.find(key, policy, false);
			sources[key] = found?.source ?? null;
			if (probe.estimateOnly && found) await estimate?.take(this, found);
			if (probe.estimateOnly) estimated[key] = found?.source ?? null;
		}
		if (probe.estimateOnly) {
			for (const key of probe.pay ?? []) estimate?.keep(key, answer(key), true, policy);
			estimate?.finish(true);
			return [[{ json: { sources, estimated } }]];
		}
		const planned = new Set(probe.look ?? []);
		const keptAnswers = KeptAnswersOfRun.open(this, 'probe', [policy], { planned });
		const taken: IDataObject = {};
		for (const key of probe.look ?? []) {
			const found = keptAnswers?.find(key, policy, false);
			taken[key] = found && (await keptAnswers?.take(this, found)) ? found.source : null;
		}
		for (const key of probe.pay ?? []) keptAnswers?.keep(key, answer(key), true, policy);
		if (probe.fail) {
			keptAnswers?.finish(true);
			throw new NodeOperationError(this.getNode(), 'The probe fails, as asked');
		}
		const output = [{ json: { sources, taken } }];
		keptAnswers?.finish(false);
		return [output];
	}
}
NodeTypes.register(PROBE, new KeptAnswersProbe());

beforeEach(() => kept.dropKeptAnswers());
afterAll(() => kept.dropKeptAnswers());

const probeRun = (probe: Probe, workflowId: string, mode: WorkflowExecuteMode = 'manual') =>
	runWorkflow(
		{
			nodes: [
				workflowNode('Start', 'n8n-nodes-base.manualTrigger', 0),
				workflowNode('Probe', PROBE, 200, { probe: JSON.stringify(probe) }),
			],
			connections: {
				Start: { main: [[{ node: 'Probe', type: NodeConnectionTypes.Main, index: 0 }]] },
			},
		},
		{ credentials: [], workflowId, mode },
	);
const outputOf = (run: RunResult) => run.output('Probe')[0]?.json as IDataObject;

describe('the estimate view: find tells what take then does', () => {
	it('test runs\' answers: "testRuns" for a paid key, none for another; the take that follows agrees', async () => {
		const workflowId = newWorkflowId('view');
		await probeRun({ pay: ['a', 'b'] }, workflowId);
		const run = await probeRun({ look: ['a', 'c'] }, workflowId);
		expect(outputOf(run)).toEqual({
			sources: { a: 'testRuns', c: null },
			taken: { a: 'testRuns', c: null },
		});
	});

	it('production answers under Reuse Answers For (Hours): "earlierRuns"', async () => {
		const workflowId = newWorkflowId('view');
		await probeRun({ pay: ['a'] }, workflowId, 'trigger');
		const run = await probeRun({ look: ['a'] }, workflowId, 'webhook');
		expect(outputOf(run)).toEqual({ sources: { a: 'earlierRuns' }, taken: { a: 'earlierRuns' } });
	});

	it('a failed execution\'s answers, for its Retry: "retry"', async () => {
		const workflowId = newWorkflowId('view');
		const failed = await probeRun({ pay: ['a'], fail: true }, workflowId, 'trigger');
		expect(failed.error?.message).toMatch(/fails, as asked/);
		const probe = failed.workflowJson.nodes.map((node) =>
			node.name === 'Probe'
				? { ...node, parameters: { probe: JSON.stringify({ look: ['a'] }) } }
				: node,
		);
		const run = await retryExecution({
			...failed,
			workflowJson: { ...failed.workflowJson, nodes: probe },
		});
		expect(outputOf(run)).toEqual({ sources: { a: 'retry' }, taken: { a: 'retry' } });
	});

	it('an estimate keeps nothing and registers no try', async () => {
		const run = await probeRun(
			{ pay: ['a'], look: ['a'], estimateOnly: true },
			newWorkflowId('view'),
		);
		expect(outputOf(run)).toEqual({ sources: { a: null }, estimated: { a: null } });
		expect(keptAnswersHeld()).toEqual({
			answers: 0,
			size: 0,
			forRetries: 0,
			forNextRuns: 0,
			runs: 0,
		});
	});

	it("an estimate's take changes no eviction order: the least recently used answer is still the first dropped", async () => {
		const workflowId = newWorkflowId('view');
		await probeRun({ pay: ['first'] }, workflowId);
		await probeRun({ pay: ['second'] }, workflowId);
		// An estimate takes the older one: a real take would make it the most recently used.
		await probeRun({ look: ['first'], estimateOnly: true }, workflowId);
		const { size } = keptAnswersHeld();
		const previous = kept.setKeptAnswersBudget(size);
		try {
			await probeRun({ pay: ['third'] }, workflowId);
			const run = await probeRun(
				{ look: ['first', 'second', 'third'], estimateOnly: true },
				workflowId,
			);
			expect(outputOf(run).sources).toEqual({ first: null, second: 'testRuns', third: 'testRuns' });
		} finally {
			kept.setKeptAnswersBudget(previous);
		}
	});
});
