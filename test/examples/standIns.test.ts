import type { INode } from 'n8n-workflow';

import { runWorkflow, type WorkflowJson } from '../harness/run';

/**
 * The harness's stand-ins for n8n-nodes-base give what n8n 2.41.1's real nodes give for the
 * parameters the examples use (output keys, items per input, error messages), so an example
 * that works here is not working only because a stand-in is lenient.
 */
const node = (
	name: string,
	type: string,
	parameters: INode['parameters'],
	typeVersion = 1,
): INode => ({
	id: name,
	name,
	type: `n8n-nodes-base.${type}`,
	typeVersion,
	position: [0, 0],
	parameters,
});

/** Trigger -> Edit Fields (raw JSON) -> Split Out of `field`. */
function splitWorkflow(json: string, field: string): WorkflowJson {
	return {
		nodes: [
			node('Start', 'manualTrigger', {}),
			node('Data', 'set', { mode: 'raw', jsonOutput: json, options: {} }, 3.4),
			node('Split', 'splitOut', { fieldToSplitOut: field, options: {} }),
		],
		connections: {
			Start: { main: [[{ node: 'Data', type: 'main', index: 0 }]] },
			Data: { main: [[{ node: 'Split', type: 'main', index: 0 }]] },
		},
	} as WorkflowJson;
}

const run = async (workflow: WorkflowJson) => await runWorkflow(workflow, { credentials: [] });

describe('Harness stand-ins, as the real nodes', () => {
	it('Split Out: objects become items, other values {field: value}; a missing field gives no items and no error', async () => {
		const list = await run(splitWorkflow('{"users": [{"name": "Ada"}, "Alan"]}', 'users'));
		expect(list.output('Split').map((item) => item.json)).toEqual([
			{ name: 'Ada' },
			{ users: 'Alan' },
		]);
		expect(list.output('Split').map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 0 }]);

		const scalar = await run(splitWorkflow('{"users": "Ada"}', 'users'));
		expect(scalar.output('Split').map((item) => item.json)).toEqual([{ users: 'Ada' }]);

		const missing = await run(splitWorkflow('{"people": []}', 'users'));
		expect(missing.error).toBeUndefined();
		expect(missing.output('Split')).toEqual([]);
	});

	it("Edit Fields: 'JSON Output' that is not a JSON object stops the run with the real node's message", async () => {
		expect((await run(splitWorkflow('not json', 'users'))).error?.message).toBe(
			"The 'JSON Output' in item 0 contains invalid JSON",
		);
		expect((await run(splitWorkflow('[1, 2]', 'users'))).error?.message).toBe(
			"The 'JSON Output' in item 0 does not contain a valid JSON object",
		);
	});

	it('Schedule Trigger: one item with the keys the real node gives', async () => {
		const result = await run({
			nodes: [
				node('Every Monday', 'scheduleTrigger', { rule: { interval: [{ field: 'weeks' }] } }, 1.2),
			],
			connections: {},
		} as WorkflowJson);
		const [item] = result.output('Every Monday');
		expect(Object.keys(item.json)).toEqual([
			'timestamp',
			'Readable date',
			'Readable time',
			'Day of week',
			'Year',
			'Month',
			'Day of month',
			'Hour',
			'Minute',
			'Second',
			'Timezone',
		]);
		expect(item.json['Readable date']).toMatch(
			/^[A-Z][a-z]+ \d{1,2}(st|nd|rd|th) \d{4}, \d{1,2}:\d{2}:\d{2} [ap]m$/,
		);
		expect(item.json.timestamp).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}\+00:00$/);
	});
});
