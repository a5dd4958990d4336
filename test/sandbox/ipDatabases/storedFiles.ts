import { promises as fs } from 'fs';
import path from 'path';

import { databaseFileOf } from './archives';
import { DATABASES, FORMATS, type DatabaseId, type FormatId } from './records';

/**
 * The database files an example reads from storage (a Read/Write Files node reading
 * `.../svc-<database>.<format>`), put in place from the sandbox's build before the example runs,
 * as the weekly download would have stored them. The path stays in one place: the example's
 * Read node. A relative path (the examples' `.n8n-files/...`) is taken from n8n's working
 * directory, as n8n takes it; the folder must exist, as it must for n8n (no folder is made).
 */
interface WorkflowLike {
	nodes: Array<{ type: string; parameters: Record<string, unknown> }>;
}

export interface StoredDatabaseFile {
	path: string;
	database: DatabaseId;
	format: FormatId;
}

export function storedDatabaseFiles(
	workflow: WorkflowLike,
	workingDirectory: string,
): StoredDatabaseFile[] {
	const files: StoredDatabaseFile[] = [];
	for (const node of workflow.nodes) {
		if (node.type !== 'n8n-nodes-base.readWriteFile' || node.parameters.operation !== 'read')
			continue;
		const filePath = path.resolve(workingDirectory, String(node.parameters.fileSelector ?? ''));
		const match = /svc-(ip-[a-z]+)\.([a-z]+)$/.exec(path.basename(filePath));
		if (!match) continue;
		const [, database, format] = match;
		if (DATABASES.includes(database as DatabaseId) && FORMATS.includes(format as FormatId)) {
			files.push({ path: filePath, database: database as DatabaseId, format: format as FormatId });
		}
	}
	return files;
}

/** Writes (after removing any old copy) the sandbox's build of every database file the workflow reads. */
export async function placeStoredDatabases(
	workflow: WorkflowLike,
	workingDirectory: string,
	build = 1,
): Promise<StoredDatabaseFile[]> {
	const files = storedDatabaseFiles(workflow, workingDirectory);
	for (const file of files) {
		await fs.rm(file.path, { force: true });
		await fs.writeFile(file.path, databaseFileOf(file.database, file.format, build));
	}
	return files;
}
