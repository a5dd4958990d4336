import { spawn, type ChildProcess } from 'child_process';

import {
	assertSucceeded,
	childEnv,
	runCommand,
	sleep,
	stopChild,
	type CommandResult,
} from './processes';
import type { Runtime } from './runtime';

/** The owner account of a local instance, so the editor opens without a sign-up. */
export interface Owner {
	email: string;
	password: string;
	firstName: string;
	lastName: string;
}

/** A local, throw-away instance on 127.0.0.1: a fixed, printed login is enough. */
export const LOCAL_OWNER: Owner = {
	email: 'demo@example.com',
	password: 'Sandbox-Demo-1',
	firstName: 'Sandbox',
	lastName: 'Demo',
};

export interface InstanceOptions {
	/**
	 * n8n's user folder (`N8N_USER_FOLDER`: n8n keeps its own files in its `.n8n`), a fresh one as
	 * on a new machine; by default also n8n's HOME and working directory.
	 */
	userFolder: string;
	/**
	 * n8n's HOME and working directory, when the user folder is elsewhere: its `.n8n-files` is
	 * the folder n8n 2.x's file nodes may use, whatever the user folder (the README's rule).
	 */
	home?: string;
	/** The editor's and REST API's port on 127.0.0.1. */
	port: number;
	/** The internal task runner's broker port (n8n's default 5679 would clash between instances). */
	brokerPort: number;
	/** bcrypt hash of the owner's password, for `n8n start` (see ownerPasswordHash). */
	owner?: { owner: Owner; passwordHash: string };
}

/**
 * The environment every n8n process gets. It keeps n8n headless and off the network (no
 * telemetry, version or "what's new" checks, templates, banners, vetted-package list, MCP
 * registry, license renewal), bound to 127.0.0.1, and lets it reach the sandbox: SSRF
 * protection stays on but allows 127.0.0.1 only. File access keeps n8n's default (2.x:
 * `~/.n8n-files` only, `~` being this HOME). The caller's own N8N_* settings win
 * (N8N_LOG_LEVEL=debug, say), except the folder, ports, owner and file access this script
 * manages.
 */
export function instanceEnvironment(runtime: Runtime, options: InstanceOptions): NodeJS.ProcessEnv {
	const settings: NodeJS.ProcessEnv = {
		HOME: options.home ?? options.userFolder,
		N8N_USER_FOLDER: options.userFolder,
		N8N_LISTEN_ADDRESS: '127.0.0.1',
		N8N_HOST: '127.0.0.1',
		N8N_PORT: String(options.port),
		N8N_PROTOCOL: 'http',
		N8N_SECURE_COOKIE: 'false',
		N8N_RUNNERS_BROKER_PORT: String(options.brokerPort),
		N8N_PYTHON_ENABLED: 'false',
		N8N_DIAGNOSTICS_ENABLED: 'false',
		N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
		N8N_VERSION_NOTIFICATIONS_WHATS_NEW_ENABLED: 'false',
		N8N_TEMPLATES_ENABLED: 'false',
		N8N_PERSONALIZATION_ENABLED: 'false',
		N8N_HIRING_BANNER_ENABLED: 'false',
		N8N_DYNAMIC_BANNERS_ENABLED: 'false',
		N8N_AI_ENABLED: 'false',
		N8N_LICENSE_AUTO_RENEW_ENABLED: 'false',
		// n8n 1.x knows no mcp-registry module and refuses to start when told to disable it.
		...(isN8n1(runtime) ? {} : { N8N_DISABLED_MODULES: 'mcp-registry' }),
		N8N_COMMUNITY_PACKAGES_ENABLED: 'true',
		N8N_UNVERIFIED_PACKAGES_ENABLED: 'true',
		N8N_VERIFIED_PACKAGES_ENABLED: 'false',
		N8N_REINSTALL_MISSING_PACKAGES: 'false',
		N8N_SSRF_PROTECTION_ENABLED: 'true',
		N8N_SSRF_ALLOWED_IP_RANGES: '127.0.0.1/32',
		N8N_ENFORCE_SETTINGS_FILE_PERMISSIONS: 'true',
		...(options.owner
			? {
					N8N_INSTANCE_OWNER_MANAGED_BY_ENV: 'true',
					N8N_INSTANCE_OWNER_EMAIL: options.owner.owner.email,
					N8N_INSTANCE_OWNER_FIRST_NAME: options.owner.owner.firstName,
					N8N_INSTANCE_OWNER_LAST_NAME: options.owner.owner.lastName,
					N8N_INSTANCE_OWNER_PASSWORD_HASH: options.owner.passwordHash,
				}
			: {}),
	};
	const managed =
		/^N8N_(USER_FOLDER|PORT|RUNNERS_BROKER_PORT|INSTANCE_OWNER_.*|RESTRICT_FILE_ACCESS_TO|BLOCK_FILE_ACCESS_TO_N8N_FILES)$/;
	const callerSettings = Object.fromEntries(
		Object.entries(process.env).filter(([name]) => name.startsWith('N8N_') && !managed.test(name)),
	);
	const env = childEnv({ ...settings, ...callerSettings, PATH: runtime.path });
	for (const name of Object.keys(env))
		if (managed.test(name) && settings[name] === undefined) delete env[name];
	return env;
}

/** Whether the runtime is an n8n 1.x, which differs from 2.x in the ways these scripts handle. */
export const isN8n1 = (runtime: Runtime) => runtime.n8nVersion.startsWith('1.');

