import { spawn, type ChildProcess } from 'child_process';
import { promises as fs } from 'fs';
import path from 'path';

import type { Page } from 'puppeteer-core';

import { openEditor, pause, type Editor } from './editor/browser';
import { childEnv, freePort, stopChild } from './n8n/processes';
import { ROOT } from './n8n/setup';

/**
 * `npm run screenshots`: what a user sees, captured by a real browser from a real n8n editor.
 * Starts `npm run dev` (n8n 2.x with the package and the sandbox; N8N_PORT / SANDBOX_PORT as
 * there), or uses a running one (`-- --url http://127.0.0.1:5678`), and writes
 * docs/screenshots/*.png (light mode): the node panel searched for "Abstract", the Image
 * Processing and IP Database Download panels, and a credential dialog.
 * `-- --measure` prints, instead, how long an option description may be before the editor's
 * dropdown cuts it (the limit test/editor/descriptionRules.ts holds).
 */
const OUT = path.join(ROOT, 'docs', 'screenshots');
const log = (line: string) => console.log(line);

async function main() {
	const given = argument('--url');
	const dev = given ? undefined : await startDev();
	try {
		const url = given ?? dev!.url;
		if (process.argv.includes('--measure')) await measureOptionDescriptions(url);
		else await captureAll(url);
	} finally {
		if (dev) await stopChild(dev.child);
	}
}

function argument(name: string): string | undefined {
	const at = process.argv.indexOf(name);
	return at >= 0 ? process.argv[at + 1] : undefined;
}

/** `npm run dev`'s script (already built by this npm script), until it prints the editor's address. */
async function startDev(): Promise<{ child: ChildProcess; url: string }> {
	const port = process.env.N8N_PORT ?? String(await freePort());
	log(`Starting npm run dev on port ${port} ...`);
	const child = spawn(process.execPath, [path.join(ROOT, '.out', 'scripts', 'dev.js')], {
		cwd: ROOT,
		env: childEnv({ N8N_PORT: port }),
		stdio: ['ignore', 'pipe', 'inherit'],
	});
	const url = await new Promise<string>((resolve, reject) => {
		let seen = '';
		child.stdout!.on('data', (chunk: Buffer) => {
			seen += chunk.toString('utf8');
			const ready = /n8n is ready: (\S+)/.exec(seen);
			if (ready) resolve(ready[1]);
		});
		child.once('exit', (code) => reject(new Error(`npm run dev stopped (exit ${code}):\n${seen.slice(-2000)}`)));
	});
	child.stdout!.resume();
	return { child, url };
}

interface WorkflowNode {
	id: string;
	name: string;
	type: string;
	parameters: Record<string, unknown>;
	credentials?: Record<string, { id: string; name: string }>;
}

/** A workflow saved through the editor's API, holding the nodes whose panels are captured. */
async function saveWorkflow(editor: Editor, name: string, nodes: WorkflowNode[]): Promise<string> {
	const saved = await editor.api<{ id: string }>('POST', '/rest/workflows', {
		name,
		active: false,
		settings: {},
		connections: {},
		nodes: nodes.map((node, index) => ({ ...node, typeVersion: 1, position: [index * 300, 0] })),
	});
	return saved.id;
}

/** Opens a node's panel (n8n opens it from the address /workflow/<id>/<node id>). */
async function openPanel(page: Page, url: string, workflowId: string, nodeId: string) {
	await page.goto(`${url}/workflow/${workflowId}/${nodeId}`, { waitUntil: 'networkidle2' });
	await page.waitForSelector('[data-test-id="ndv"]', { visible: true });
	await pause(1500);
}

async function shoot(page: Page, selector: string, file: string) {
	const element = await page.waitForSelector(selector, { visible: true });
	await element!.screenshot({ path: path.join(OUT, file) as `${string}.png` });
	const { size } = await fs.stat(path.join(OUT, file));
	log(`  docs/screenshots/${file} (${Math.round(size / 1024)} KB)`);
}

/** A screenshot of the area that holds all these elements, with a margin. */
async function shootArea(page: Page, selectors: string[], file: string) {
	// The first visible match of each: the editor keeps hidden copies of dropdowns around.
	const boxes = await page.evaluate((selectors: string[]) => {
		return selectors.map((selector) => {
			const element = [...document.querySelectorAll<HTMLElement>(selector)].find((candidate) => candidate.offsetParent !== null);
			if (!element) throw new Error(`nothing visible matches ${selector}`);
			const { x, y, width, height } = element.getBoundingClientRect();
			return { x, y, width, height };
		});
	}, selectors);
	const left = Math.max(0, Math.min(...boxes.map((box) => box.x)) - 8);
	const top = Math.max(0, Math.min(...boxes.map((box) => box.y)) - 8);
	const right = Math.max(...boxes.map((box) => box.x + box.width)) + 8;
	const bottom = Math.max(...boxes.map((box) => box.y + box.height)) + 8;
	await page.screenshot({ path: path.join(OUT, file) as `${string}.png`, clip: { x: left, y: top, width: right - left, height: bottom - top } });
	const { size } = await fs.stat(path.join(OUT, file));
	log(`  docs/screenshots/${file} (${Math.round(size / 1024)} KB)`);
}

