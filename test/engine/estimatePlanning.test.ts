import path from 'path';

import type { IExecuteFunctions, INodeExecutionData, INodeType } from 'n8n-workflow';

import { describeNodeType } from '../harness/baseNodes';
import { NodeTypes, PACKAGE_NAME } from '../harness/nodeTypes';
import { ROOT } from '../harness/root';
import { runNode } from '../harness/run';
import { sandboxCredential } from '../harness/sandboxCredentials';
import { csvItem } from '../nodes/csvHelpers';
import { startSandbox, type Sandbox } from '../sandbox/server';

// The engine and the file input as the nodes run them: from dist/.
const built = <T>(file: string) => require(path.join(ROOT, 'dist/nodes/shared', file)) as T;
const { runService } = built<typeof import('../../nodes/shared/engine/engine')>('engine/engine.js');
const { csvFanOut } = built<typeof import('../../nodes/shared/csv/csvInput')>('csv/csvInput.js');
const csvParameters =
	built<typeof import('../../nodes/shared/csv/csvParameters')>('csv/csvParameters.js');
const { estimateOnlyOption, runSettingsFromOptions } =
	built<typeof import('../../nodes/shared/parameters/options')>('parameters/options.js');

/**
 * Estimate Credits Only plans a file as the run does, through the node's own `prepare` and the
 * context n8n gave the node (no wrapper around it), and says what it plans differently as an
 * input of `prepare`: every row of the file for its whole-file figures, and a check that reads on
 * past a refused value. A probe node runs the engine with a file input and notes what its
 * `prepare` was given.
 */
interface Noted {
	nodeContext: boolean;
	wholeFile: unknown;
	stopAtRefusal: unknown;
}
let noted: Noted[] = [];

class PlanningProbe implements INodeType {
	description = describeNodeType('planningProbe', 'Planning Probe', {
		version: 1,
		description: 'Runs the engine on a CSV file and notes what its prepare is given',
		defaults: { name: 'Probe' },
		credentials: [{ name: 'abstractEmailApi', required: true }],
		properties: [
			{ displayName: 'Input', name: 'input', type: 'string', default: 'csvFile' },
			{ displayName: 'File', name: 'binaryPropertyName', type: 'string', default: 'data' },
			{
				displayName: 'Options',
				name: 'options',
				type: 'collection',
				default: {},
				options: [
					csvParameters.startAtRowOption,
					csvParameters.maxRowsOption,
					csvParameters.skipRowsOption,
					estimateOnlyOption,
				],
			},
		],
	});

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const context = this;
		return await runService(
			this,
			{
				credentialType: 'abstractEmailApi',
				baseUrlOf: () => 'http://127.0.0.1:9',
				serviceName: 'Probe',
				keepAnswersForRetry: false,
				async prepare(itemIndex, planning) {
					const { wholeFile, stopAtRefusal } = planning as unknown as Partial<Noted>;
					noted.push({ nodeContext: this === context, wholeFile, stopAtRefusal });
					const lookup = {
						column: { name: 'email', field: 'Email Column' },
						looksLikeValue: (cell: string) => cell.includes('@'),
						answerColumns: [],
						valueLabel: 'Email',
						prepare: (value: string) => ({
							requestForm: 'getKeyInQuery',
							path: '/v1/',
							qs: { value },
						}),
						identityOf: planning.identityOf,
					};
					return await csvFanOut(this, itemIndex, lookup, planning);
				},
			},
			runSettingsFromOptions,
		);
	}
}
NodeTypes.register(`${PACKAGE_NAME}.planningProbe`, new PlanningProbe());

let sandbox: Sandbox;
beforeAll(async () => (sandbox = await startSandbox()));
afterAll(async () => await sandbox.close());
beforeEach(() => (noted = []));

const file = csvItem('email\na@example.com\nb@example.com\nc@example.com\nd@example.com\n');
const probe = (options: object, onError?: 'continueRegularOutput') =>
	runNode({
		type: 'planningProbe',
		typeVersion: 1,
		parameters: { binaryPropertyName: 'data', options },
		credential: sandboxCredential(sandbox, 'email'),
		items: [file],
		onError,
	});

it("an estimate of a slice: the slice, then the whole file, each planned on the node's own context, the slice an input", async () => {
	const run = await probe({ startAtRow: 3, maxRows: 2, estimateOnly: true });
	expect(run.error).toBeUndefined();
	expect(run.items[0].json).toMatchObject({ rows: 2, wholeFile: { rows: 4 } });
	expect(noted).toEqual([
		{ nodeContext: true, wholeFile: false, stopAtRefusal: false },
		{ nodeContext: true, wholeFile: true, stopAtRefusal: false },
	]);
});

it('a run plans its slice, and under the default On Error a refused value stops the check', async () => {
	await probe({ startAtRow: 3 });
	await probe({ startAtRow: 3 }, 'continueRegularOutput');
	expect(noted).toEqual([
		{ nodeContext: true, wholeFile: false, stopAtRefusal: true },
		{ nodeContext: true, wholeFile: false, stopAtRefusal: false },
	]);
});
