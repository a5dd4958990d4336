import { useBinaryMode } from '../harness/run';
import { startSandbox, type Sandbox } from '../sandbox/server';
import { csvItem, leadsCsv } from './csvHelpers';
import {
	defineFileNodeCases,
	defineResultFileCases,
	resultOf,
	runEmailResult,
} from './resultFileCases';

/**
 * Output "Result File" in n8n's filesystem binary mode: the input file is read as a stream from
 * n8n's binary store (twice: the check, then the rows), and the result file is handed to n8n as
 * a stream, which n8n writes to its store: the item holds a reference, not the bytes.
 */
let sandbox: Sandbox;
beforeAll(async () => {
	await useBinaryMode('filesystem');
	sandbox = await startSandbox();
});
afterAll(async () => await sandbox.close());
beforeEach(() => sandbox.reset());

describe('CSV input, Output: Result File (filesystem binary mode)', () => {
	defineResultFileCases(() => sandbox);

	describe('the other nodes that take a file', () => defineFileNodeCases(() => sandbox));

	it("stores the result file in n8n's binary store, not in the item", async () => {
		const { items, error } = await runEmailResult({ sandbox, items: [csvItem(leadsCsv(3000))] });
		expect(error).toBeUndefined();
		const binary = items[0].binary?.result;
		expect(binary?.id).toMatch(/^filesystem/);
		expect(binary?.data).not.toMatch(/[A-Za-z0-9+/]{100}/);
		const { rows, bytes } = await resultOf(items[0]);
		expect(binary?.bytes).toBe(bytes.length);
		expect(rows).toHaveLength(3000);
	});
});
