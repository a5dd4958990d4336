import { promises as fs } from 'fs';
import path from 'path';

import { parse as oracleParse } from 'csv-parse/sync';
import type { IDataObject } from 'n8n-workflow';

import { COMPANY_ANSWER_COLUMNS, EMAIL_ANSWER_COLUMNS } from '../../nodes/shared/csv/answerColumns';
import { createN8nFilesFolder, N8N_WORKING_DIRECTORY } from '../harness/n8nFiles';
import { ROOT } from '../harness/nodeTypes';
import { runWorkflow, type WorkflowJson } from '../harness/run';
import { allSandboxCredentials } from '../harness/sandboxCredentials';
import { answerCells } from '../nodes/resultFileCases';
import { startSandbox, type Sandbox } from '../sandbox/server';
import { companyRecord } from '../sandbox/services/company';
import { emailRecord } from '../sandbox/services/email';
import { placeStoredInputs, STORED_INPUTS } from '../sandbox/storedInputs';

/**
 * The examples that read a list from storage (~/.n8n-files/<list>, put there as the demo and
 * test:e2e put it), send it through a node with Output: Result File, and write the result file
 * back beside the list, run through n8n-core: one request per row, and the stored result parses
 * back (csv-parse) to every row's cells, the sandbox's answer for its value, and `ok`.
 */
interface ResultFileExample {
	file: string;
	list: string;
	node: string;
	service: string;
	/** The list's column the node reads. */
	column: string;
	answerColumns: readonly string[];
	record(value: string): IDataObject;
}

const EXAMPLES: ResultFileExample[] = [
	{
		file: 'bulk-email-result-file.json',
		list: 'leads.csv',
		node: 'Email Reputation',
		service: 'email',
		column: 'email',
		answerColumns: EMAIL_ANSWER_COLUMNS,
		record: emailRecord,
	},
	{
		file: 'bulk-company-result-file.json',
		list: 'domains.csv',
		node: 'Company Enrichment',
		service: 'company',
		column: 'domain',
		answerColumns: COMPANY_ANSWER_COLUMNS,
		record: companyRecord,
	},
];

let sandbox: Sandbox;
beforeAll(async () => {
	sandbox = await startSandbox();
});
afterAll(async () => await sandbox.close());
beforeEach(() => sandbox.reset());

describe.each(EXAMPLES.map((example) => [example.file, example] as const))(
	'%s',
	(file, example) => {
		it('reads the stored list, sends one request per row, and stores one result file with every row, its answer and status', async () => {
			const workflow = JSON.parse(
				await fs.readFile(path.join(ROOT, 'examples', file), 'utf8'),
			) as WorkflowJson;
			await createN8nFilesFolder();
			expect(await placeStoredInputs(workflow, N8N_WORKING_DIRECTORY)).toEqual([
				path.join(N8N_WORKING_DIRECTORY, '.n8n-files', example.list),
			]);
			const result = await runWorkflow(workflow, { credentials: allSandboxCredentials(sandbox) });
			expect(result.error).toBeUndefined();

			const [names, ...rows] = oracleParse(STORED_INPUTS[example.list]) as string[][];
			const [summary] = result.output(example.node);
			expect(summary.json).toMatchObject({
				rows: rows.length,
				answered: rows.length,
				nextRow: null,
			});
			expect(sandbox.requests(example.service)).toHaveLength(rows.length);

			const resultName = example.list.replace(/\.csv$/, '-results.csv');
			const [saved] = result.output('Save result file');
			expect(saved.json.fileName).toBe(`.n8n-files/${resultName}`);
			const written = await fs.readFile(
				path.join(N8N_WORKING_DIRECTORY, '.n8n-files', resultName),
				'utf8',
			);
			const [header, ...writtenRows] = oracleParse(written) as string[][];
			// An answer column named like one of the list's (Company's domain) gets _2.
			expect(header).toEqual([
				...names,
				...example.answerColumns.map((column) => (names.includes(column) ? `${column}_2` : column)),
				'other_fields',
				'status',
			]);
			const at = names.indexOf(example.column);
			expect(writtenRows).toEqual(
				rows.map((row) => [
					...row,
					...answerCells(example.record(row[at]), example.answerColumns, example.answerColumns),
					'',
					'ok',
				]),
			);
		});
	},
);