/**
 * Runs one n8n CLI command (`import:workflow`, `execute`, ...) to its end, started in n8n's home
 * folder (where a person starts it from a terminal), or in `cwd`.
 */
export async function n8nCommand(
	runtime: Runtime,
	env: NodeJS.ProcessEnv,
	args: string[],
	cwd = env.HOME,
): Promise<CommandResult> {
	return await runCommand(runtime.node, [runtime.n8nBin, ...args], { env, cwd });
}

/** n8n stores the owner's password as a bcrypt hash; n8n's own bcryptjs makes it. */
export async function ownerPasswordHash(runtime: Runtime, owner: Owner): Promise<string> {
	const script = "process.stdout.write(require('bcryptjs').hashSync(process.argv[1], 10))";
	const result = assertSucceeded(
		await runCommand(runtime.node, ['-e', script, owner.password], { cwd: runtime.n8nDir }),
		'hashing the owner password',
	);
	return result.stdout.trim();
}

/** A running `n8n start`. */
export interface Server {
	url: string;
	child: ChildProcess;
	/** Everything n8n printed so far, line by line. */
	log: string[];
	stop(): Promise<void>;
}

/**
 * Starts the editor and REST API and waits until n8n reports ready (its readiness endpoint
 * answers 200 once the database, nodes and community packages are loaded).
 */
export async function startServer(
	runtime: Runtime,
	env: NodeJS.ProcessEnv,
	options: { onLine?: (line: string) => void; timeoutMs?: number } = {},
): Promise<Server> {
	const url = `http://127.0.0.1:${env.N8N_PORT}`;
	// Its own process group: a Ctrl-C in the terminal reaches this script, which stops n8n in
	// order (n8n, then the sandbox), instead of every process at once.
	const child = spawn(runtime.node, [runtime.n8nBin, 'start'], {
		env,
		cwd: env.HOME,
		stdio: ['ignore', 'pipe', 'pipe'],
		detached: true,
	});
	const killOnExit = () => {
		try {
			if (child.pid) process.kill(-child.pid, 'SIGKILL'); // n8n and its task runner
		} catch {
			// already gone
		}
	};
	process.once('exit', killOnExit);
	child.once('exit', () => process.removeListener('exit', killOnExit));
	const log: string[] = [];
	for (const stream of [child.stdout, child.stderr]) {
		let pending = '';
		stream?.on('data', (chunk: Buffer) => {
			const lines = (pending + chunk.toString('utf8')).split('\n');
			pending = lines.pop() ?? '';
			for (const line of lines) {
				log.push(line);
				options.onLine?.(line);
			}
		});
	}
	const server: Server = { url, child, log, stop: async () => await stopChild(child) };

	const deadline = Date.now() + (options.timeoutMs ?? 180_000);
	while (Date.now() < deadline) {
		if (child.exitCode !== null || child.signalCode !== null) {
			throw new Error(
				`n8n stopped before it was ready (exit ${child.exitCode ?? child.signalCode}):\n${log.slice(-30).join('\n')}`,
			);
		}
		try {
			// n8n 1.x reports ready before it has mounted its REST routes: wait for those too.
			const ready = (await fetch(`${url}/healthz/readiness`)).status === 200;
			if (ready && (await fetch(`${url}/rest/settings`)).status === 200) return server;
		} catch {
			// not listening yet
		}
		await sleep(500);
	}
	await server.stop();
	throw new Error(
		`n8n was not ready within ${Math.round((options.timeoutMs ?? 180_000) / 1000)} s:\n${log.slice(-30).join('\n')}`,
	);
}

/**
 * Creates the owner account through the sign-up the editor shows on a new instance, if there is
 * none yet: n8n 1.x cannot take the owner from environment variables as 2.x does. An instance
 * that has its owner answers 400 and is left as it is.
 */
export async function setUpOwner(server: Server, owner: Owner): Promise<void> {
	const response = await fetch(`${server.url}/rest/owner/setup`, {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify({
			email: owner.email,
			firstName: owner.firstName,
			lastName: owner.lastName,
			password: owner.password,
		}),
	});
	const body = await response.text();
	if (response.status === 200 || (response.status === 400 && /already/i.test(body))) return;
	throw new Error(`setting up the owner ${owner.email} failed: HTTP ${response.status} ${body}`);
}

/** Signs in as the owner through the REST API the editor uses; returns the session cookie. */
export async function signIn(server: Server, owner: Owner): Promise<string> {
	const response = await fetch(`${server.url}/rest/login`, {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify({ emailOrLdapLoginId: owner.email, password: owner.password }),
	});
	const cookie = response.headers
		.getSetCookie()
		.map((header) => header.split(';')[0])
		.find((pair) => pair.startsWith('n8n-auth='));
	if (response.status !== 200 || !cookie)
		throw new Error(
			`signing in as ${owner.email} failed: HTTP ${response.status} ${await response.text()}`,
		);
	return cookie;
}

/** GET of an editor or REST path with the session cookie; the parsed JSON body. */
export async function getJson<T>(server: Server, cookie: string, path: string): Promise<T> {
	const response = await fetch(`${server.url}${path}`, { headers: { cookie } });
	if (response.status !== 200) throw new Error(`GET ${path}: HTTP ${response.status}`);
	return (await response.json()) as T;
}
