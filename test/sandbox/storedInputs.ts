import { promises as fs } from 'fs';
import path from 'path';

import { STORED_LOG_CSV } from './storedLog';

/**
 * The files examples read from storage (a Read/Write Files node reading `.../<name>`), by file
 * name, put in place before an example runs as a user would have uploaded them (the README says
 * where). A relative path (the examples' `.n8n-files/...`) is taken from n8n's working
 * directory, as n8n takes it; the folder must exist, as it must for n8n.
 */

/**
 * The lead list (`leads.csv`): a header row, quoted commas and quotes, a note over two lines,
 * non-ASCII names, CRLF line ends, and addresses the sandbox answers in different ways (free
 * provider, a typo domain, a disposable domain, a role address).
 */
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

/** A lead export's company domains (`domains.csv`): quoted commas and quotes, a note over two lines, non-ASCII names, CRLF line ends. */
export const STORED_DOMAINS_CSV = [
	'company,domain,owner,note',
	'"Acme, Inc.",acme.io,Ada Lovelace,"renewal in Q3"',
	'Globex,globex.com,Grace Hopper,"met at ""SaaStr""\r\nfollow up in May"',
	'Initech,initech.com,Zoë Ångström,',
	'Umbrella 株式会社,umbrella.co.jp,Li Wei 李伟,Tokyo office',
	'Stark Industries,starkindustries.com,Katherine Johnson,prefers email',
].join('\r\n') + '\r\n';

/** Each stored input by the file name an example reads. */
export const STORED_INPUTS: Record<string, string> = {
	'leads.csv': STORED_LEADS_CSV,
	'domains.csv': STORED_DOMAINS_CSV,
	'access-log.csv': STORED_LOG_CSV,
};

interface WorkflowLike {
	nodes: Array<{ type: string; parameters: Record<string, unknown> }>;
}

/** Puts each stored input a workflow reads in place; returns the paths written. */
export async function placeStoredInputs(workflow: WorkflowLike, workingDirectory: string): Promise<string[]> {
	const placed: string[] = [];
	for (const node of workflow.nodes) {
		if (node.type !== 'n8n-nodes-base.readWriteFile' || node.parameters.operation !== 'read') continue;
		const filePath = path.resolve(workingDirectory, String(node.parameters.fileSelector ?? ''));
		const name = path.basename(filePath);
		const content = Object.hasOwn(STORED_INPUTS, name) ? STORED_INPUTS[name] : undefined;
		if (content === undefined) continue;
		await fs.rm(filePath, { force: true });
		await fs.writeFile(filePath, content);
		placed.push(filePath);
	}
	return placed;
}
