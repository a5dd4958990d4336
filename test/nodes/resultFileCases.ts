import { Container } from '@n8n/di';
import { parse as oracleParse } from 'csv-parse/sync';
import { BinaryDataService } from 'n8n-core';
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { AnswerFlattener } from '../../nodes/shared/csv/answerColumns';
import { defuseFormula } from '../../nodes/shared/csv/formulas';
import type { Sandbox } from '../sandbox/server';
import { runCsv, runEmailCsv, runPhoneCsv, type CsvRun, type FileNode } from './csvHelpers';

/**
 * Output "Result File" as the tests run and read it: a result file is read back from n8n's binary
 * store and parsed with csv-parse, an established parser, as the oracle; the answers are the
 * sandbox's records for the rows' values (the same functions the sandbox answers with). The cases
 * are csvResultFile.test.ts's (Email and Phone) and csvResultFileNodes.test.ts's (the other nodes
 * that take a file).
 */

export const RESULT = { output: 'resultFile', resultBinaryPropertyName: 'result' };

export const runEmailResult = (run: CsvRun) =>
	runEmailCsv({ ...run, parameters: { ...RESULT, ...run.parameters } });
export const runResult = (node: FileNode, run: CsvRun) =>
	runCsv(node, { ...run, parameters: { ...RESULT, ...run.parameters } });
export const runPhoneResult = (run: CsvRun) =>
	runPhoneCsv({ ...run, parameters: { ...RESULT, ...run.parameters } });

/**
 * The result file of an output item, as csv-parse reads it (as n8n's Extract From File does:
 * a byte order mark skipped, the delimiter given): its header and its records.
 */
export async function resultOf(
	item: INodeExecutionData,
	property = 'result',
	delimiter = ',',
): Promise<{ header: string[]; rows: string[][]; bytes: Buffer }> {
	const binary = item.binary?.[property];
	if (!binary)
		throw new Error(
			`the item has no binary "${property}" (it has: ${Object.keys(item.binary ?? {}).join(', ')})`,
		);
	expect(binary.mimeType).toBe('text/csv');
	const bytes = await Container.get(BinaryDataService).getAsBuffer(binary);
	const [header, ...rows] = oracleParse(bytes, { bom: true, delimiter }) as string[][];
	return { header, rows, bytes };
}

/** Cells as a result file writes them with Defuse Formulas on (the default). */
export const defused = (cells: string[]) => cells.map(defuseFormula);

/** A record's cells in the given columns, as a result file must write them. */
export const answerCells = (
	record: IDataObject,
	columns: readonly string[],
	known: readonly string[],
) => new AnswerFlattener(columns, known).flatten(record).cells;

export const sentValues = (sandbox: Sandbox, service: 'email' | 'phone') =>
	sandbox
		.requests(service)
		.map((request) => String(request.fields[service] ?? request.query[service]));

/** Quoted commas and quotes, line breaks (CRLF, LF) in cells, non-ASCII text, a BOM, one row wider than the header. */
export const TRICKY_CSV =
	'\ufeffname,email,note\r\n' +
	'"Doe, Jane",jane.doe@acme.io,"said ""call me""\r\nnext week"\r\n' +
	'Bob,bob@gmail.com,\r\n' +
	'"Zoë ""Z"" Ünal",zoe@northwind.example,"北京 🚀\nline two"\r\n' +
	'Ann,ann@acme.io,plain,"an extra, unnamed cell"\n' +
	'"  spaced  ",info@acme.io,"=1+2"';
