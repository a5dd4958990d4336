import { spawn, type ChildProcess } from 'child_process';
import { promises as fs } from 'fs';
import path from 'path';

import type { Page } from 'puppeteer-core';

import { openEditor, pause, type Editor } from './editor/browser';
import { childEnv, freePort, stopChild } from './n8n/processes';
import { ROOT } from './n8n/setup';
import { exampleCredentialId, exampleCredentialName } from '../test/harness/sandboxCredentials';

/**
 * `npm run screenshots`: what a user sees, captured by a real browser from a real n8n editor.
 * Starts `npm run dev` (n8n 2.x with the package and the sandbox; N8N_PORT / SANDBOX_PORT as
 * there), or uses a running one (`-- --url http://127.0.0.1:5678`), and writes
 * docs/screenshots/*.png (light mode): the node panel searched for "Abstract", the Image
 * Processing and IP Database Download panels, and a credential dialog. Before them it checks, in
 * the editor, Image Processing's two versions: a new node is version 2 and shows Put Output File
 * in Field only with Download Result on; a saved version 1 workflow still runs and downloads. And
 * that IP Database Lookup's Database Node follows the download node renamed on the canvas, and a
 * new lookup node shows no error.
 * `-- --measure` prints, instead, how long an option description may be before the editor's
 * dropdown cuts it (the limit test/editor/descriptionRules.ts holds).
 */
/** Where the pictures go: docs/screenshots, or `-- --out <folder>`. */
const OUT = argument('--out') ?? path.join(ROOT, 'docs', 'screenshots');
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
		child.once('exit', (code) =>
			reject(new Error(`npm run dev stopped (exit ${code}):\n${seen.slice(-2000)}`)),
		);
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
	/** Default 1; the editor gives a new node its latest version. */
	typeVersion?: number;
}

/** A workflow saved through the editor's API, holding the nodes whose panels are captured. */
async function saveWorkflow(
	editor: Editor,
	name: string,
	nodes: WorkflowNode[],
	connections: Record<string, unknown> = {},
): Promise<string> {
	const saved = await editor.api<{ id: string }>('POST', '/rest/workflows', {
		name,
		active: false,
		settings: {},
		connections,
		nodes: nodes.map((node, index) => ({ typeVersion: 1, ...node, position: [index * 300, 0] })),
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
	log(`  ${path.join(OUT, file)} (${Math.round(size / 1024)} KB)`);
}

/** A screenshot of the area that holds all these elements, with a margin. */
async function shootArea(page: Page, selectors: string[], file: string) {
	// The first visible match of each: the editor keeps hidden copies of dropdowns around.
	const boxes = await page.evaluate((selectors: string[]) => {
		return selectors.map((selector) => {
			const element = [...document.querySelectorAll<HTMLElement>(selector)].find(
				(candidate) => candidate.offsetParent !== null,
			);
			if (!element) throw new Error(`nothing visible matches ${selector}`);
			const { x, y, width, height } = element.getBoundingClientRect();
			return { x, y, width, height };
		});
	}, selectors);
	const left = Math.max(0, Math.min(...boxes.map((box) => box.x)) - 8);
	const top = Math.max(0, Math.min(...boxes.map((box) => box.y)) - 8);
	const right = Math.max(...boxes.map((box) => box.x + box.width)) + 8;
	const bottom = Math.max(...boxes.map((box) => box.y + box.height)) + 8;
	await page.screenshot({
		path: path.join(OUT, file) as `${string}.png`,
		clip: { x: left, y: top, width: right - left, height: bottom - top },
	});
	const { size } = await fs.stat(path.join(OUT, file));
	log(`  ${path.join(OUT, file)} (${Math.round(size / 1024)} KB)`);
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
				typeVersion: 2,
				parameters: {
					resizeStrategy: 'crop',
					url: 'https://example.com/team.jpg',
					downloadResult: true,
				},
			},
			{
				id: 'database',
				name: 'IP Database Download',
				type: 'n8n-nodes-abstractapi.abstractIpDatabase',
				parameters: {},
			},
		]);
		await checkImageVersions(editor);
		await checkDatabaseRename(editor);
		log('Capturing ...');

		// The node panel, searched as a user looks for the package.
		await page.goto(`${url}/workflow/new`, { waitUntil: 'networkidle2' });
		await page.click('[data-test-id="node-creator-plus-button"]');
		const search = await page.waitForSelector('[data-test-id="node-creator"] input', {
			visible: true,
		});
		await search!.type('Abstract');
		await pause(1500);
		await shoot(page, '[data-test-id="node-creator"]', 'node-panel.png');

		// Image Processing with a strategy that uses every kind of key, and the download on.
		await openPanel(page, url, workflowId, 'images');
		await shoot(
			page,
			'[data-test-id="ndv"] [data-test-id="node-parameters"]',
			'image-processing.png',
		);

		// A new credential, as a user meets it first: empty key, empty Base URL (the live one).
		await page.click('[data-test-id="node-credentials-select"]');
		await page.click(await visible(page, '[data-test-id="node-credentials-select-item-new"]'));
		await pause(1500);
		await shoot(page, '[data-test-id="editCredential-modal"]', 'credential.png');

		// IP Database Download with the Output list open: every option's description whole.
		await openPanel(page, url, workflowId, 'database');
		await page.click('[data-test-id="parameter-input-output"] input');
		await pause(800);
		await shootArea(
			page,
			['[data-test-id="ndv"] .parameter-input-list-wrapper', '.el-select-dropdown'],
			'ip-database.png',
		);
	} finally {
		await editor.close();
	}
}

