import { useBinaryMode } from '../harness/run';
import { startSandbox, type Sandbox } from '../sandbox/server';
import { csvItem, leadsCsv, runEmailCsv } from './csvHelpers';

/**
 * n8n's filesystem binary mode: the CSV file is in n8n's binary store and the node reads it as a
 * stream in 64 KB chunks (a file of several chunks here), never as one buffer.
 */
let sandbox: Sandbox;
beforeAll(async () => {
	await useBinaryMode('filesystem');
	sandbox = await startSandbox();
});
afterAll(async () => await sandbox.close());
beforeEach(() => sandbox.reset());

describe('CSV input in filesystem binary mode', () => {
	it('reads a file of several stream chunks, row by row', async () => {
		const count = 400;
		const note = `"${'long note, with ""quotes"" and\r\nline breaks; '.repeat(8)}"`; // about 400 bytes
		let csv = 'name,email,note\r\n';
		for (let index = 1; index <= count; index++)
			csv += `Lead ${index},lead${index}@example.com,${note}\r\n`;
		expect(Buffer.byteLength(csv)).toBeGreaterThan(2 * 64 * 1024);
		const { items, error } = await runEmailCsv({ sandbox, items: [csvItem(csv)] });
		expect(error).toBeUndefined();
		expect(items).toHaveLength(count);
		expect(items.map((item) => item.json.email_address)).toEqual(
			Array.from({ length: count }, (_, index) => `lead${index + 1}@example.com`),
		);
		expect(items[count - 1].json.csvRow).toEqual({
			number: count + 1,
			columns: {
				name: `Lead ${count}`,
				email: `lead${count}@example.com`,
				note: 'long note, with "quotes" and\r\nline breaks; '.repeat(8),
			},
		});
		expect(items.every((item) => (item.pairedItem as { item: number }).item === 0)).toBe(true);
		expect(sandbox.requests('email')).toHaveLength(count);
	});

	it('applies the rules to the whole streamed file before any request', async () => {
		const csv = leadsCsv(5000) + '\n';
		expect(Buffer.byteLength(csv)).toBeGreaterThan(2 * 64 * 1024);
		const { error } = await runEmailCsv({ sandbox, items: [csvItem(csv)] });
		expect(error?.message).toMatch(/row 5002 is empty/);
		expect(sandbox.requests('email')).toEqual([]);
	});
});
