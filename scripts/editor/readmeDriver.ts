import type { ElementHandle, Page } from 'puppeteer-core';

import type { Token } from '../n8n/readmeSteps';
import { pause } from './browser';

/**
 * A person's hands on n8n's editor, moved by the README's words: each name a step gives in bold
 * is clicked (a button, a menu item, an option) or filled (a field's label) as it stands, and a
 * quote in italics is what the person types to pick from a list. The two signs the README gives
 * for the editor's icon buttons are the icons themselves: `+` (the sidebar's add menu) and `…`
 * (a workflow's menu). Nothing else is known here of n8n's markup: a name the editor does not show
 * fails the step, naming it.
 */
const ICONS: Record<string, string> = {
	'+': '[data-test-id="universal-add"]',
	'…': '[data-test-id="workflow-menu"]',
};

/** What the person types or picks on the way: field values by label, the file to upload, what to pick from a list. */
export interface StepValues {
	fields?: Record<string, string>;
	file?: string;
	pick?: string;
}

/** How long the editor may take to show what a click asked for. */
const SHOWN_WITHIN_MS = 20_000;

/** Follows a step's tokens in order on the page. */
export async function follow(page: Page, tokens: Token[], values: StepValues): Promise<void> {
	for (const token of tokens) {
		if (token.kind === 'quote') {
			if (values.pick === undefined) continue;
			await pickFromList(page, values.pick);
		} else if (ICONS[token.text]) {
			await clickWithUpload(page, await shown(page, token.text, ICONS[token.text]), values);
		} else if (await fieldLabelled(page, token.text)) {
			const value = values.fields?.[token.text];
			if (value === undefined)
				throw new Error(
					`the README asks to fill in "${token.text}", which the e2e has no value for`,
				);
			await fill(page, token.text, value);
		} else {
			await clickWithUpload(page, await named(page, token.text), values);
		}
		await pause(600);
	}
}

/** An element for a sign, once the editor shows it. */
async function shown(page: Page, sign: string, selector: string): Promise<ElementHandle<Element>> {
	const element = await page
		.waitForSelector(selector, { visible: true, timeout: SHOWN_WITHIN_MS })
		.catch(() => null);
	if (!element) throw new Error(`the editor shows no "${sign}" (${selector})`);
	return element;
}

/**
 * The visible button, menu item, option or link whose whole text is the name, once the editor
 * shows it; inside the open dialog when there is one (its "Publish" before the page's).
 */
async function named(page: Page, name: string): Promise<ElementHandle<Element>> {
	const deadline = Date.now() + SHOWN_WITHIN_MS;
	for (;;) {
		const handle = await page.evaluateHandle((name: string) => {
			const clickable =
				'button, a, [role="menuitem"], [role="option"], li, [role="tab"], .el-dropdown-menu__item';
			const text = (element: Element) =>
				(element as HTMLElement).innerText?.replace(/\s+/g, ' ').trim();
			const visible = [...document.querySelectorAll(clickable)].filter(
				(element) => (element as HTMLElement).offsetParent !== null && text(element) === name,
			);
			// The innermost element of that text (a menu item, not the menu that holds it).
			const innermost = visible.filter(
				(element) => !visible.some((other) => other !== element && element.contains(other)),
			);
			const inDialog = innermost.filter((element) => element.closest('[role="dialog"]'));
			return (inDialog.length > 0 ? inDialog : innermost).at(-1) ?? null;
		}, name);
		const element = handle.asElement() as ElementHandle<Element> | null;
		if (element) return element;
		if (Date.now() > deadline) throw new Error(`the editor shows nothing named "${name}"`);
		await pause(300);
	}
}

/** Clicks (after a hover, which opens a submenu), and hands over the file if the click asks for one. */
async function clickWithUpload(
	page: Page,
	element: ElementHandle<Element>,
	values: StepValues,
): Promise<void> {
	await element.hover();
	const chooser = page.waitForFileChooser({ timeout: 2000 }).catch(() => null);
	await element.click();
	const asked = await chooser;
	if (!asked) return;
	if (!values.file) throw new Error('the editor asks for a file the step gives none for');
	await asked.accept([values.file]);
}

/** Whether the open dialog has a field of this label. */
async function fieldLabelled(page: Page, name: string): Promise<boolean> {
	return await page.evaluate((name: string) => {
		return [...document.querySelectorAll('[role="dialog"] label')].some(
			(label) =>
				(label as HTMLElement).offsetParent !== null &&
				// The label's first line: its name, then a "*" when required (its Fixed/Expression switch below).
				(label as HTMLElement).innerText.split('\n')[0].replace('*', '').trim() === name,
		);
	}, name);
}

/** The input of the open dialog's field of that label (n8n puts it beside the label's row). */
async function inputOf(page: Page, name: string): Promise<ElementHandle<HTMLInputElement>> {
	const handle = await page.evaluateHandle((name: string) => {
		const label = [...document.querySelectorAll('[role="dialog"] label')].find(
			(each) => (each as HTMLElement).innerText.split('\n')[0].replace('*', '').trim() === name,
		);
		return (
			label?.parentElement?.parentElement?.querySelector(
				'input[data-test-id="parameter-input-field"], textarea',
			) ?? null
		);
	}, name);
	const input = handle.asElement() as ElementHandle<HTMLInputElement> | null;
	if (!input) throw new Error(`the field "${name}" has no input`);
	return input;
}

/** Types a value into the field of that label, key by key as a person does (the editor re-renders as it goes). */
async function fill(page: Page, name: string, value: string): Promise<void> {
	await (await inputOf(page, name)).click();
	await pause(300);
	await page.keyboard.type(value, { delay: 15 });
	await pause(300);
	const typed = await (await inputOf(page, name)).evaluate((input) => input.value);
	if (typed !== value) throw new Error(`"${name}" holds ${JSON.stringify(typed)} after typing`);
}

/** Types into the list's search field (it has the focus) and picks the entry of that exact text. */
async function pickFromList(page: Page, entry: string): Promise<void> {
	await page.keyboard.type(entry, { delay: 15 });
	await clickWithUpload(page, await named(page, entry), {});
}
