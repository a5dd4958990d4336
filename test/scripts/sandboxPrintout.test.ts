import * as fs from 'fs';
import * as path from 'path';

import { readmeSteps, stepAbout, tokensOfStep } from '../../scripts/n8n/readmeSteps';
import { sandboxLines } from '../../scripts/sandboxPrintout';
import { startSandbox, type Sandbox } from '../sandbox/server';

/**
 * What `npm run sandbox` prints is read beside the README: it tells the way to a new credential
 * by the same names as the README's step, which the newcomer e2e clicks in n8n 2.41.1, in the
 * same order. A printout that keeps a menu n8n no longer has ("Credentials > Add Credential")
 * sends a person looking for it.
 */
const readme = fs.readFileSync(path.resolve(__dirname, '../../README.md'), 'utf8');

let sandbox: Sandbox;
beforeAll(async () => {
	sandbox = await startSandbox();
});
afterAll(async () => await sandbox.close());

it("names the way to a new credential as the README's step does, in its order", () => {
	const names = tokensOfStep(stepAbout(readmeSteps(readme), /credential/i))
		.filter((token) => token.kind === 'name')
		.map((token) => token.text);
	expect(names).toEqual(expect.arrayContaining(['+', 'New credential', 'Save']));
	const way = sandboxLines(sandbox, 1).find((line) => line.startsWith('In n8n,'));
	expect(way).toBeDefined();
	// Each name whole, each after the one before it.
	let from = 0;
	const missing: string[] = [];
	for (const name of names) {
		const at = way!
			.slice(from)
			.search(new RegExp(`(?<![\\w])${name.replace(/[+]/g, '\\+')}(?![\\w])`));
		if (at < 0) missing.push(name);
		else from += at + name.length;
	}
	expect({ way, missing }).toEqual({ way, missing: [] });
});

it('gives every credential type its Base URL and API Key', () => {
	const lines = sandboxLines(sandbox, 1);
	for (const [service, baseUrl] of Object.entries(sandbox.baseUrls))
		expect(
			lines.some((line) => line.includes(baseUrl) && line.includes(sandbox.keys[service])),
		).toBe(true);
});