async function captureAll(url: string) {
	await fs.mkdir(OUT, { recursive: true });
	const editor = await openEditor(url, { width: 1280, height: 1200 });
	const { page } = editor;
	try {
		const workflowId = await saveWorkflow(editor, 'Editor screenshots', [
			{
				id: 'images',
				name: 'Image Processing',
				type: 'n8n-nodes-abstractapi.abstractImages',
				parameters: { resizeStrategy: 'crop', url: 'https://example.com/team.jpg', options: { downloadResult: true } },
			},
			{ id: 'database', name: 'IP Database Download', type: 'n8n-nodes-abstractapi.abstractIpDatabase', parameters: {} },
		]);
		log('Capturing ...');

		// The node panel, searched as a user looks for the package.
		await page.goto(`${url}/workflow/new`, { waitUntil: 'networkidle2' });
		await page.click('[data-test-id="node-creator-plus-button"]');
		const search = await page.waitForSelector('[data-test-id="node-creator"] input', { visible: true });
		await search!.type('Abstract');
		await pause(1500);
		await shoot(page, '[data-test-id="node-creator"]', 'node-panel.png');

		// Image Processing with a strategy that uses every kind of key, and the download on.
		await openPanel(page, url, workflowId, 'images');
		await shoot(page, '[data-test-id="ndv"] [data-test-id="node-parameters"]', 'image-processing.png');

		// A new credential, as a user meets it first: empty key, empty Base URL (the live one).
		await page.click('[data-test-id="node-credentials-select"]');
		await page.click(await visible(page, '[data-test-id="node-credentials-select-item-new"]'));
		await pause(1500);
		await shoot(page, '[data-test-id="editCredential-modal"]', 'credential.png');

		// IP Database Download with the Output list open: every option's description whole.
		await openPanel(page, url, workflowId, 'database');
		await page.click('[data-test-id="parameter-input-output"] input');
		await pause(800);
		await shootArea(page, ['[data-test-id="ndv"] .parameter-input-list-wrapper', '.el-select-dropdown'], 'ip-database.png');
	} finally {
		await editor.close();
	}
}

/** The selector of the one visible element among those that match (the editor keeps hidden copies). */
async function visible(page: Page, selector: string): Promise<string> {
	await page.waitForSelector(selector, { visible: true });
	return selector;
}

/**
 * How many characters of prose an option description may have before the dropdown cuts it: the
 * editor clamps it to two lines; this fills the first visible description with ever longer
 * prefixes of a few texts and reports the longest that still takes two lines.
 */
async function measureOptionDescriptions(url: string) {
	const editor = await openEditor(url);
	const { page } = editor;
	try {
		const workflowId = await saveWorkflow(editor, 'Measure option descriptions', [
			{ id: 'database', name: 'IP Database Download', type: 'n8n-nodes-abstractapi.abstractIpDatabase', parameters: {} },
		]);
		for (const viewport of [{ width: 1024, height: 768 }, { width: 1280, height: 800 }, { width: 1920, height: 1080 }]) {
			await page.setViewport(viewport);
			await openPanel(page, url, workflowId, 'database');
			await page.click('[data-test-id="parameter-input-database"] input');
			await pause(800);
			const result = await page.evaluate((probes: string[]) => {
				const element = [...document.querySelectorAll<HTMLElement>('.option-description--clamped')].find((e) => e.offsetParent)!;
				const style = getComputedStyle(element);
				const linesOf = (text: string) => {
					element.textContent = text;
					element.style.setProperty('-webkit-line-clamp', 'unset');
					const lines = Math.round(element.scrollHeight / parseFloat(style.lineHeight));
					element.style.removeProperty('-webkit-line-clamp');
					return lines;
				};
				const longest = (text: string) => {
					let fits = 0;
					for (let length = 1; length <= text.length && linesOf(text.slice(0, length)) <= 2; length++) fits = length;
					return fits;
				};
				return { clamp: style.webkitLineClamp, width: element.clientWidth, font: style.font, longest: probes.map(longest) };
			}, PROBES);
			log(
				`${viewport.width}x${viewport.height}: clamped to ${result.clamp} lines of ${result.width} px (${result.font}); ` +
					`longest prose that stays whole: ${result.longest.join(', ')} characters (shortest ${Math.min(...result.longest)})`,
			);
		}
	} finally {
		await editor.close();
	}
}

/** Prose of the kind option descriptions hold, long enough to be cut. */
const PROBES = [
	'No download: the link and its validity (URL, expires_in). The link is a secret that expires: anyone holding it can download the licensed database until then.',
	'Whether a network is a VPN, proxy, Tor node, hosting provider, relay, mobile network or abuse source. Rebuilt daily, checked against its SHA-256.',
	'POST with the key in an Authorization header: neither key nor personal data in a URL, so proxies and server logs never record either of them.',
	"The .mmdb or .csv file taken out of the archive, its SHA-256 checked against the archive's .sha256 file, with the MMDB or CSV header.",
];

main().catch((error: Error) => {
	console.error(`npm run screenshots failed: ${error.stack ?? error.message}`);
	process.exit(1);
});
