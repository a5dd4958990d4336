import { fork, type ChildProcess } from 'child_process';
import { existsSync } from 'fs';
import path from 'path';

import type { Go, Report } from './runner';

/**
 * Starts `count` OS processes that each run the node through n8n-core (runner.ts), waits until
 * every one has loaded, then lets them start at the same moment with the same key and rate,
 * each on its own items. Returns what each reported.
 */
export async function runInProcesses(
	count: number,
	go: (index: number) => Omit<Go, 'type' | 'startAt'>,
): Promise<Report[]> {
	const children: ChildProcess[] = [];
	const reported = new Set<number>();
	try {
		const ready: Array<Promise<void>> = [];
		// From test/ (jest) the runner is TypeScript, loaded through register.js; from the
		// compiled benchmarks (.out/) it is JavaScript.
		const typescript = existsSync(path.join(__dirname, 'runner.ts'));
		for (let index = 0; index < count; index++) {
			const child = fork(path.join(__dirname, typescript ? 'runner.ts' : 'runner.js'), [], {
				execArgv: typescript ? ['-r', path.join(__dirname, '../../harness/register.js')] : [],
				stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
			});
			children.push(child);
			ready.push(
				new Promise((resolve, reject) => {
					child.once('message', () => resolve());
					child.once('exit', (code) =>
						reject(new Error(`process ${index} exited with ${code} before it was ready`)),
					);
				}),
			);
		}
		await Promise.all(ready);
		const startAt = Date.now() + 300;
		return await Promise.all(
			children.map(
				(child, index) =>
					new Promise<Report>((resolve, reject) => {
						child.removeAllListeners('exit');
						child.on('message', (message: Report) => {
							if (message.type !== 'done') return;
							reported.add(index);
							resolve(message);
						});
						child.once('exit', (code) =>
							reject(new Error(`process ${index} exited with ${code} without a report`)),
						);
						child.send({ type: 'go', startAt, ...go(index) } satisfies Go);
					}),
			),
		);
	} finally {
		// A child that reported exits by itself; one that did not is stopped. Either way it is
		// waited for: its exit removes its harness folder (../../harness/env.ts).
		await Promise.all(
			children.map(async (child, index) => {
				if (child.exitCode !== null || child.signalCode !== null) return;
				const exited = new Promise((resolve) => child.once('exit', resolve));
				if (!reported.has(index)) child.kill();
				await exited;
			}),
		);
	}
}
