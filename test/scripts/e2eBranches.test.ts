import { promises as fs } from 'fs';
import path from 'path';

import type { LoggedRequest } from '../sandbox/types';
import { ROOT } from '../harness/nodeTypes';
import { workflowId, type Example, type Workflow } from '../../scripts/n8n/examples';
import { checkRun, type ExecutionOutput } from '../../scripts/n8n/runChecks';

/**
 * The e2e checks of an example whose node sends its failures to the error output (examples/
 * lead-check-failed-leads-branch.json): a run as n8n prints it must pass when the branches hold
 * what they should, and fail, naming the cause, when a failure reaches the success output, an
 * error item lacks its reason, a branch holds other leads, or a lead without an address was sent.
 */
const FILE = 'lead-check-failed-leads-branch.json';
type Json = Record<string, unknown>;

let example: Example;
beforeAll(async () => {
	const workflow = JSON.parse(
		await fs.readFile(path.join(ROOT, 'examples', FILE), 'utf8'),
	) as Workflow;
	example = { file: FILE, id: workflowId(FILE), workflow };
});

const leads = [
	{ name: 'Ada Lovelace', email: 'ada@analytical-engines.com' },
	{ name: 'Grace Hopper', email: '' },
	{ name: 'Alan Turing', email: 'alan@bletchley-park.co.uk' },
	{ name: 'Edsger Dijkstra', email: 'edsger@' },
	{ name: 'Katherine Johnson' },
];
const reason = 'Invalid Email (email): is required and must not be empty';
const failure = (index: number) => ({
	json: {
		...leads[index],
		error: {
			message: reason,
			description: `Item ${index + 1} was not sent, so it cost no credit.`,
		},
	},
});
const status = (email: string) =>
	email.endsWith('@') ? ['undeliverable', 'invalid_format'] : ['deliverable', 'valid_email'];

function execution(
	change: (
		runData: Record<string, Array<{ data: { main: Array<Array<{ json: Json }>> } }>>,
	) => void = () => {},
): ExecutionOutput {
	const answered = [0, 2, 3].map((index) => leads[index] as { name: string; email: string });
	const task = (
		executionIndex: number,
		previousNode: string | undefined,
		...main: Array<Array<{ json: Json }>>
	) => [{ executionIndex, source: previousNode ? [{ previousNode }] : [], data: { main } }];
	const runData = {
		"When clicking 'Execute workflow'": task(0, undefined, [{ json: {} }]),
		Leads: task(1, "When clicking 'Execute workflow'", [{ json: { leads } }]),
		'One row per lead': task(
			2,
			'Leads',
			leads.map((json) => ({ json })),
		),
		'Email Reputation': task(
			3,
			'One row per lead',
			answered.map(({ email }) => ({
				json: { email_address: email, email_deliverability: { status: status(email)[0] } },
			})),
			[failure(1), failure(4)],
		),
		'Checked leads': task(
			4,
			'Email Reputation',
			answered.map(({ name, email }) => ({
				json: { name, email, email_status: status(email)[0], status_detail: status(email)[1] },
			})),
		),
		'Failed leads': task(
			5,
			'Email Reputation',
			[1, 4].map((index) => ({
				json: {
					name: leads[index].name,
					email: '',
					failed_because: reason,
					what_to_do: failure(index).json.error.description,
				},
			})),
		),
	};
	change(runData);
	return { status: 'success', data: { resultData: { runData } } } as unknown as ExecutionOutput;
}

const request = (email: string) =>
	({
		service: 'email',
		status: 200,
		method: 'POST',
		path: '/v1/',
		query: {},
		fields: { email },
		headers: {},
		keyPlaces: ['form'],
	}) as unknown as LoggedRequest;
const sent = ['ada@analytical-engines.com', 'alan@bletchley-park.co.uk', 'edsger@'].map(request);

const check = async (execution: ExecutionOutput, log = sent) =>
	await checkRun(example, example.workflow, {
		stdout: '{}',
		execution,
		log,
		keys: ['sbx_email_secret'],
		startedAt: Date.now(),
		userFolder: '/nonexistent',
		packageName: 'n8n-nodes-abstractapi',
	});

describe('e2e checks of the failed-leads branch example', () => {
	it('pass a run whose branches hold the answered and the failed leads, three requests sent', async () => {
		const result = await check(execution());
		expect(result.problems).toEqual([]);
		expect(result.summary.split('\n')[0]).toMatch(
			/^ok +lead-check-failed-leads-branch\.json: .*Email Reputation 5, Checked leads 3, Failed leads 2$/,
		);
	});

	it('fail when a failed lead reaches the success output, naming the node', async () => {
		const result = await check(
			execution((runData) => {
				const [success, errors] = runData['Email Reputation'][0].data.main;
				success.push(errors.pop()!);
			}),
		);
		expect(result.problems).toContain(
			`node "Email Reputation" output 1 error item(s) on its success output: ${JSON.stringify(failure(4).json.error)}`,
		);
	});

	it('fail when an item of the error output lacks its reason', async () => {
		const result = await check(
			execution(
				(runData) =>
					void (runData['Email Reputation'][0].data.main[1][0].json.error = 'no address'),
			),
		);
		expect(result.problems.join('\n')).toMatch(
			/node "Email Reputation": 1 item\(s\) of its error output without error\.message and error\.description/,
		);
	});

	it('fail when a branch holds other leads than expected', async () => {
		const missing = await check(
			execution((runData) => void runData['Failed leads'][0].data.main[0].pop()),
		);
		expect(missing.problems).toHaveLength(1);
		expect(missing.problems[0]).toMatch(
			/^node "Failed leads" output 1 item\(s\), expected 2; item 2 is null, expected \{"name":"Katherine Johnson"/,
		);
		const swapped = await check(
			execution((runData) => void runData['Checked leads'][0].data.main[0].reverse()),
		);
		expect(swapped.problems.join('\n')).toMatch(
			/node "Checked leads" output 3 item\(s\), expected 3; item 1 is .*"Edsger Dijkstra".*, expected \{"name":"Ada Lovelace"/,
		);
	});

	it('fail when a lead without an address was sent', async () => {
		const result = await check(execution(), [...sent, request('')]);
		expect(result.problems).toContain(
			'the sandbox got 4 email request(s), expected one per input item (per row of a CSV file): 3',
		);
	});
});
