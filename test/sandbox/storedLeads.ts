import { promises as fs } from 'fs';
import path from 'path';

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

export async function placeStoredLeads(workflow: WorkflowLike, workingDirectory: string): Promise<string[]> {
	const placed: string[] = [];
	for (const node of workflow.nodes) {
		if (node.type !== 'n8n-nodes-base.readWriteFile' || node.parameters.operation !== 'read') continue;
		const filePath = path.resolve(workingDirectory, String(node.parameters.fileSelector ?? ''));
		if (path.basename(filePath) !== 'leads.csv') continue;
		await fs.rm(filePath, { force: true });
		await fs.writeFile(filePath, STORED_LEADS_CSV);
		placed.push(filePath);
	}
	return placed;
}
