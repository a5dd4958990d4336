import type { IDataObject } from 'n8n-workflow';

import { runNode, type InputItem, type NodeRun } from '../harness/run';
import { sandboxCredential } from '../harness/sandboxCredentials';
import type { Sandbox } from '../sandbox/server';

/** Bulk CSV input tests: files as items, the nodes run through n8n-core against the sandbox. */

export const csvItem = (text: string | Buffer, property = 'data', json: IDataObject = {}): InputItem => ({
	json,
	binary: {
		[property]: { bytes: Buffer.isBuffer(text) ? text : Buffer.from(text, 'utf8'), mimeType: 'text/csv', fileName: 'leads.csv' },
	},
});

export interface CsvRun {
	sandbox: Sandbox;
	items: InputItem[];
	parameters?: IDataObject;
	options?: IDataObject;
	continueOnFail?: boolean;
	onError?: NodeRun['onError'];
	credential?: IDataObject;
}

export const runEmailCsv = ({ sandbox, items, parameters = {}, options = {}, continueOnFail, onError, credential }: CsvRun) =>
	runNode({
		type: 'abstractEmail',
		parameters: { input: 'csvFile', binaryPropertyName: 'data', emailColumn: 'email', ...parameters, options },
		credential: sandboxCredential(sandbox, 'email', credential),
		items,
		continueOnFail,
		onError,
	});

export const runPhoneCsv = ({ sandbox, items, parameters = {}, options = {}, continueOnFail, onError, credential }: CsvRun) =>
	runNode({
		type: 'abstractPhone',
		parameters: { input: 'csvFile', binaryPropertyName: 'data', ...parameters, options },
		credential: sandboxCredential(sandbox, 'phone', credential),
		items,
		continueOnFail,
		onError,
	});

/** A CSV of `count` data rows under a header `name,email`. */
export function leadsCsv(count: number, lineEnd = '\n'): string {
	const lines = ['name,email'];
	for (let index = 1; index <= count; index++) lines.push(`Lead ${index},lead${index}@example.com`);
	return lines.join(lineEnd) + lineEnd;
}