const IMAGES = 'n8n-nodes-abstractapi.abstractImages';
const IMAGES_CREDENTIAL = {
	abstractImagesApi: {
		id: exampleCredentialId('abstractImagesApi'),
		name: exampleCredentialName('abstractImagesApi'),
	},
};

/** The labels of the parameters the open node panel shows, in order. */
const panelLabels = (page: Page) =>
	page.evaluate(() =>
		[
			...document.querySelectorAll<HTMLElement>(
				'[data-test-id="ndv"] [data-test-id="node-parameters"] [data-test-id^="parameter-input-"]',
			),
		]
			.filter((element) => element.offsetParent !== null)
			.map((element) => element.getAttribute('data-test-id')!.replace('parameter-input-', ''))
			// parameter-input-field is a text input inside a parameter, not a parameter.
			.filter((name) => name !== 'field'),
	);

/**
 * Image Processing in the editor, by version: a node added from the node panel is version 2 and
 * shows Put Output File in Field only once Download Result is on; a workflow saved with version 1
 * and the Download Result option runs from the editor's Execute button and downloads the image.
 */
async function checkImageVersions(editor: Editor) {
	const { page, url } = editor;
	const check = (what: string, ok: boolean, detail: unknown) => {
		log(`  ${ok ? 'ok  ' : 'FAIL'} ${what}: ${JSON.stringify(detail)}`);
		if (!ok) throw new Error(`Image Processing versions: ${what}`);
	};
	log('Checking Image Processing versions in the editor ...');

	// A new node, as a user adds it: the node panel, searched, Enter.
	await page.goto(`${url}/workflow/new`, { waitUntil: 'networkidle2' });
	await addFromNodePanel(page, 'Abstract Image Processing');
	const off = await panelLabels(page);
	check(
		'a new node shows Download Result, not Put Output File in Field',
		off.includes('downloadResult') && !off.includes('outputBinaryPropertyName'),
		off,
	);
	await page.click('[data-test-id="parameter-input-downloadResult"] .el-switch');
	await pause(800);
	const on = await panelLabels(page);
	check(
		'with Download Result on, Put Output File in Field follows it',
		on.indexOf('outputBinaryPropertyName') === on.indexOf('downloadResult') + 1,
		on,
	);
	// A field name of the user's own: the value n8n dropped when Download Result was an option.
	await page.click('[data-test-id="parameter-input-outputBinaryPropertyName"] input', {
		clickCount: 3,
	});
	await page.keyboard.type('small');
	await pause(800);
	// Saved as the editor saves it (Ctrl+S), then read back: the version n8n stored for the new node.
	await page.click('[data-test-id="ndv-close-button"]');
	await pause(800);
	const stored = await saveInEditor(editor);
	const added = stored.nodes.find((node) => node.type === IMAGES);
	const version = added?.typeVersion;
	check(
		'the saved new node keeps Put Output File in Field',
		added?.parameters.outputBinaryPropertyName === 'small' &&
			added?.parameters.downloadResult === true,
		added?.parameters,
	);
	check('the new node is version 2', version === 2, version);

	// A version 1 workflow as saved before version 2 existed: the option inside Options.
	const saved = await saveWorkflow(
		editor,
		'Image Processing version 1',
		[
			{ id: 'start', name: 'Start', type: 'n8n-nodes-base.manualTrigger', parameters: {} },
			{
				id: 'images-v1',
				name: 'Image Processing',
				type: IMAGES,
				typeVersion: 1,
				parameters: {
					url: 'https://cdn.example.com/team.png',
					binaryPropertyName: 'small',
					resizeStrategy: 'square',
					size: 48,
					options: { downloadResult: true },
				},
				credentials: IMAGES_CREDENTIAL,
			},
		],
		{ Start: { main: [[{ node: 'Image Processing', type: 'main', index: 0 }]] } },
	);
	await page.goto(`${url}/workflow/${saved}`, { waitUntil: 'networkidle2' });
	await pause(1500);
	await page.click('[data-test-id="execute-workflow-button"]');
	let execution: { id: string; status: string } | undefined;
	for (
		let tries = 0;
		tries < 60 && !['success', 'error', 'crashed'].includes(execution?.status ?? '');
		tries++
	) {
		await pause(500);
		const list = await editor.api<{
			results: Array<{ id: string; status: string; workflowId: string }>;
		}>(
			'GET',
			`/rest/executions?filter=${encodeURIComponent(JSON.stringify({ workflowId: saved }))}`,
		);
		execution = list.results[0];
	}
	check('the saved version 1 workflow runs', execution?.status === 'success', {
		id: execution?.id,
		status: execution?.status,
	});
	const full = await editor.api<{ data: string }>('GET', `/rest/executions/${execution!.id}`);
	const run = unflatten(full.data) as {
		resultData: {
			runData: Record<
				string,
				Array<{
					data: {
						main: Array<
							Array<{ binary?: Record<string, { mimeType: string; fileSize?: string }> }>
						>;
					};
				}>
			>;
		};
	};
	const output = run.resultData.runData['Image Processing']?.[0]?.data.main[0][0];
	const small = output?.binary?.small;
	check('and downloads the processed image into its field', small?.mimeType === 'image/png', {
		binary: Object.keys(output?.binary ?? {}),
		mimeType: small?.mimeType,
		fileSize: small?.fileSize,
	});
}

