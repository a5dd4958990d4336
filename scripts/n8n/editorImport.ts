import { openEditor, pause } from '../editor/browser';
import type { Workflow } from './examples';

/** A workflow file imported through the editor, as n8n saved it, and what the editor said. */
export interface EditorImport {
	file: string;
	workflow: Workflow;
	/** The texts of the notifications the import showed ("Credentials auto-added ..."). */
	notices: string[];
}

/**
 * Imports workflow files as a person does in the editor (Workflows → Import from File: the
 * editor's file input on a new workflow), saves each (Ctrl+S) and reads back what n8n stored:
 * so what the editor does with the file's credential references is what the caller checks.
 * Debian's Chromium drives the editor (scripts/editor/browser.ts).
 */
export async function importThroughEditor(url: string, files: string[]): Promise<EditorImport[]> {
	const editor = await openEditor(url);
	const { page } = editor;
	const imported: EditorImport[] = [];
	// The editor gives a new workflow its id before the save reaches n8n: wait for the save.
	const saved = async (id: string): Promise<Workflow> => {
		for (let attempt = 0; ; attempt++) {
			try {
				return await editor.api<Workflow>('GET', `/rest/workflows/${id}`);
			} catch (error) {
				if (attempt >= 60) throw error;
				await pause(500);
			}
		}
	};
	try {
		for (const file of files) {
			await page.goto(`${url}/workflow/new`, { waitUntil: 'networkidle2' });
			const input = await page.waitForSelector('input[type="file"]', { timeout: 30_000 });
			await input!.uploadFile(file);
			await page.waitForFunction(
				() => document.querySelectorAll('[data-test-id="canvas-node"]').length > 0,
				{ timeout: 30_000 },
			);
			await pause(1500);
			const notices = await page.evaluate(() =>
				[...document.querySelectorAll('.el-notification')].map((element) =>
					(element as HTMLElement).innerText.replace(/\s+/g, ' ').trim(),
				),
			);
			await page.keyboard.down('Control');
			await page.keyboard.press('s');
			await page.keyboard.up('Control');
			await page.waitForFunction(
				() => /\/workflow\/[^/]+$/.test(location.pathname) && !location.pathname.endsWith('/new'),
				{ timeout: 30_000 },
			);
			const id = page.url().split('/').pop()!.split('?')[0];
			imported.push({ file, workflow: await saved(id), notices });
		}
	} finally {
		await editor.close();
	}
	return imported;
}
