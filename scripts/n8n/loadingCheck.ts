import path from 'path';

import type { PackageManifest } from './communityPackage';
import { getJson, type Server } from './instance';
import { runCommand } from './processes';
import type { Runtime } from './runtime';

/** A node or credential type that package.json lists, and the file it comes from. */
export interface ListedType {
	kind: 'node' | 'credential';
	file: string;
	/** The node's `description.name` or the credential's `name`. */
	name: string;
}

/**
 * Every type package.json's `n8n` section lists, named by loading the repository's own build
 * (dist/). These are what n8n must offer once the package is installed.
 */
export function listedTypes(root: string, manifest: PackageManifest): ListedType[] {
	const load = (file: string) => {
		// eslint-disable-next-line @typescript-eslint/no-require-imports
		const exported = require(path.join(root, file)) as Record<
			string,
			new () => { name?: string; description?: { name: string } }
		>;
		const Class = exported[path.basename(file).split('.')[0]];
		if (typeof Class !== 'function')
			throw new Error(`${file} does not export the class ${path.basename(file).split('.')[0]}`);
		return new Class();
	};
	return [
		...manifest.n8n.nodes.map((file) => ({
			kind: 'node' as const,
			file,
			name: load(file).description?.name ?? '',
		})),
		...manifest.n8n.credentials.map((file) => ({
			kind: 'credential' as const,
			file,
			name: load(file).name ?? '',
		})),
	];
}

export interface LoadReport {
	ok: boolean;
	/** Every listed node and credential type is offered (icons aside). */
	allLoaded: boolean;
	/** One line per finding, for the console. */
	lines: string[];
	/** What went wrong, naming each node or credential; empty when ok. */
	problems: string[];
}

interface NodeTypeDescription {
	name: string;
	icon?: string;
	iconUrl?: string | { light: string; dark: string };
}

/**
 * Asks the running editor, through the endpoints it loads its node panel from
 * (/types/nodes.json, /types/credentials.json), whether every listed node and credential type
 * is there, and fetches each node's icons the way the editor shows them. When some are missing,
 * it finds out why: each listed file of the installed copy is loaded alone under n8n's Node
 * (n8n skips the whole package when one file throws, with only a log line), and n8n's own log
 * lines about the package are quoted.
 */
export async function checkLoadedTypes(
	server: Server,
	cookie: string,
	context: {
		runtime: Runtime;
		packageDir: string;
		manifest: PackageManifest;
		listed: ListedType[];
	},
): Promise<LoadReport> {
	const { manifest, listed } = context;
	const nodes = await getJson<NodeTypeDescription[]>(server, cookie, '/types/nodes.json');
	const credentials = await getJson<Array<{ name: string }>>(
		server,
		cookie,
		'/types/credentials.json',
	);
	const nodeByName = new Map(nodes.map((node) => [node.name, node]));
	const credentialNames = new Set(credentials.map((credential) => credential.name));

	const missing: ListedType[] = [];
	const problems: string[] = [];
	let iconsSeen = 0;
	for (const type of listed) {
		if (type.kind === 'credential') {
			if (!credentialNames.has(type.name)) missing.push(type);
			continue;
		}
		const node = nodeByName.get(`${manifest.name}.${type.name}`);
		if (!node) {
			missing.push(type);
			continue;
		}
		const iconProblem = await checkIcons(server, node);
		if (iconProblem) problems.push(`node ${type.name} (${type.file}): ${iconProblem}`);
		else iconsSeen++;
	}

	const listedNodes = listed.filter((type) => type.kind === 'node').length;
	const listedCredentials = listed.length - listedNodes;
	const missingNodes = missing.filter((type) => type.kind === 'node');
	const missingCredentials = missing.filter((type) => type.kind === 'credential');
	const lines = [
		`n8n offers ${listedNodes - missingNodes.length} of ${listedNodes} node types of ${manifest.name} (${iconsSeen} with both icons served) and ${listedCredentials - missingCredentials.length} of ${listedCredentials} credential types.`,
	];
	if (missing.length > 0) {
		const failures = await probeInstalledFiles(context.runtime, context.packageDir, listed);
		const broken = listed.filter((type) => failures.has(type.file));
		for (const type of broken)
			problems.push(
				`${type.kind} ${type.name} does not load in n8n: ${type.file} throws "${failures.get(type.file)}"`,
			);
		if (failures.has('(probe)'))
			problems.push(`loading the files one by one failed: ${failures.get('(probe)')}`);
		if (missing.length === listed.length) {
			problems.push(
				`n8n loaded none of the ${listedNodes} node types and ${listedCredentials} credential types: it skips the whole package when one listed file fails`,
			);
		} else {
			const names = (types: ListedType[]) =>
				types.map((type) => `${type.name} (${type.file})`).join(', ');
			if (missingNodes.length > 0)
				problems.push(`node types n8n did not load: ${names(missingNodes)}`);
			if (missingCredentials.length > 0)
				problems.push(`credential types n8n did not load: ${names(missingCredentials)}`);
		}
		const logLines = server.log
			.filter((line) => line.includes(manifest.name) || line.includes(context.packageDir))
			.slice(0, 6);
		if (logLines.length > 0)
			problems.push(
				`n8n's log says:\n      ${logLines.map((line) => line.trim()).join('\n      ')}`,
			);
	}
	return { ok: problems.length === 0, allLoaded: missing.length === 0, lines, problems };
}

