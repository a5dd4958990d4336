import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

/** What the engine does with an answer's items: copy them for a repeat, keep them as text, store their files again. */

/** An item's own copy for a repeat: its JSON, the same files (n8n stores them once). */
export function copyItem(item: INodeExecutionData): INodeExecutionData {
	const copy: INodeExecutionData = { ...item, json: structuredClone(item.json) };
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

/**
 * An answer as kept: its items' JSON and files (the bytes in n8n's memory mode, else n8n's
 * reference) as text, made once when filed: the smallest in memory, as answers are JSON, its
 * length its size, and nothing done to the output's items (a CSV row's columns put in) reaches it.
 */
export function asText(answered: INodeExecutionData[]): string {
	return JSON.stringify(answered.map(({ json, binary }) => (binary ? { json, binary } : { json })));
}
