import { spawn, type ChildProcess, type SpawnOptions } from 'child_process';
import net from 'net';

/** What a finished command printed, and how it ended. */
export interface CommandResult {
	code: number | null;
	signal: NodeJS.Signals | null;
	stdout: string;
	stderr: string;
}

/**
 * Runs a command to its end and collects its output. `echo` streams the output to the console
 * as well (long installs show their progress); a non-zero exit is returned, not thrown, so the
 * caller can say what failed.
 */
export function runCommand(
	command: string,
	args: string[],
	options: SpawnOptions & { echo?: boolean } = {},
): Promise<CommandResult> {
	return new Promise((resolve, reject) => {
		const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
		const stdout: Buffer[] = [];
		const stderr: Buffer[] = [];
		child.stdout?.on('data', (chunk: Buffer) => {
			stdout.push(chunk);
			if (options.echo) process.stdout.write(chunk);
		});
		child.stderr?.on('data', (chunk: Buffer) => {
			stderr.push(chunk);
			if (options.echo) process.stderr.write(chunk);
		});
		child.on('error', reject);
		child.on('close', (code, signal) =>
			resolve({
				code,
				signal,
				stdout: Buffer.concat(stdout).toString('utf8'),
				stderr: Buffer.concat(stderr).toString('utf8'),
			}),
		);
	});
}

/** Throws with the command's own last words when it did not exit with 0. */
export function assertSucceeded(result: CommandResult, what: string): CommandResult {
	if (result.code === 0) return result;
	const tail = `${result.stdout}\n${result.stderr}`.trim().split('\n').slice(-25).join('\n');
	throw new Error(`${what} failed (exit ${result.code ?? result.signal}):\n${tail}`);
}

/** A TCP port on 127.0.0.1 nobody listens on right now (n8n and its task broker need one each). */
export function freePort(): Promise<number> {
	return new Promise((resolve, reject) => {
		const server = net.createServer();
		server.unref();
		server.on('error', reject);
		server.listen(0, '127.0.0.1', () => {
			const { port } = server.address() as net.AddressInfo;
			server.close(() => resolve(port));
		});
	});
}

/** Whether something already listens on a port of 127.0.0.1. */
export function portInUse(port: number): Promise<boolean> {
	return new Promise((resolve) => {
		const socket = net.connect({ port, host: '127.0.0.1' });
		socket.once('connect', () => {
			socket.destroy();
			resolve(true);
		});
		socket.once('error', () => resolve(false));
	});
}

/**
 * Stops a child politely (SIGTERM lets n8n shut down its task runner and database), then
 * forcefully if it has not gone after `graceMs`.
 */
export async function stopChild(child: ChildProcess, graceMs = 20_000): Promise<void> {
	if (child.exitCode !== null || child.signalCode !== null) return;
	const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
	child.kill('SIGTERM');
	const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
	await exited;
	clearTimeout(timer);
}

/**
 * The environment for a child this script starts: ours without the `npm_*` variables that
 * `npm run` adds. A child npm would otherwise take `npm_config_local_prefix` (this repository)
 * as the folder to install into.
 */
export function childEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
	const env: NodeJS.ProcessEnv = {};
	for (const [name, value] of Object.entries(process.env))
		if (!/^npm_/i.test(name)) env[name] = value;
	return { ...env, ...extra };
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
