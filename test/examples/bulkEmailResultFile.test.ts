import { promises as fs } from 'fs';
import path from 'path';

import { parse as oracleParse } from 'csv-parse/sync';

import { EMAIL_ANSWER_COLUMNS } from '../../nodes/shared/csv/answerColumns';
import { createN8nFilesFolder, N8N_WORKING_DIRECTORY } from '../harness/n8nFiles';
import { ROOT } from '../harness/nodeTypes';
import { runWorkflow, type WorkflowJson } from '../harness/run';
import { allSandboxCredentials } from '../harness/sandboxCredentials';
import { answerCells } from '../nodes/resultFileCases';
import { startSandbox, type Sandbox } from '../sandbox/server';
import { emailRecord } from '../sandbox/services/email';
import { placeStoredLeads, STORED_LEADS_CSV } from '../sandbox/storedLeads';

/**
 * examples/bulk-email-result-file.json through n8n-core: a lead list read from storage
 * (~/.n8n-files/leads.csv, put there as the demo and test:e2e put it), Email Reputation with
 * Output: Result File, and the result file written back to storage beside the list.
 */
let sandbox: Sandbox;
beforeAll(async () => {
	sandbox = await startSandbox();
});
afterAll(async () => await sandbox.close());

describe('Bulk email result file example', () => {
	it('reads the stored list, sends one request per row, and stores one result file with every row, its answer and status', async () => {
		const workflow = JSON.parse(await fs.readFile(path.join(ROOT, 'examples', 'bulk-email-result-file.json'), 'utf8')) as WorkflowJson;
		await createN8nFilesFolder();
		expect(await placeStoredLeads(workflow, N8N_WORKING_DIRECTORY)).toEqual([path.join(N8N_WORKING_DIRECTORY, '.n8n-files', 'leads.csv')]);
		const result = await runWorkflow(workflow, { credentials: allSandboxCredentials(sandbox) });
		expect(result.error).toBeUndefined();

		const leads = oracleParse(STORED_LEADS_CSV) as string[][];
		const [summary] = result.output('Email Reputation');
		expect(summary.json).toMatchObject({ rows: leads.length - 1, answered: leads.length - 1, nextRow: null });
		expect(sandbox.requests('email')).toHaveLength(leads.length - 1);

		const [saved] = result.output('Save result file');
		expect(saved.json.fileName).toBe('.n8n-files/leads-results.csv');
		const written = await fs.readFile(path.join(N8N_WORKING_DIRECTORY, '.n8n-files', 'leads-results.csv'), 'utf8');
		const [header, ...rows] = oracleParse(written) as string[][];
		expect(header).toEqual([...leads[0], ...EMAIL_ANSWER_COLUMNS, 'other_fields', 'status']);
		expect(rows).toEqual(leads.slice(1).map((lead) => [...lead, ...answerCells(emailRecord(lead[1]), EMAIL_ANSWER_COLUMNS, EMAIL_ANSWER_COLUMNS), '', 'ok']));
	});
});
