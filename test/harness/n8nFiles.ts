import { promises as fs } from 'fs';
import path from 'path';

import { N8N_HOME } from './env';

/**
 * Files as the n8n process the harness plays sees them. It runs from its home folder (n8n's
 * working directory is the home folder in n8n's Docker image, and when started from a terminal
 * there), with n8n's default file restriction: Read/Write Files from Disk may touch only
 * `~/.n8n-files`, and n8n creates no folder. The examples name their files `.n8n-files/<name>`,
 * relative to that working directory.
 */
export const N8N_WORKING_DIRECTORY = N8N_HOME;
export const N8N_FILES_FOLDER = path.join(N8N_HOME, '.n8n-files');

/** What a user does once before running the examples (n8n's docs ask it): `mkdir ~/.n8n-files`. */
export async function createN8nFilesFolder(): Promise<string> {
	await fs.mkdir(N8N_FILES_FOLDER, { recursive: true });
	return N8N_FILES_FOLDER;
}

/** Removes `~/.n8n-files` and everything in it: the state of a machine where nobody made it. */
export async function removeN8nFilesFolder(): Promise<void> {
	await fs.rm(N8N_FILES_FOLDER, { recursive: true, force: true });
}

/** A path as n8n resolves it: a relative one from n8n's working directory. */
export function resolveFromWorkingDirectory(filePath: string): string {
	return path.resolve(N8N_WORKING_DIRECTORY, filePath);
}
