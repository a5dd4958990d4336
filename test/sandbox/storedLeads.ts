import { promises as fs } from 'fs';
import path from 'path';

import { STORED_LOG_CSV } from './storedLog';

/**
 * The lead list an example reads from storage (a Read/Write Files node reading
 * `.../leads.csv`), put in place before the example runs, as a user would have uploaded it: a
 * header row, quoted commas and quotes, a note over two lines, non-ASCII names, CRLF line ends,
 * and addresses the sandbox answers in different ways (free provider, a typo domain, a
 * disposable domain, a role address). A relative path (the examples' `.n8n-files/...`) is taken
 * from n8n's working directory, as n8n takes it; the folder must exist, as it must for n8n.
 */
interface WorkflowLike {
	nodes: Array<{ type: string; parameters: Record<string, unknown> }>;
}

export const STORED_LEADS_CSV = [
	'name,email,company,note',
	'Ada Lovelace,ada@analytical-engines.com,"Analytical Engines, Ltd.","met at ""Difference"" expo"',
	'Grace Hopper,grace.hopper@navy-compilers.org,Navy Compilers,"asked for a demo\r\nnext quarter"',
	'Katherine Johnson,katherine.johnson@gmial.com,Langley Research,',
	'Zoë Ångström,zoe@gmail.com,Nordvik AB,prefers Swedish',
	'Li Wei 李伟,li.wei@proton.me,"Shenzhen Devices, Co.",',
	'Temp User,someone@mailinator.com,,signed up twice',
	'Info desk,info@acme.io,"Acme, Inc.",role address',
	'Alan Turing,alan@bletchley-park.co.uk,Bletchley Park,prefers email',
].join('\r\n') + '\r\n';

/** The stored input files the examples read, by file name: the lead list, and a web log (storedLog.ts). */
const STORED_INPUTS: Record<string, string> = { 'leads.csv': STORED_LEADS_CSV, 'access-log.csv': STORED_LOG_CSV };

/** Puts each stored input file an example reads (the lead list, the log) where its Read node looks. */
export async function placeStoredLeads(workflow: WorkflowLike, workingDirectory: string): Promise<string[]> {
	const placed: string[] = [];
	for (const node of workflow.nodes) {
		if (node.type !== 'n8n-nodes-base.readWriteFile' || node.parameters.operation !== 'read') continue;
		const filePath = path.resolve(workingDirectory, String(node.parameters.fileSelector ?? ''));
		const content = Object.hasOwn(STORED_INPUTS, path.basename(filePath)) ? STORED_INPUTS[path.basename(filePath)] : undefined;
		if (content === undefined) continue;
		await fs.rm(filePath, { force: true });
		await fs.writeFile(filePath, content);
		placed.push(filePath);
	}
	return placed;
}