/** Adds a node as a user does: the node panel (after the selected node, if any), searched, its "Add to workflow". */
async function addFromNodePanel(page: Page, search: string) {
	await page.click('[data-test-id="node-creator-plus-button"]');
	const input = await page.waitForSelector('[data-test-id="node-creator"] input', {
		visible: true,
	});
	await input!.type(search);
	await pause(1000);
	// A community node opens its details first; its "Add to workflow" button adds it.
	await page.click('[data-test-id="node-creator-item-name"]');
	await pause(1500);
	await page.evaluate(() =>
		[...document.querySelectorAll<HTMLElement>('[data-test-id="node-creator"] button')]
			.find((button) => /Add to workflow/.test(button.textContent ?? ''))
			?.click(),
	);
	await page.waitForSelector('[data-test-id="ndv"]', { visible: true });
	await pause(1500);
}

interface StoredWorkflow {
	nodes: Array<{
		name: string;
		type: string;
		typeVersion: number;
		parameters: Record<string, unknown>;
	}>;
}

/** Saves the open workflow as the editor does (Ctrl+S) and reads back what n8n stored. */
async function saveInEditor(editor: Editor): Promise<StoredWorkflow> {
	const { page } = editor;
	await page.keyboard.down('Control');
	await page.keyboard.press('s');
	await page.keyboard.up('Control');
	await page.waitForFunction(
		() => /\/workflow\/[^/]+$/.test(location.pathname) && !location.pathname.endsWith('/new'),
		{ timeout: 15000 },
	);
	await pause(800);
	const id = page.url().split('/').pop()!.split('?')[0];
	return await editor.api<StoredWorkflow>('GET', `/rest/workflows/${id}`);
}

/**
 * IP Database Lookup in the editor. First sight: a new node on a canvas without a download node
 * shows no error (its Database Node is empty, not an expression naming a node that is not
 * there) and its hint says what to connect (captured: ip-lookup-first-sight.png). Renames: a
 * saved workflow whose Database Node (and a More Databases entry) name the download node as an
 * expression follows the node renamed on the canvas (F2); an empty one stays empty (the node
 * before it is found by its type).
 */
