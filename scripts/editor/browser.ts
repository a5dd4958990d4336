import { promises as fs } from 'fs';
import os from 'os';
import path from 'path';

import puppeteer, { type Browser, type Page } from 'puppeteer-core';

import { LOCAL_OWNER } from '../n8n/instance';

/**
 * A real Chromium (Debian's) driving a real n8n editor: a fresh profile each time, light mode,
 * nothing that reaches the network on its own.
 */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

const FLAGS = [
	'--headless',
	'--no-sandbox',
	'--disable-gpu',
	'--disable-quic',
	'--no-first-run',
	'--disable-background-networking',
	'--disable-component-update',
	'--disable-sync',
];

export interface Editor {
	browser: Browser;
	page: Page;
	url: string;
	/** A REST call of the editor's API, made by the page with its session (cookie and browser id). */
	api<T>(method: string, route: string, body?: unknown): Promise<T>;
	close(): Promise<void>;
}

/** Opens the editor at `url` and signs in as the local owner of `npm run dev`. */
export async function openEditor(
	url: string,
	viewport = { width: 1280, height: 800 },
): Promise<Editor> {
	const profile = await fs.mkdtemp(path.join(os.tmpdir(), 'n8n-abstractapi-chromium-'));
	const browser = await puppeteer.launch({
		executablePath: CHROMIUM,
		headless: true,
		userDataDir: profile,
		args: FLAGS,
	});
	const page = await browser.newPage();
	await page.setViewport(viewport);
	await page.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: 'light' }]);
	await page.evaluateOnNewDocument(() => localStorage.setItem('N8N_THEME', 'light'));
	await page.goto(`${url}/signin`, { waitUntil: 'networkidle2' });

	const api = async <T>(method: string, route: string, body?: unknown): Promise<T> => {
		const answer = await page.evaluate(
			async (method, route, body) => {
				const response = await fetch(route, {
					method,
					headers: {
						'content-type': 'application/json',
						'browser-id': localStorage.getItem('n8n-browserId') ?? '',
					},
					body: body === undefined ? undefined : JSON.stringify(body),
				});
				return { status: response.status, text: await response.text() };
			},
			method,
			route,
			body as object,
		);
		if (answer.status !== 200)
			throw new Error(`${method} ${route}: HTTP ${answer.status} ${answer.text.slice(0, 200)}`);
		return (JSON.parse(answer.text) as { data: T }).data;
	};
	await api('POST', '/rest/login', {
		emailOrLdapLoginId: LOCAL_OWNER.email,
		password: LOCAL_OWNER.password,
	});

	return {
		browser,
		page,
		url,
		api,
		close: async () => {
			await browser.close();
			await fs.rm(profile, { recursive: true, force: true });
		},
	};
}

export const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
