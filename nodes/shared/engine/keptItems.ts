import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

/** What the engine does with an answer's items: copy them for a repeat or a kept answer, store their files again, weigh them. */

/**
 * An item's own copy: its JSON (through text when kept for later runs: the smallest in memory, as
 * answers are JSON; then nothing else of the item is kept), the same files (n8n stores them once).
 */
export function copyItem(item: INodeExecutionData, viaJson = false): INodeExecutionData {
	const copy: INodeExecutionData = viaJson
		? { json: JSON.parse(JSON.stringify(item.json)) as IDataObject }
		: { ...item, json: structuredClone(item.json) };
	if (item.binary)
		copy.binary = Object.fromEntries(
			Object.entries(item.binary).map(([name, data]) => [name, { ...data }]),
		);
	return copy;
}

/**
 * A reused item's files, stored again for this execution: the bytes read through n8n's binary
 * helpers (from the item in memory mode, from n8n's store in filesystem mode), named as before.
 */
export async function storeFilesAgain(
	ctx: IExecuteFunctions,
	item: INodeExecutionData,
): Promise<void> {
	const files = item.binary ?? {};
	for (const [name, file] of Object.entries(files)) {
		if (!file.id) continue;
		const bytes = await ctx.helpers.binaryToBuffer(await ctx.helpers.getBinaryStream(file.id));
		const { fileName, fileExtension, mimeType } = file;
		const stored = await ctx.helpers.prepareBinaryData(bytes, fileName, mimeType);
		// Named as before: n8n reads a name as a path, and derives the extension from it or the type.
		const named = {
			...(fileName ? { fileName } : {}),
			...(fileExtension ? { fileExtension } : {}),
		};
		files[name] = { ...stored, ...named };
	}
}

/** An answer's size: its JSON as text and its files (bytes in n8n's memory mode, else a reference), plus the entry. */
export function sizeOf(key: string, answered: INodeExecutionData[]): number {
	let size = 200 + key.length;
	for (const item of answered) {
		size += JSON.stringify(item.json).length;
		for (const file of Object.values(item.binary ?? {})) size += 200 + file.data.length;
	}
	return size;
}
