import type { IBinaryData, IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

/** What the engine does with an answer's items: copy them for a repeat or a kept answer, store their files again, weigh them. */

/** A shared answer's item for another unit: its own JSON, the same binary data (n8n stores it once). */
export function copyItem(item: INodeExecutionData): INodeExecutionData {
	const copy: INodeExecutionData = { ...item, json: structuredClone(item.json) };
	if (item.binary) {
		copy.binary = Object.fromEntries(
			Object.entries(item.binary).map(([name, data]) => [name, { ...data }]),
		);
	}
	return copy;
}

/** An item's own copy, its JSON copied through text, its files' descriptions copied. */
export function jsonCopy(item: INodeExecutionData): INodeExecutionData {
	const copy: INodeExecutionData = { json: JSON.parse(JSON.stringify(item.json)) as IDataObject };
	if (item.binary)
		copy.binary = Object.fromEntries(
			Object.entries(item.binary).map(([name, data]) => [name, { ...data }]),
		);
	return copy;
}

/**
 * A reused item's files, stored again for this execution: the bytes read through n8n's binary
 * helpers (from the item in memory mode, from n8n's store in filesystem mode).
 */
export async function storeFilesAgain(
	ctx: IExecuteFunctions,
	item: INodeExecutionData,
): Promise<void> {
	if (!item.binary) return;
	for (const [name, file] of Object.entries(item.binary)) {
		if (!file.id) continue;
		const bytes = await ctx.helpers.binaryToBuffer(await ctx.helpers.getBinaryStream(file.id));
		item.binary[name] = {
			...(await ctx.helpers.prepareBinaryData(bytes, file.fileName, file.mimeType)),
			...pick(file),
		};
	}
}

/** What an item's file says of itself besides its bytes (kept as the answer gave it). */
function pick(file: IBinaryData): Partial<IBinaryData> {
	const kept: Partial<IBinaryData> = {};
	if (file.fileName !== undefined) kept.fileName = file.fileName;
	if (file.fileExtension !== undefined) kept.fileExtension = file.fileExtension;
	if (file.mimeType !== undefined) kept.mimeType = file.mimeType;
	return kept;
}

/**
 * An answer's size: its JSON as text, and its files (bytes held in the item in n8n's memory mode,
 * a reference to n8n's binary store otherwise), plus the entry itself.
 */
export function sizeOf(key: string, answered: INodeExecutionData[]): number {
	let size = 200 + key.length;
	for (const item of answered) {
		size += JSON.stringify(item.json).length;
		for (const file of Object.values(item.binary ?? {})) size += 200 + file.data.length;
	}
	return size;
}