/** Both of a node's icons (light and dark) answer 200 with an image, or the reason. */
async function checkIcons(server: Server, node: NodeTypeDescription): Promise<string | undefined> {
	if (!node.iconUrl) return node.icon ? undefined : 'has no icon';
	const urls =
		typeof node.iconUrl === 'string' ? [node.iconUrl] : [node.iconUrl.light, node.iconUrl.dark];
	for (const url of urls) {
		const response = await fetch(`${server.url}/${url.replace(/^\//, '')}`);
		const body = await response.text();
		if (response.status !== 200) return `icon ${url} answers HTTP ${response.status}`;
		if (
			!/<svg[\s>]/.test(body) &&
			!(response.headers.get('content-type') ?? '').startsWith('image/')
		)
			return `icon ${url} is not an image`;
	}
	return undefined;
}

/**
 * Loads each listed file of the installed package on its own, under n8n's Node with n8n's
 * modules (as n8n does: n8n-workflow comes from n8n), and instantiates its class. Returns the
 * files that fail, with their error.
 */
async function probeInstalledFiles(
	runtime: Runtime,
	packageDir: string,
	listed: ListedType[],
): Promise<Map<string, string>> {
	const script = `
		const path = require('path');
		const [dir, files] = [process.argv[1], JSON.parse(process.argv[2])];
		const failures = {};
		for (const file of files) {
			try {
				const Class = require(path.join(dir, file))[path.basename(file).split('.')[0]];
				if (typeof Class !== 'function') throw new Error('no class ' + path.basename(file).split('.')[0] + ' exported');
				new Class();
			} catch (error) {
				failures[file] = String((error && error.message) || error);
			}
		}
		process.stdout.write(JSON.stringify(failures));`;
	const result = await runCommand(
		runtime.node,
		['-e', script, packageDir, JSON.stringify(listed.map((type) => type.file))],
		{
			cwd: packageDir,
			env: { PATH: runtime.path, NODE_PATH: path.join(runtime.n8nDir, 'node_modules') },
		},
	);
	try {
		return new Map(Object.entries(JSON.parse(result.stdout) as Record<string, string>));
	} catch {
		return new Map([['(probe)', `${result.stdout}${result.stderr}`.trim()]]);
	}
}

/** The imported credentials and workflows are there under the ids the examples use. */
export async function checkImported(
	server: Server,
	cookie: string,
	credentialIds: string[],
	workflowIds: string[],
): Promise<string[]> {
	const credentials = await getJson<{ data: Array<{ id: string }> }>(
		server,
		cookie,
		'/rest/credentials',
	);
	const workflows = await getJson<{ data: Array<{ id: string }> }>(
		server,
		cookie,
		'/rest/workflows',
	);
	const haveCredentials = new Set(credentials.data.map((credential) => credential.id));
	const haveWorkflows = new Set(workflows.data.map((workflow) => workflow.id));
	return [
		...credentialIds
			.filter((id) => !haveCredentials.has(id))
			.map((id) => `credential ${id} is not in n8n after the import`),
		...workflowIds
			.filter((id) => !haveWorkflows.has(id))
			.map((id) => `workflow ${id} is not in n8n after the import`),
	];
}
