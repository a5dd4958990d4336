import { promises as fs } from 'fs';
import path from 'path';

import { Container } from '@n8n/di';
import { BinaryDataService } from 'n8n-core';
import type { IBinaryData } from 'n8n-workflow';

import { parseCsv } from '../../nodes/shared/csv/csv';
import { runWorkflow, type WorkflowJson } from '../harness/run';
import { ROOT } from '../harness/nodeTypes';
import { allSandboxCredentials } from '../harness/sandboxCredentials';
import { startSandbox, type Sandbox } from '../sandbox/server';
import { emailRecord } from '../sandbox/services/email';

/** examples/bulk-email-csv.json through n8n-core: a CSV file in, Email Reputation per row, a CSV out. */
let sandbox: Sandbox;
beforeAll(async () => {
	sandbox = await startSandbox();
});
afterAll(async () => await sandbox.close());

const bytesOf = async (binary: IBinaryData) =>
	await Container.get(BinaryDataService).getAsBuffer(binary);

describe('Bulk email CSV example', () => {
	it('checks every row of the file with one request each and writes the enriched rows as a CSV', async () => {
		const workflow = JSON.parse(
			await fs.readFile(path.join(ROOT, 'examples', 'bulk-email-csv.json'), 'utf8'),
		) as WorkflowJson;
		const result = await runWorkflow(workflow, { credentials: allSandboxCredentials(sandbox) });
		expect(result.error).toBeUndefined();

		// The leads file: one item holding a CSV (BOM, header, quoted cells) as Convert to File makes it.
		const [fileItem] = result.output('Leads CSV file');
		const leadsCsv = await bytesOf(fileItem.binary!.data);
		expect(leadsCsv.subarray(0, 3)).toEqual(Buffer.from([0xef, 0xbb, 0xbf]));
		const leadRows = parseCsv(leadsCsv).map((row) => row.fields);
		expect(leadRows[0]).toEqual(['name', 'email', 'company', 'note']);
		expect(leadRows).toHaveLength(6);

		// Email Reputation: one request and one item per row, each paired to the file's item.
		const checked = result.output('Email Reputation');
		expect(checked).toHaveLength(5);
		expect(checked.every((item) => (item.pairedItem as { item: number }).item === 0)).toBe(true);
		const requests = sandbox.requests('email');
		expect(requests).toHaveLength(5);
		expect(requests.map((request) => request.fields.email).sort()).toEqual(
			leadRows
				.slice(1)
				.map((row) => row[1])
				.sort(),
		);
		checked.forEach((item, index) => {
			const { csvRow, ...record } = item.json;
			expect(record).toEqual(emailRecord(leadRows[index + 1][1]));
			expect(csvRow).toEqual({
				number: index + 2,
				columns: Object.fromEntries(
					leadRows[0].map((name, column) => [name, leadRows[index + 1][column]]),
				),
			});
		});

		// The enriched file: the lead's own columns and the service's answer, one row per lead.
		const [outItem] = result.output('Enriched CSV file');
		expect(outItem.binary!.data).toMatchObject({
			fileName: 'leads-enriched.csv',
			mimeType: 'text/csv',
		});
		const enriched = parseCsv(await bytesOf(outItem.binary!.data)).map((row) => row.fields);
		expect(enriched[0]).toEqual([
			'row',
			'name',
			'email',
			'company',
			'note',
			'deliverability',
			'status_detail',
			'quality_score',
			'is_disposable',
			'suggested_correction',
		]);
		expect(enriched).toHaveLength(6);
		enriched.slice(1).forEach((row, index) => {
			const lead = leadRows[index + 1];
			const record = emailRecord(lead[1]);
			expect(row.slice(0, 5)).toEqual([String(index + 2), ...lead]);
			expect(row[5]).toBe(record.email_deliverability.status);
		});
		expect(enriched.find((row) => row[2] === 'katherine.johnson@gmial.com')?.[9]).toBe(
			'katherine.johnson@gmail.com',
		);
	});
});
