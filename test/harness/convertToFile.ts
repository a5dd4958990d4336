import { NodeConnectionTypes, NodeOperationError } from 'n8n-workflow';
import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';

/**
 * Stand-in for n8n-nodes-base's Convert to File, operation `csv` only (the bulk CSV example uses
 * it twice: to make the leads file, and to write the enriched rows). Same parameters as the real
 * node (`operation`, `binaryPropertyName`, options `fileName`, `headerRow`, `delimiter`) and the
 * same output, as n8n 2.41.1's node writes it through SheetJS (checked against it):
 * - one item for all input items, `json: {}`, the file under `binaryPropertyName`, paired to
 *   every input item;
 * - each item's JSON flattened (nested keys joined with a dot), the columns in the order the keys
 *   first appear, a header row unless `headerRow` is false;
 * - a UTF-8 byte order mark first, rows joined by LF with none after the last, a cell quoted when
 *   it holds the delimiter, a quote or an LF (quotes doubled), true/false as TRUE/FALSE, null empty;
 * - file name `options.fileName`, or `File.csv` when the option is not set; MIME type text/csv.
 */
class ConvertToFileCsv implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Convert to File',
		name: 'convertToFile',
		group: ['input'],
		version: [1, 1.1],
		description: 'Convert to File (harness stand-in, CSV only)',
		defaults: { name: 'Convert to File' },
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		properties: [
			{ displayName: 'Operation', name: 'operation', type: 'string', default: 'csv' },
			{
				displayName: 'Put Output File in Field',
				name: 'binaryPropertyName',
				type: 'string',
				default: 'data',
			},
			{ displayName: 'Options', name: 'options', type: 'json', default: {} },
		],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const items = this.getInputData();
		const operation = this.getNodeParameter('operation', 0, 'csv') as string;
		if (operation !== 'csv')
			throw new NodeOperationError(
				this.getNode(),
				`The harness stand-in converts to CSV only, not ${operation}`,
			);
		const property = this.getNodeParameter('binaryPropertyName', 0, 'data') as string;
		const options = this.getNodeParameter('options', 0, {}) as IDataObject;
		const delimiter =
			typeof options.delimiter === 'string' && options.delimiter.length > 0
				? options.delimiter
				: ',';

		const rows = items.map((item) => flatten(item.json));
		const columns: string[] = [];
		const known = new Set<string>();
		for (const row of rows) {
			for (const key of Object.keys(row)) {
				if (!known.has(key)) {
					known.add(key);
					columns.push(key);
				}
			}
		}
		const cell = (value: unknown) => csvCell(value, delimiter);
		const lines = rows.map((row) => columns.map((column) => cell(row[column])).join(delimiter));
		if (options.headerRow !== false) lines.unshift(columns.map(cell).join(delimiter));
		const bytes = Buffer.from(`\ufeff${lines.join('\n')}`, 'utf8');
		const fileName = options.fileName !== undefined ? String(options.fileName) : 'File.csv';
		const binary = await this.helpers.prepareBinaryData(bytes, fileName);
		return [
			[
				{
					json: {},
					binary: { [property]: binary },
					pairedItem: items.map((_, item) => ({ item })),
				},
			],
		];
	}
}

/** Nested objects (and arrays) as dotted keys: `{ a: { b: 1 } }` is `{ 'a.b': 1 }`. */
function flatten(
	value: IDataObject,
	prefix = '',
	into: Record<string, unknown> = {},
): Record<string, unknown> {
	for (const [key, inner] of Object.entries(value)) {
		const name = prefix ? `${prefix}.${key}` : key;
		if (inner !== null && typeof inner === 'object' && !(inner instanceof Date))
			flatten(inner as IDataObject, name, into);
		else into[name] = inner instanceof Date ? inner.toString() : inner;
	}
	return into;
}

function csvCell(value: unknown, delimiter: string): string {
	if (value === null || value === undefined) return '';
	if (typeof value === 'boolean') return value ? 'TRUE' : 'FALSE';
	const text = String(value);
	return text.includes(delimiter) || text.includes('"') || text.includes('\n')
		? `"${text.replace(/"/g, '""')}"`
		: text;
}

export const CONVERT_TO_FILE_TYPE = 'n8n-nodes-base.convertToFile';
export const convertToFileCsv = new ConvertToFileCsv();
