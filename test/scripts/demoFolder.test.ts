import { spawn } from 'child_process';
import { mkdtempSync, readdirSync, rmSync } from 'fs';
import os from 'os';
import path from 'path';

/**
 * `npm run demo` plays n8n in a temporary folder of its own (n8n's home, user folder and binary
 * data, and the files the examples write) and the README promises it is removed at the end. A
 * person who stops the demo with Ctrl-C ends it by a signal, whose default skips the handler
 * that removes the folder: the demo turns the signal into an exit, so the folder goes then too.
 */
const ROOT = path.resolve(__dirname, '../..');
const REGISTER = path.join(ROOT, 'test', 'harness', 'register.js');

it('removes its temporary folder when stopped with Ctrl-C mid-run', async () => {
	// The demo's own temporary folder lands in this one (os.tmpdir() reads TMPDIR).
	const tmp = mkdtempSync(path.join(os.tmpdir(), 'demo-signal-'));
	try {
		const demo = spawn(process.execPath, ['-r', REGISTER, path.join(ROOT, 'scripts', 'demo.ts')], {
			cwd: ROOT,
			env: { ...process.env, TMPDIR: tmp },
			stdio: ['ignore', 'pipe', 'pipe'],
		});
		let output = '';
		demo.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
		demo.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
		const exited = new Promise<number | null>((resolve) => demo.on('exit', resolve));
		// Stopped once the first example runs: n8n's home exists and holds what the run wrote.
		const deadline = Date.now() + 60_000;
		while (!output.includes('\n== ') && Date.now() < deadline)
			await new Promise((resolve) => setTimeout(resolve, 100));
		expect(output).toContain('\n== ');
		expect(readdirSync(tmp).filter((name) => name.startsWith('abstract-n8n-'))).toHaveLength(1);
		demo.kill('SIGINT');
		const code = await exited;
		expect(readdirSync(tmp)).toEqual([]);
		expect(code).toBe(130);
	} finally {
		rmSync(tmp, { recursive: true, force: true });
	}
}, 90_000);
