import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

/** What the kept answers do with an answer's items: keep them as text, store their files again. */

/**
 * A reused item's files, stored again for this execution: the bytes read through n8n's binary
 * helpers (from the item in memory mode, from n8n's store in filesystem mode). Only where the file
 * is stored changes: n8n would read its name as a path and derive the extension afresh.
 */
export async function storeFilesAgain(
	ctx: IExecuteFunctions,
	item: INodeExecutionData,
): Promise<void> {
	const files = item.binary ?? {};
	for (const [name, file] of Object.entries(files)) {
		if (!file.id) continue;
		const bytes = await ctx.helpers.binaryToBuffer(await ctx.helpers.getBinaryStream(file.id));
		const { id, data } = await ctx.helpers.prepareBinaryData(bytes, file.fileName, file.mimeType);
		files[name] = { ...file, id, data };
	}
}

/** Whether n8n still has every file of the items: opened, not read (an estimate stores nothing). */
export async function filesStillThere(
	ctx: IExecuteFunctions,
	items: INodeExecutionData[],
): Promise<boolean> {
	try {
		for (const item of items)
			for (const file of Object.values(item.binary ?? {}))
				if (file.id) (await ctx.helpers.getBinaryStream(file.id)).destroy();
		return true;
	} catch {
		return false;
	}
}

/**
 * An answer as kept: its items' JSON and files (the bytes in n8n's memory mode, else n8n's
 * reference) as text, made once when filed: the smallest in memory, as answers are JSON, its
 * length its size, and nothing done to the output's items (a CSV row's columns put in) reaches it.
 */
export function asText(answered: INodeExecutionData[]): string {
	return JSON.stringify(answered.map(({ json, binary }) => (binary ? { json, binary } : { json })));
}