async function checkDatabaseRename(editor: Editor) {
	const { page, url } = editor;
	const check = (what: string, ok: boolean, detail: unknown) => {
		log(`  ${ok ? 'ok  ' : 'FAIL'} ${what}: ${JSON.stringify(detail)}`);
		if (!ok) throw new Error(`IP Database Lookup: ${what}`);
	};
	log(
		'Checking IP Database Lookup: a new node shows no error, and follows a renamed download node ...',
	);
	await page.goto(`${url}/workflow/new`, { waitUntil: 'networkidle2' });
	await addFromNodePanel(page, 'Abstract IP Database Lookup');
	const panel = await page.evaluate(
		() =>
			document.querySelector<HTMLElement>('[data-test-id="ndv"] [data-test-id="node-parameters"]')
				?.innerText ?? '',
	);
	check(
		'a new node shows no "Referenced node" error',
		!/doesn.t exist|\[ERROR/i.test(panel),
		panel.match(/.*(doesn.t exist|\[ERROR).*/i)?.[0] ?? 'none',
	);
	check(
		'its hint says what to connect',
		panel.includes('Empty: the file from the IP Database Download node connected before this one'),
		panel.slice(0, 400),
	);
	await shoot(
		page,
		'[data-test-id="ndv"] [data-test-id="node-parameters"]',
		'ip-lookup-first-sight.png',
	);

	const named = "={{ $('IP Database Download').first() }}";
	const workflowId = await saveWorkflow(
		editor,
		'IP Database Lookup renames',
		[
			{
				id: 'database',
				name: 'IP Database Download',
				type: 'n8n-nodes-abstractapi.abstractIpDatabase',
				parameters: {},
			},
			{
				id: 'named',
				name: 'Lookup, node named',
				type: 'n8n-nodes-abstractapi.abstractIpLookup',
				parameters: {
					ipAddress: '8.8.8.8',
					databaseNode: named,
					moreDatabases: {
						databases: [
							{ databaseSource: 'fromNode', databaseNode: named, binaryPropertyName: 'data' },
						],
					},
				},
			},
			{
				id: 'empty',
				name: 'Lookup, default',
				type: 'n8n-nodes-abstractapi.abstractIpLookup',
				parameters: { ipAddress: '8.8.8.8' },
			},
		],
		{
			'IP Database Download': { main: [[{ node: 'Lookup, node named', type: 'main', index: 0 }]] },
			'Lookup, node named': { main: [[{ node: 'Lookup, default', type: 'main', index: 0 }]] },
		},
	);
	await page.goto(`${url}/workflow/${workflowId}`, { waitUntil: 'networkidle2' });
	await pause(1500);
	await page.click('[data-test-id="canvas-node"][data-node-name="IP Database Download"]');
	await page.keyboard.press('F2');
	await pause(800);
	await page.keyboard.type('GeoLite Weekly');
	await page.keyboard.press('Enter');
	await pause(1200);
	const saved = await saveInEditor(editor);
	const lookup = (name: string) => saved.nodes.find((node) => node.name === name)?.parameters ?? {};
	const renamed = "={{ $('GeoLite Weekly').first() }}";
	const more =
		(
			lookup('Lookup, node named').moreDatabases as
				| { databases?: Array<{ databaseNode?: string }> }
				| undefined
		)?.databases ?? [];
	check(
		'Database Node names the renamed node',
		lookup('Lookup, node named').databaseNode === renamed,
		lookup('Lookup, node named').databaseNode,
	);
	check(
		'so does the More Databases entry',
		more.length === 1 && more[0].databaseNode === renamed,
		more,
	);
	check(
		'an empty Database Node stays empty',
		(lookup('Lookup, default').databaseNode ?? '') === '',
		lookup('Lookup, default').databaseNode,
	);
}

/**
 * The execution data as the REST API gives it: n8n's "flatted" form, a JSON array whose first
 * entry is the root and where every string is the index of the entry holding the value.
 */
function unflatten(text: string): unknown {
	const entries = JSON.parse(text) as unknown[];
	const done = new Map<number, unknown>();
	const revive = (index: number): unknown => {
		if (done.has(index)) return done.get(index);
		const entry = entries[index];
		if (entry === null || typeof entry !== 'object') {
			done.set(index, entry);
			return entry;
		}
		const copy: Record<string, unknown> | unknown[] = Array.isArray(entry) ? [] : {};
		done.set(index, copy);
		for (const [key, value] of Object.entries(entry)) {
			(copy as Record<string, unknown>)[key] =
				typeof value === 'string' ? revive(Number(value)) : value;
		}
		return copy;
	};
	return revive(0);
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
			{
				id: 'database',
				name: 'IP Database Download',
				type: 'n8n-nodes-abstractapi.abstractIpDatabase',
				parameters: {},
			},
		]);
		for (const viewport of [
			{ width: 1024, height: 768 },
			{ width: 1280, height: 800 },
			{ width: 1920, height: 1080 },
		]) {
			await page.setViewport(viewport);
			await openPanel(page, url, workflowId, 'database');
			await page.click('[data-test-id="parameter-input-database"] input');
			await pause(800);
			const result = await page.evaluate((probes: string[]) => {
				const element = [
					...document.querySelectorAll<HTMLElement>('.option-description--clamped'),
				].find((e) => e.offsetParent)!;
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
					for (
						let length = 1;
						length <= text.length && linesOf(text.slice(0, length)) <= 2;
						length++
					)
						fits = length;
					return fits;
				};
				return {
					clamp: style.webkitLineClamp,
					width: element.clientWidth,
					font: style.font,
					longest: probes.map(longest),
				};
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
