import { promises as fs } from 'fs';
import os from 'os';
import path from 'path';

import { ROOT } from '../../test/harness/nodeTypes';
import { installCommunityPackage, packPackage, readManifest, type PackageManifest } from './communityPackage';
import { instanceEnvironment, LOCAL_OWNER, ownerPasswordHash, signIn, startServer, type Server } from './instance';
import { checkLoadedTypes, listedTypes, type ListedType, type LoadReport } from './loadingCheck';
import { freePort } from './processes';
import { ensureRuntime, type Runtime } from './runtime';

export { ROOT };

/** n8n installed, and the package installed into a fresh user folder: what dev and e2e share. */
export interface Prepared {
	runtime: Runtime;
	manifest: PackageManifest;
	/** The types package.json lists, named from the repository's build. */
	listed: ListedType[];
	/** A temporary folder for this run: the tarball and the user folder. */
	workFolder: string;
	userFolder: string;
	/** The installed copy: <userFolder>/.n8n/nodes/node_modules/<package>. */
	packageDir: string;
	passwordHash: string;
}

/**
 * Installs n8n if the cache lacks it, packs the built package (dist/ must be current: the npm
 * scripts build first) and installs the tarball into a new user folder as n8n installs a
 * community package.
 */
export async function prepare(label: string, log: (line: string) => void): Promise<Prepared> {
	const runtime = await ensureRuntime(log);
	const manifest = await readManifest(ROOT);
	const listed = listedTypes(ROOT, manifest);
	const workFolder = await fs.mkdtemp(path.join(os.tmpdir(), `n8n-abstractapi-${label}-`));
	const userFolder = path.join(workFolder, 'user');
	const tarball = await packPackage(ROOT, workFolder);
	const packageDir = await installCommunityPackage(userFolder, tarball);
	log(`Installed ${path.basename(tarball)} into the fresh n8n user folder ${userFolder}`);
	return { runtime, manifest, listed, workFolder, userFolder, packageDir, passwordHash: await ownerPasswordHash(runtime, LOCAL_OWNER) };
}

/** The environment of an n8n process on this user folder, on the given (or free) ports. */
export async function environmentFor(prepared: Prepared, port?: number): Promise<NodeJS.ProcessEnv> {
	return instanceEnvironment(prepared.runtime, {
		userFolder: prepared.userFolder,
		port: port ?? (await freePort()),
		brokerPort: await freePort(),
		owner: { owner: LOCAL_OWNER, passwordHash: prepared.passwordHash },
	});
}

/**
 * Starts the editor, signs in as the owner and checks what it offers against package.json.
 * The server keeps running (the caller stops it); on a failed start it is already stopped.
 */
export async function startAndCheck(
	prepared: Prepared,
	env: NodeJS.ProcessEnv,
	onLine?: (line: string) => void,
): Promise<{ server: Server; cookie: string; report: LoadReport }> {
	const server = await startServer(prepared.runtime, env, { onLine });
	try {
		const cookie = await signIn(server, LOCAL_OWNER);
		const report = await checkLoadedTypes(server, cookie, prepared);
		return { server, cookie, report };
	} catch (error) {
		await server.stop();
		throw error;
	}
}
